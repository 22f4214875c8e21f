import { Bench } from 'tinybench';

/** What the benchmark reports for one operation. */
export interface OpFigures {
  p50_ms: number;
  p99_ms: number;
  /** Calls per second, one after another: 1000 / mean latency. */
  ops_per_s: number;
  samples: number;
}

export interface MeasureOptions {
  /** Time budget in ms (tinybench keeps going until both this and minIterations are met). */
  timeMs: number;
  minIterations?: number;
  /** Runs before each call, untimed (e.g. to give an inbox ten fresh messages). */
  beforeEach?: () => void | Promise<void>;
}

/** Time one operation with tinybench: latency percentiles and sequential throughput. */
export async function measure(fn: () => unknown, options: MeasureOptions): Promise<OpFigures> {
  const bench = new Bench({
    time: options.timeMs,
    iterations: options.minIterations ?? 64,
    warmupTime: Math.min(250, options.timeMs),
    warmupIterations: Math.min(16, options.minIterations ?? 16),
    throws: true,
  });
  bench.add('op', fn, options.beforeEach ? { beforeEach: options.beforeEach } : {});
  await bench.run();
  const result = bench.tasks[0]!.result;
  if (result.state !== 'completed') {
    const reason = result.state === 'errored' ? `: ${result.error.message}` : '';
    throw new Error(`the measurement did not complete (${result.state})${reason}`);
  }
  return {
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    ops_per_s: result.period > 0 ? 1000 / result.period : 0,
    samples: result.latency.samplesCount,
  };
}

/** The p-th percentile (0–100) of a list of samples, interpolated as tinybench does. */
export function percentile(samples: number[], p: number): number {
  const s = [...samples].sort((a, b) => a - b);
  if (s.length === 0) return 0;
  const at = (p / 100) * (s.length - 1);
  const lo = Math.floor(at);
  const hi = Math.min(s.length - 1, lo + 1);
  return s[lo]! + (s[hi]! - s[lo]!) * (at - lo);
}

/** Figures from plain wall-clock samples (ms), for what tinybench does not run (processes). */
export function figuresOf(samples: number[]): OpFigures {
  const mean = samples.reduce((a, b) => a + b, 0) / Math.max(1, samples.length);
  return {
    p50_ms: percentile(samples, 50),
    p99_ms: percentile(samples, 99),
    ops_per_s: mean > 0 ? 1000 / mean : 0,
    samples: samples.length,
  };
}
