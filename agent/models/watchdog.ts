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
