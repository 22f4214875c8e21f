import { ModelError } from './types.js';

/**
 * Gives up on a stream that has gone quiet: `onIdle` runs once when `touch` has not been called
 * for `ms`. The SDKs' own timeouts end when the response starts; a stream that stalls after that
 * would otherwise hold its turn (and its session's lease) for ever.
 */
export function idleWatchdog(ms: number, onIdle: () => void): { touch(): void; stop(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const arm = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      stopped = true;
      onIdle();
    }, ms);
  };
  arm();
  return {
    touch() {
      if (!stopped) arm();
    },
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}

/**
 * An idle watchdog for one model stream: `signal` aborts when the caller's signal does or when the
 * stream has been quiet for `ms`; `stalled` is the error to throw when it was the watchdog.
 */
export function streamWatchdog(ms: number, caller: AbortSignal | undefined) {
  const quiet = new AbortController();
  const dog = idleWatchdog(ms, () => quiet.abort());
  return {
    signal: caller ? AbortSignal.any([caller, quiet.signal]) : quiet.signal,
    touch: dog.touch,
    stop: dog.stop,
    stalled(endpoint: string): ModelError | undefined {
      if (!quiet.signal.aborted || caller?.aborted) return undefined;
      return new ModelError(
        'connection',
        `${endpoint}: the stream stalled (nothing for ${ms} ms)`,
        {
          endpoint,
        },
      );
    },
  };
}
