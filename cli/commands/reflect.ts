import type { Command } from 'commander';
import { BrainError, type KnowledgeChange, type ReflectResult } from '../../src/index.js';
import { bold, cyan, dim, oneLine, printJson, println, shortTime } from '../output.js';
import { withBrain, type GlobalOptions } from '../run.js';

type Globals = () => GlobalOptions;

export function registerReflect(program: Command, globals: Globals): void {
  program
    .command('reflect')
    .description(
      'go over what was learned since last time: merge what says the same, raise what keeps coming back, let stale entries lapse, propose follow-ups',
    )
    .option('--dry-run', 'say what would change; change nothing')
    .option('--changes', "list reflection's changes instead, newest first")
    .option('--undo <n>', 'put back what change n altered')
    .action((opts: { dryRun?: boolean; changes?: boolean; undo?: string }) =>
      withBrain(
        globals(),
        ({ brain, json }) => {
          if (opts.undo !== undefined) {
            if (!/^\d+$/.test(opts.undo))
              throw new BrainError('INVALID_INPUT', '--undo: must be a change number');
            const change = brain.knowledge.undoChange(Number(opts.undo));
            if (json) return printJson(change);
            return println(`undid ${formatChange(change)}`);
          }
          if (opts.changes) {
            const changes = brain.knowledge.knowledgeChanges();
            if (json) return printJson({ changes });
            if (changes.length === 0) return println(dim('no changes yet'));
            for (const c of changes) println(formatChange(c));
            return;
          }
          const result = brain.knowledge.reflect({ dryRun: opts.dryRun ?? false });
          if (json) return printJson(result);
          printReflection(result, opts.dryRun ?? false);
        },
        ['knowledge'],
      ),
    );
}

function formatChange(c: KnowledgeChange): string {
  const what = c.into ? `${cyan(c.stm)} into ${cyan(c.into)}` : cyan(c.stm);
  const undone = c.undone_at ? dim(` (undone ${shortTime(c.undone_at)})`) : '';
  return `${bold(String(c.id))} ${c.kind} ${what}: ${c.reason} ${dim(shortTime(c.at))}${undone}`;
}

function printReflection(r: ReflectResult, dryRun: boolean): void {
  println(
    `${dryRun ? 'would change' : 'went over'} ${r.considered} new entr${r.considered === 1 ? 'y' : 'ies'}: ${r.merged} merged, ${r.raised} raised, ${r.expired} lapsed`,
  );
  if (!dryRun)
    for (const c of r.changes.filter((c) => c.kind !== 'propose')) println(formatChange(c));
  if (r.follow_ups.length) {
    println(bold('to follow up:'));
    for (const f of r.follow_ups)
      println(
        `  ${cyan(f.stm)} ${oneLine(f.content)} ${dim(`(${f.agent}, ${shortTime(f.said_at)})`)}`,
      );
  }
  if (!dryRun && r.changes.some((c) => c.kind !== 'propose'))
    println(dim('brain reflect --undo N puts a change back'));
}
