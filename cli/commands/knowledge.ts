import type { Command } from 'commander';
import type { AtomRecord, Provenance, StmRecord } from '../../src/index.js';
import { BrainError, readTimeBound } from '../../src/index.js';
import { LINK_TYPES } from '../../src/index.js';
import {
  bold,
  cyan,
  dim,
  formatMessage,
  oneLine,
  formatAttachment,
  printJson,
  println,
  shortTime,
} from '../output.js';
import { list, readStdin, creating, withBrain, type GlobalOptions } from '../run.js';

type Globals = () => GlobalOptions;

const OCCURRED_HELP = 'when what it says happened: an ISO date/time, or e.g. "last Tuesday"';

/** An event time as typed, read in the owner's zone (the time reader loads only when given). */
async function occurred(
  value: string | undefined,
  timeZone: string | undefined,
): Promise<string | undefined> {
  if (value === undefined) return undefined;
  return readTimeBound('occurred_at', value, { now: new Date(), timeZone });
}

export function registerKnowledge(program: Command, globals: Globals): void {
  program
    .command('remember')
    .description('store a short-term memory (STM), optionally with the message it came from')
    .argument('<content>', 'what to remember; - reads it from standard input')
    .option('--categories <list>', 'comma-separated categories')
    .option('--importance <n>', 'from 1.0 to 3.0', '1')
    .option('--expires <when>', 'an ISO date/time, or a duration from now such as 30m, 12h, 7d')
    .option('--source <message-id>', 'the message this knowledge came from')
    .option('--occurred <when>', OCCURRED_HELP)
    .action(
      (
        content: string,
        opts: {
          categories?: string;
          importance: string;
          expires?: string;
          source?: string;
          occurred?: string;
        },
      ) =>
        withBrain(creating(globals()), async ({ brain, agent, json, config }) => {
          const record = brain.knowledge.remember({
            agent: agent(),
            content: content === '-' ? readStdin() : content,
            categories: list(opts.categories),
            importance: opts.importance,
            expires_at: opts.expires === undefined ? undefined : expiry(opts.expires),
            occurred_at: await occurred(opts.occurred, config.timeZone),
            source_message_id: opts.source,
          });
          if (json) return printJson(record);
          println(
            `remembered ${cyan(record.id)}${record.source_message_id ? ` from ${cyan(record.source_message_id)}` : ''}`,
          );
        }),
    );

  program
    .command('memories')
    .description('list STM entries, most important first')
    .option('--category <name>', 'only this category')
    .option('--mine', 'only the acting agent’s')
    .option('--all', 'include expired entries')
    .option('--limit <n>', 'at most this many', '50')
    .action((opts: { category?: string; mine?: boolean; all?: boolean; limit: string }) =>
      withBrain(globals(), ({ brain, agent, json }) => {
        const entries = brain.knowledge.listStm({
          category: opts.category,
          agent: opts.mine ? agent() : undefined,
          include_expired: opts.all ?? false,
          limit: opts.limit,
        });
        if (json) return printJson({ stm: entries });
        if (entries.length === 0) return println('no memories');
        for (const s of entries) println(formatStm(s));
      }),
    );

  program
    .command('atom')
    .description('record a causal atom: subject, action, outcome, consequences')
    .option('--subject <text>', 'what it is about (required)')
    .option('--action <text>', 'what was done (required)')
    .option('--outcome <text>', 'what happened (required)')
    .option('--consequences <text>', 'what follows from it')
    .option('--confidence <n>', 'from 0 to 1', '0.5')
    .option('--source <message-id>', 'the message this knowledge came from')
    .option('--occurred <when>', OCCURRED_HELP)
    .action((opts: Record<string, string | undefined>) =>
      withBrain(creating(globals()), async ({ brain, agent, json, config }) => {
        const record = brain.knowledge.createAtom({
          agent: agent(),
          subject: opts.subject as string,
          action: opts.action as string,
          outcome: opts.outcome as string,
          consequences: opts.consequences,
          confidence: opts.confidence,
          occurred_at: await occurred(opts.occurred, config.timeZone),
          source_message_id: opts.source,
        });
        if (json) return printJson(record);
        println(`recorded ${cyan(record.id)}: ${formatAtomLine(record)}`);
      }),
    );

  program
    .command('link')
    .description('link two atoms (from → to)')
    .argument('<from-atom>', 'atm_…')
    .argument('<to-atom>', 'atm_…')
    .option('--type <type>', `one of ${LINK_TYPES.join(', ')}`, 'causes')
    .option('--strength <n>', 'from 0 to 1', '0.5')
    .action((from: string, to: string, opts: { type: string; strength: string }) =>
      withBrain(globals(), ({ brain, json }) => {
        const link = brain.knowledge.link({
          from,
          to,
          type: opts.type as 'causes',
          strength: opts.strength,
        });
        if (json) return printJson(link);
        println(`${cyan(link.from)} —${link.type} (${link.strength})→ ${cyan(link.to)}`);
      }),
    );

  program
    .command('chain')
    .description('walk atom links backwards (what led here) and forwards (what follows)')
    .argument('<atom-id>', 'atm_…')
    .option('--direction <dir>', 'forward, backward or both', 'both')
    .option('--depth <n>', 'how many links to follow', '3')
    .action((atomId: string, opts: { direction: string; depth: string }) =>
      withBrain(globals(), ({ brain, json }) => {
        const chain = brain.knowledge.chain({
          atom_id: atomId,
          direction: opts.direction as 'both',
          depth: opts.depth,
        });
        if (json) return printJson(chain);
        for (const step of chain.steps.filter((s) => s.depth < 0).reverse()) {
          println(
            `${'  '.repeat(-step.depth)}${dim(`← ${step.link.type} ${step.link.strength}`)} ${cyan(step.atom.id)} ${formatAtomLine(step.atom)}`,
          );
        }
        println(`${bold('●')} ${cyan(chain.start.id)} ${formatAtomLine(chain.start)}`);
        for (const step of chain.steps.filter((s) => s.depth > 0)) {
          println(
            `${'  '.repeat(step.depth)}${dim(`→ ${step.link.type} ${step.link.strength}`)} ${cyan(step.atom.id)} ${formatAtomLine(step.atom)}`,
          );
        }
      }),
    );

  program
    .command('provenance')
    .description(
      'where knowledge came from (stm_…/atm_…), or what was learned from a message (syn_…)',
    )
    .argument('<id>', 'stm_…, atm_… or syn_…')
    .option('--context <n>', 'messages to show on each side in the thread', '2')
    .action((id: string, opts: { context: string }) =>
      withBrain(
        globals(),
        ({ brain, json }) => {
          const p = brain.knowledge.provenance({ id, context: opts.context });
          if (json) return printJson(p);
          printProvenance(p);
        },
        ['knowledge'],
      ),
    );
}

