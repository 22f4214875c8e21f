import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { LegacyReport } from '../../src/index.js';
import { BrainError } from '../../src/index.js';
import { readJsonFile } from '../../src/index.js';
import { note, printJson, println } from '../output.js';
import { creating, withBrain, type GlobalOptions } from '../run.js';

type Globals = () => GlobalOptions;

export function registerTransfer(program: Command, globals: Globals): void {
  program
    .command('export')
    .description('write everything, or one thread, as JSON')
    .option('--thread <id>', 'only this thread and the knowledge derived from it')
    .option('--format <format>', 'json (the only format)', 'json')
    .option('-o, --output <file>', 'write to a file instead of stdout')
    .action((opts: { thread?: string; format: string; output?: string }) =>
      withBrain(globals(), ({ brain }) => {
        if (opts.format !== 'json')
          throw new BrainError('INVALID_INPUT', `format: must be json (got ${opts.format})`);
        const doc = brain.transfer.export({ thread_id: opts.thread });
        const text = `${JSON.stringify(doc, null, 2)}\n`;
        if (opts.output) {
          writeFileSync(opts.output, text);
          note(
            `wrote ${doc.messages.length} messages, ${doc.stm.length} memories, ${doc.atoms.length} atoms to ${opts.output}`,
          );
        } else {
          process.stdout.write(text);
        }
      }),
    );

  program
    .command('import')
    .description('add what a brain export holds (rows already present are left as they are)')
    .argument('<file>', 'a file written by `brain export`')
    .action((file: string) =>
      withBrain(creating(globals()), ({ brain, json }) => {
        const result = brain.transfer.import(readJsonFile(file, 'file'));
        if (json) return printJson(result);
        // Only what was added: an export has sixteen sections, most of them often empty.
        const parts = Object.entries(result.imported)
          .filter(([, n]) => n > 0)
          .map(([k, n]) => `${n} ${k.replaceAll('_', ' ')}`);
        println(parts.length ? `imported ${parts.join(', ')}` : 'imported nothing new');
        const existing = Object.values(result.existing).reduce((a, b) => a + b, 0);
        if (existing) println(`${existing} rows were already present and left as they were`);
      }),
    );

  program
    .command('migrate')
    .description('import a SYNAPSE synapse.json and/or Cortex STM entries (safe to run again)')
    .option('--synapse <file>', 'a SYNAPSE synapse.json')
    .option('--cortex <path>', 'a Cortex STM JSON file, or a directory of them')
    .option('--cortex-agent <name>', 'the agent for Cortex entries that name none', 'cortex')
    .action((opts: { synapse?: string; cortex?: string; cortexAgent: string }) =>
      withBrain(creating(globals()), ({ brain, json }) => {
        if (!opts.synapse && !opts.cortex)
          throw new BrainError(
            'INVALID_INPUT',
            'synapse: give --synapse FILE and/or --cortex PATH',
          );
        const reports: LegacyReport[] = [];
        // SYNAPSE first, so Cortex entries can point at the messages it brought in.
        if (opts.synapse) reports.push(brain.transfer.migrateSynapse(opts.synapse));
        if (opts.cortex) reports.push(brain.transfer.migrateCortex(opts.cortex, opts.cortexAgent));
        if (json) return printJson({ reports });
        for (const r of reports) {
          const what = r.source === 'synapse' ? 'messages' : 'memories';
          println(
            `${r.source}: read ${r.read} records from ${r.path}: ${r.imported} ${what} imported, ${r.existing} already present, ${r.skipped.length} skipped`,
          );
          for (const s of r.skipped) {
            const where =
              `${s.file ? `${s.file} ` : ''}${s.index >= 0 ? `#${s.index}` : ''}${s.id ? ` (${s.id})` : ''}`.trim();
            println(`  skipped ${where}: ${s.reason}`);
          }
          for (const n of r.notes) println(`  note: ${n}`);
        }
      }),
    );
}
