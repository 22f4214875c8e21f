#!/usr/bin/env node
import { handleError } from './handle-error.js';
import { createProgram } from './program.js';

async function main(): Promise<void> {
  // `brain … | head` closes the pipe early: that is the reader's choice, not an error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  const program = await createProgram(process.argv.slice(2));
  await program.parseAsync(process.argv);
}

// Not awaited at the top level: the bundle's chunks import shared code from this module, and a
// module still evaluating (as a top-level await keeps it) would leave those imports waiting.
main().catch((err: unknown) => {
  process.exitCode = handleError(err);
});