export function formatAtomLine(a: AtomRecord): string {
  const tail = a.consequences ? ` ⇒ ${a.consequences}` : '';
  return `${bold(a.subject)}: ${a.action} → ${a.outcome}${tail} ${dim(`(confidence ${a.confidence})`)}`;
}

export function formatStm(s: StmRecord): string {
  const cats = s.categories.length ? dim(` [${s.categories.join(', ')}]`) : '';
  const src = s.source_message_id ? dim(` ← ${s.source_message_id}`) : '';
  const by = s.extractor ? dim(` · ${s.extractor}`) : '';
  return `${cyan(s.id)} ${dim(`★${s.importance}`)} ${oneLine(s.content)}${cats}${src}${by}`;
}

export function printProvenance(p: Provenance): void {
  if (p.knowledge?.type === 'stm') {
    println(`${bold('memory')} ${formatStm(p.knowledge.record)}`);
    println(dim(`  by ${p.knowledge.record.agent} at ${shortTime(p.knowledge.record.created_at)}`));
  } else if (p.knowledge?.type === 'atom') {
    println(`${bold('atom')} ${cyan(p.knowledge.record.id)} ${formatAtomLine(p.knowledge.record)}`);
    println(dim(`  by ${p.knowledge.record.agent} at ${shortTime(p.knowledge.record.created_at)}`));
  }
  if (!p.message) {
    println(dim('  no source message recorded'));
    return;
  }
  const m = p.message;
  println();
  println(
    `${p.knowledge ? 'came from' : 'message'} ${cyan(m.id)}, sent by ${bold(m.from)} at ${shortTime(m.created_at)}`,
  );
  if (p.thread)
    println(
      `in thread ${cyan(p.thread.id)} “${p.thread.subject}” (${p.thread.message_count} message${p.thread.message_count === 1 ? '' : 's'})`,
    );
  println();
  for (const c of p.context) {
    const text = formatMessage(c);
    println(c.id === m.id ? text.replace(/^/gm, '▶ ') : text.replace(/^/gm, '  '));
    if (c.id === m.id) for (const f of m.attachments ?? []) println(`▶   ${formatAttachment(f)}`);
  }
  const derived = [
    ...p.derived.stm.map(formatStm),
    ...p.derived.atoms.map((a) => `${cyan(a.id)} ${formatAtomLine(a)}`),
  ];
  if (derived.length) {
    println();
    println(`learned from ${m.id}:`);
    for (const d of derived) println(`  ${d}`);
  }
}

/** "7d", "12h", "30m" from now, or an ISO date/time as given. */
export function expiry(value: string): string {
  const m = /^(\d+)\s*([mhdw])$/i.exec(value.trim());
  if (!m) return value;
  const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[
    m[2]!.toLowerCase() as 'm'
  ];
  const ms = Number(m[1]) * unit;
  if (ms <= 0) throw new BrainError('INVALID_INPUT', 'expires: must be in the future');
  return new Date(Date.now() + ms).toISOString();
}
