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

/**
 * How to write the command in suggestions: `npx brain` when npm started this run (`npx brain …`
 * or `npm run …` in brain's checkout, where npx finds brain's own bin), else the installed `brain`.
 */
export function commandName(): string {
  return process.env.npm_command ? 'npx brain' : 'brain';
}
