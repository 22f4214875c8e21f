/** The timer functions typing uses (the global ones; tests drive them with fake timers). */
export interface IntervalTimers {
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

/** Discord shows "typing…" for about 10 s after each call; renewing every 8 s keeps it up. */
export const TYPING_RENEW_MS = 8_000;

/**
 * Show the typing indicator now and renew it until the returned function is called. A failed
 * call is reported and the loop goes on: typing is a courtesy, never a reason to fail a turn.
 */
export function keepTyping(
  send: () => Promise<unknown>,
  onError: (err: unknown) => void,
  options: { everyMs?: number; timers?: IntervalTimers } = {},
): () => void {
  const timers = options.timers ?? (globalThis as unknown as IntervalTimers);
  const fire = () => void send().catch(onError);
  fire();
  const handle = timers.setInterval(fire, options.everyMs ?? TYPING_RENEW_MS);
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    timers.clearInterval(handle);
  };
}
