/** Terminal settings: with loadConfig and assistant-config.ts, the CLI's only reading of the environment. */
export function colorEnabled(): boolean {
  return (
    Boolean(process.stdout.isTTY) && !('NO_COLOR' in process.env) && process.env.TERM !== 'dumb'
  );
}

/** Whether BRAIN_LOG_LEVEL was set, rather than its default taken. */
export function logLevelGiven(): boolean {
  return Boolean(process.env.BRAIN_LOG_LEVEL);
}

/** BRAIN_DEBUG=1 prints stack traces of unexpected failures (never shown otherwise). */
export function debugEnabled(): boolean {
  return Boolean(process.env.BRAIN_DEBUG);
}

/**
 * How to write the command in suggestions: `npx brain` when npm started this run (`npx brain …`
 * or `npm run …` in brain's checkout, where npx finds brain's own bin), else the installed `brain`.
 */
/** The environment a measured child process runs in: this one's, without embeddings or colour. */
export function childEnv(): NodeJS.ProcessEnv {
  return { ...process.env, BRAIN_EMBEDDER: 'none', NO_COLOR: '1' };
}

export function commandName(): string {
  return process.env.npm_command ? 'npx brain' : 'brain';
}

/** Where programs are looked for (Litestream, when its package is not installed). */
export function executablePath(): string {
  return process.env.PATH ?? '';
}
