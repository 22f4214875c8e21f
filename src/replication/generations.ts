/** One line of `litestream generations`: a generation of the replica and how far behind it is. */
export interface Generation {
  replica: string;
  generation: string;
  /** Time since the replica last received WAL of this generation, in ms. */
  lagMs: number;
  start: string;
  end: string;
}

const GO_UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** A Go duration ("618ms", "1m2.5s", "-433ms", "0s") in ms; undefined when it is not one. */
export function parseGoDuration(value: string): number | undefined {
  const match = /^(-?)((?:\d+(?:\.\d+)?(?:ns|us|µs|μs|ms|s|m|h))+|0)$/.exec(value.trim());
  if (!match) return undefined;
  let ms = 0;
  for (const [, n, unit] of match[2]!.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|μs|ms|s|m|h)/g))
    ms += Number(n) * GO_UNITS[unit!]!;
  return match[1] ? -ms : ms;
}

/**
 * The table `litestream generations` prints (name, generation, lag, start, end), newest data
 * last per replica as Litestream orders it. Lines that are not of that shape are left out.
 */
export function parseGenerations(output: string): Generation[] {
  const rows: Generation[] = [];
  for (const line of output.split('\n')) {
    const cols = line.trim().split(/\s+/);
    if (cols.length !== 5 || cols[0] === 'name') continue;
    const lagMs = parseGoDuration(cols[2]!);
    if (lagMs === undefined) continue;
    rows.push({ replica: cols[0]!, generation: cols[1]!, lagMs, start: cols[3]!, end: cols[4]! });
  }
  return rows;
}

/**
 * How far the replica is behind: the lag of the generation that received data last (Litestream
 * starts a new generation when it loses its place; the old ones stay, and lag more).
 */
export function replicationLag(generations: readonly Generation[]): Generation | undefined {
  let latest: Generation | undefined;
  for (const g of generations) if (!latest || g.end > latest.end) latest = g;
  return latest;
}
