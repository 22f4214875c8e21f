import type { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import { BrainError } from '../../src/index.js';
import { cyan, dim, formatBytes, printJson, println } from '../output.js';
import { withBrain, type GlobalOptions } from '../run.js';

type Globals = () => GlobalOptions;

export function registerAttachment(program: Command, globals: Globals): void {
  program
    .command('attachment')
    .description(
      'a file a message carries, by its sha256 (or 8+ of its first hex digits): what it is, or its bytes with --out',
    )
    .argument('<sha256>', 'the file (as `brain thread` lists it)')
    .option('--out <file>', 'write its bytes to this file (- for standard output)')
    .action((ref: string, opts: { out?: string }) =>
      withBrain(
        globals(),
        ({ brain, json }) => {
          const file = brain.messages.getAttachment(ref);
          if (!file) throw new BrainError('NOT_FOUND', `attachment: no file ${ref}`);
          if (opts.out !== undefined) {
            const bytes = brain.messages.attachmentBytes(file.sha256);
            if (opts.out === '-') process.stdout.write(bytes);
            else writeNew(opts.out, bytes);
            if (opts.out !== '-' && !json)
              println(`wrote ${file.name} (${formatBytes(file.size)}) to ${opts.out}`);
            if (opts.out === '-' || !json) return;
          }
          if (json) return printJson(file);
          println(`${file.name}  ${dim(`${file.media_type}, ${formatBytes(file.size)}`)}`);
          println(`  sha256 ${file.sha256}`);
          println(`  stored ${file.inline ? 'in the brain file' : 'in the folder beside it'}`);
          for (const m of file.messages) println(`  in ${cyan(m)}`);
        },
        ['messages'],
      ),
    );
}

/** Write a new file; an existing one is never overwritten by accident. */
function writeNew(path: string, bytes: Buffer): void {
  try {
    writeFileSync(path, bytes, { flag: 'wx' });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST')
      throw new BrainError('CONFLICT', `--out: ${path} exists; choose another name`);
    throw new BrainError('INVALID_INPUT', `--out: cannot write ${path} (${code ?? 'error'})`);
  }
}
