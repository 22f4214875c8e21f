/** What the benchmark reports for one operation. */
export interface OpFigures {
  p50_ms: number;
  p99_ms: number;
  /** Calls per second, one after another: 1000 / mean latency. */
  ops_per_s: number;
  samples: number;
}

export interface MeasureOptions {
  /** Time budget in ms: calls go on until both this and minIterations are reached. */
  timeMs: number;
  minIterations?: number;
  /** Runs before each call, untimed (e.g. to give an inbox ten fresh messages). */
  beforeEach?: () => void | Promise<void>;
}

/** Untimed calls first, so that statements are prepared and pages cached before timing. */
const WARMUP_MS = 250;
const WARMUP_CALLS = 16;
/** Beyond this many samples a measurement stops even within its budget (memory). */
const MAX_SAMPLES = 1_000_000;

/**
 * Time one operation: each call on its own, back to back, until the budget and the minimum
 * number of calls are both spent. A call that returns a promise is timed until it settles.
 * (The package's own loop: `brain bench` ships with the CLI and needs no benchmark library.)
 */
export async function measure(fn: () => unknown, options: MeasureOptions): Promise<OpFigures> {
  const minIterations = options.minIterations ?? 64;
  const call = async (): Promise<number> => {
    if (options.beforeEach) await options.beforeEach();
    const t0 = performance.now();
    const out = fn();
    if (out instanceof Promise) await out;
    return performance.now() - t0;
  };
  const warmupUntil = performance.now() + Math.min(WARMUP_MS, options.timeMs);
  for (let i = 0; i < Math.min(WARMUP_CALLS, minIterations); i++) {
    await call();
    if (performance.now() > warmupUntil) break;
  }
  const samples: number[] = [];
  let spent = 0;
  while (
    (spent < options.timeMs || samples.length < minIterations) &&
    samples.length < MAX_SAMPLES
  ) {
    const ms = await call();
    samples.push(ms);
    spent += ms;
  }
  return figuresOf(samples);
}

/** The p-th percentile (0–100) of a list of samples, interpolated between the nearest two. */
export function percentile(samples: number[], p: number): number {
  const s = [...samples].sort((a, b) => a - b);
  if (s.length === 0) return 0;
  const at = (p / 100) * (s.length - 1);
  const lo = Math.floor(at);
  const hi = Math.min(s.length - 1, lo + 1);
  return s[lo]! + (s[hi]! - s[lo]!) * (at - lo);
}

/** Figures from wall-clock samples (ms). */
export function figuresOf(samples: number[]): OpFigures {
  const mean = samples.reduce((a, b) => a + b, 0) / Math.max(1, samples.length);
  return {
    p50_ms: percentile(samples, 50),
    p99_ms: percentile(samples, 99),
    ops_per_s: mean > 0 ? 1000 / mean : 0,
    samples: samples.length,
  };
}
