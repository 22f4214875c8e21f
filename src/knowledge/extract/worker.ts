// Extraction in the background of a long-running process (brain serve, brain mcp, brain agent):
// a pass, then the threads that need a summary, then a pause, until stopped. It never throws;
// failures go to `onError`, and the messages whose read failed wait in the queue for their retry.
import type { BrainContext } from '../../context.js';
import type { ExtractThreads } from '../../vocabulary.js';
import { extractPass } from './drain.js';
import { createSummarizer, summaryPass, type Summarizer } from './summary.js';
import type { Extractor } from './types.js';
import { pause } from '../../clock.js';

export interface ExtractionWorkerOptions {
  threads?: ExtractThreads;
  /** Pause between passes once nothing is left to read. */
  intervalMs?: number;
  /** Told each new failure (not again while the same failure repeats). */
  onError?: (message: string) => void;
  signal?: AbortSignal;
  /** What summarizes threads (the offline summarizer by default). */
  summarizer?: Summarizer;
}

export interface ExtractionWorker {
  /** Stop and wait for the pass in flight to end. */
  stop(): Promise<void>;
  readonly done: Promise<void>;
}

export function startExtractionWorker(
  ctx: BrainContext,
  extractor: Extractor,
  options: ExtractionWorkerOptions = {},
): ExtractionWorker {
  const controller = new AbortController();
  const signal = options.signal
    ? AbortSignal.any([options.signal, controller.signal])
    : controller.signal;
  let lastError: string | undefined;
  const report = (message: string) => {
    if (message === lastError) return;
    lastError = message;
    options.onError?.(message);
  };
  let summarizer: Promise<Summarizer> | undefined;
  // The brain's write mark when a summary pass last found nothing to do: while it stands, no
  // thread was closed or written to since, and the pass (a scan of the closed threads) is skipped.
  let quiet: string | undefined;
  const done = (async () => {
    while (!signal.aborted && ctx.db.open) {
      try {
        // Small batches: each is one write transaction, and other writers wait on none for long.
        const result = await extractPass(ctx, extractor, {
          threads: options.threads,
          signal,
          batchSize: 2,
          limit: 100,
          noWait: true,
        });
        for (const e of result.errors) report(`extraction: ${e}`);
        if (result.read > 0 && result.errors.length === 0) lastError = undefined;
        // A full pass means more may be waiting: go on without a pause (not when the lock was
        // taken: then the writer is given the pause).
        if (!result.busy && result.read + result.skipped >= 100) continue;
        if (!result.busy && !signal.aborted && writeMark(ctx) !== quiet) {
          const mark = writeMark(ctx);
          summarizer ??= options.summarizer
            ? Promise.resolve(options.summarizer)
            : createSummarizer();
          const summaries = await summaryPass(ctx, await summarizer, {
            threads: options.threads,
            signal,
            limit: 5,
            noWait: true,
          });
          for (const e of summaries.errors) report(`summary: ${e}`);
          if (!summaries.busy && summaries.summarized >= 5) continue;
          quiet = summaries.summarized === 0 && summaries.errors.length === 0 ? mark : undefined;
        }
      } catch (err) {
        if (!ctx.db.open || signal.aborted) break;
        report(`extraction: ${(err as Error).message}`);
      }
      await pause(options.intervalMs ?? 2_000, signal);
    }
  })();
  return {
    done,
    async stop() {
      controller.abort();
      await done;
    },
  };
}

/** Changes when anyone writes: another connection's commits, or this connection's changes. */
function writeMark(ctx: BrainContext): string {
  const version = ctx.db.pragma('data_version', { simple: true }) as number;
  const own = ctx.q.get<[], { n: number }>(`SELECT total_changes() AS n`).get()!.n;
  return `${version}:${own}`;
}
