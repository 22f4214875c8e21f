import { CommanderError } from 'commander';
import { isBrainError } from '../src/index.js';
import { debugEnabled } from './config.js';

/** Every failure ends here: `code: message` on stderr, exit 2 for usage errors, 1 otherwise. No stack traces. */
export function handleError(err: unknown): number {
  if (err instanceof CommanderError) {
    // Commander has already printed its message (and help hint) to stderr.
    if (
      err.code === 'commander.helpDisplayed' ||
      err.code === 'commander.version' ||
      err.code === 'commander.help'
    )
      return 0;
    return 2;
  }
  if (isBrainError(err)) {
    process.stderr.write(`brain: ${err.code}: ${err.message}\n`);
    return err.code === 'INVALID_INPUT' ? 2 : 1;
  }
  const e = err as { code?: string; message?: string };
  if (typeof e?.code === 'string' && e.code.startsWith('SQLITE_')) {
    process.stderr.write(`brain: STORAGE_FAILED: ${e.code}: ${e.message}\n`);
    return 1;
  }
  process.stderr.write(`brain: INTERNAL: ${e?.message ?? String(err)}\n`);
  if (debugEnabled()) process.stderr.write(`${(err as Error).stack}\n`);
  return 1;
}
