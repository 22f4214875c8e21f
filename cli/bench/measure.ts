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

/**
 * Time one operation on tinybench: each call on its own, back to back, after untimed warm-up
 * calls, until the budget and the minimum number of calls are both spent. A call that returns a
 * promise is timed until it settles; `beforeEach` runs outside the timed window.
 */
export async function measure(fn: () => unknown, options: MeasureOptions): Promise<OpFigures> {
  const { Bench } = await import('tinybench');
  const minIterations = options.minIterations ?? 64;
  const bench = new Bench({
    time: options.timeMs,
    iterations: minIterations,
    warmupTime: Math.min(WARMUP_MS, options.timeMs),
    warmupIterations: Math.min(WARMUP_CALLS, minIterations),
    throws: true,
  });
  bench.add('op', fn, options.beforeEach ? { beforeEach: options.beforeEach } : {});
  await bench.run();
  const result = bench.tasks[0]!.result;
  if (result.state !== 'completed') throw new Error(`measure: the task ended ${result.state}`);
  return {
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    ops_per_s: result.latency.mean > 0 ? 1000 / result.latency.mean : 0,
    samples: result.latency.samplesCount,
  };
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
