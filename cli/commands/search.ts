import type { Command } from 'commander';
import {
  bold,
  cyan,
  dim,
  formatMessage,
  note,
  oneLine,
  printJson,
  println,
  shortTime,
} from '../output.js';
import { list, withBrain, type GlobalOptions } from '../run.js';
import { formatAtomLine, formatStm } from './knowledge.js';

type Globals = () => GlobalOptions;

export function registerSearch(program: Command, globals: Globals): void {
  program
    .command('search')
    .description('search messages and knowledge together')
    .argument('<query>', 'words, as you would say them')
    // A query may start with '-' ("-x"): unknown options are words of the query, not usage errors.
    .allowUnknownOption()
    .option('--types <list>', 'comma-separated: message, stm, atom')
    .option('--limit <n>', 'at most this many hits', '20')
    .option('--since <date>', 'only from this date/time on (ISO 8601)')
    .option('--until <date>', 'only up to this date/time (a bare date includes the day)')
    .option('--thread <id>', 'only in this thread')
    .option('--from <agent>', 'only by this agent')
    .action((query: string, opts: Record<string, string | undefined>) =>
      withBrain(globals(), ({ brain, json }) => {
        const result = brain.search({
          query,
          types: list(opts.types) as ['message'] | undefined,
          limit: opts.limit,
          since: opts.since,
          until: opts.until,
          thread: opts.thread,
          agent: opts.from,
        });
        if (json) return printJson(result);
        for (const n of result.notices) note(n);
        if (result.hits.length === 0) return println('no hits');
        for (const h of result.hits) {
          println(
            `${dim(h.type.padEnd(7))} ${cyan(h.id)}  ${dim(shortTime(h.time))}  ${bold(oneLine(h.title, 60))} ${dim(`by ${h.agent}`)}`,
          );
          println(`        ${oneLine(h.snippet, 160)}`);
        }
      }),
    );

  program
    .command('recent')
    .description('everything of the last N hours, newest first')
    .option('--hours <n>', 'how far back', '24')
    .option('--types <list>', 'comma-separated: message, stm, atom')
    .option('--limit <n>', 'at most this many', '50')
    .action((opts: { hours: string; types?: string; limit: string }) =>
      withBrain(globals(), ({ brain, json }) => {
        const items = brain.recent({
          hours: opts.hours,
          types: list(opts.types) as ['message'] | undefined,
          limit: opts.limit,
        });
        if (json) return printJson({ items });
        if (items.length === 0) return println(`nothing in the last ${opts.hours} hours`);
        for (const item of items) {
          if (item.type === 'message') println(formatMessage(item.record));
          else if (item.type === 'stm')
            println(`${dim(shortTime(item.time))} ${bold('memory')} ${formatStm(item.record)}`);
          else
            println(
              `${dim(shortTime(item.time))} ${bold('atom')} ${cyan(item.id)} ${formatAtomLine(item.record)}`,
            );
        }
      }),
    );
}
