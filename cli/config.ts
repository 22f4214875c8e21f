/** Terminal settings: the CLI's only reading of the environment beyond loadConfig. */
export function colorEnabled(): boolean {
  return (
    Boolean(process.stdout.isTTY) && !('NO_COLOR' in process.env) && process.env.TERM !== 'dumb'
  );
}

/** BRAIN_DEBUG=1 prints stack traces of unexpected failures (never shown otherwise). */
export function debugEnabled(): boolean {
  return Boolean(process.env.BRAIN_DEBUG);
}
