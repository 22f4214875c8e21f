import type { Command } from 'commander';
import { BrainError } from '../../src/index.js';
import { PRIORITIES } from '../../src/index.js';
import { bold, cyan, dim, formatMessage, printJson, println, shortTime } from '../output.js';
import { list, readStdin, creating, withBrain, type GlobalOptions } from '../run.js';

type Globals = () => GlobalOptions;

export function registerSend(program: Command, globals: Globals): void {
  program
    .command('send')
    .description('send a message to one agent (--to) or to every other agent (no --to)')
    .option('--to <agent>', 'recipient; leave out to broadcast')
    .option('--subject <text>', 'subject; a new thread takes it')
    .option('--body <text>', 'the message (required); - reads it from standard input')
    .option(
      '--thread <id>',
      'continue this thread (default: a new thread, or the thread of --reply-to)',
    )
    .option('--reply-to <id>', 'the message this answers')
    .option('--priority <level>', `one of ${PRIORITIES.join(', ')}`, 'normal')
    .option('--metadata <json>', 'a JSON object stored with the message')
    .option('--tags <list>', 'comma-separated tags for the thread')
    .option(
      '--attach <file...>',
      'attach files (repeatable; each up to BRAIN_MAX_ATTACHMENT_BYTES)',
    )
    .action((opts: Record<string, string | undefined> & { attach?: string[] }) =>
      withBrain(
        creating(globals()),
        async ({ brain, agent, json }) => {
          const files = (opts.attach ?? []).map((path, i) =>
            brain.messages.readAttachmentFile(path, { field: `--attach ${i + 1}` }),
          );
          const result = await brain.messages.sendFiles(
            {
              from: agent(),
              to: opts.to,
              subject: opts.subject,
              body: opts.body === '-' ? readStdin() : (opts.body as string),
              thread: opts.thread,
              reply_to: opts.replyTo,
              priority: opts.priority as 'normal',
              metadata:
                opts.metadata === undefined
                  ? undefined
                  : parseJsonOption('metadata', opts.metadata),
              tags: list(opts.tags),
            },
            files,
          );
          if (json)
            return printJson({
              id: result.id,
              thread_id: result.thread_id,
              created_at: result.created_at,
              recipients: result.recipients,
            });
          const attached = files.length
            ? ` with ${files.length} file${files.length > 1 ? 's' : ''}`
            : '';
          println(
            `sent ${cyan(result.id)} in thread ${cyan(result.thread_id)} to ${opts.to ?? `everyone (${result.recipients} agents)`}${attached}`,
          );
        },
        ['messages'],
      ),
    );
}

export function registerInbox(program: Command, globals: Globals): void {
  program
    .command('poll')
    .description('how many unread messages the agent has')
    .action(() =>
      withBrain(
        globals(),
        ({ brain, agent, json }) => {
          const result = brain.messages.poll(agent());
          if (json) return printJson(result);
          println(`${result.agent}: ${result.unread} unread`);
        },
        ['messages'],
      ),
    );

  for (const [name, description, mark] of [
    ['inbox', 'show unread messages without marking them read', false],
    ['read', 'show unread messages and mark them read', true],
  ] as const) {
    program
      .command(name)
      .description(description)
      .option('--limit <n>', 'at most this many', '50')
      .action((opts: { limit: string }) =>
        withBrain(
          globals(),
          ({ brain, agent, json }) => {
            const input = { agent: agent(), limit: opts.limit };
            const messages = mark ? brain.messages.read(input) : brain.messages.peek(input);
            if (json) return printJson({ messages });
            if (messages.length === 0) return println('no unread messages');
            println(messages.map((m) => formatMessage(m, { full: true })).join('\n\n'));
            if (!mark) println(dim(`\n${messages.length} unread; \`brain read\` marks them read`));
          },
          ['messages'],
        ),
      );
  }

  program
    .command('ack')
    .description('acknowledge a message (idempotent); also marks it read')
    .argument('<message-id>', 'the message (syn_…)')
    .option('--body <text>', 'a short answer kept with the ack')
    .action((messageId: string, opts: { body?: string }) =>
      withBrain(globals(), ({ brain, agent, json }) => {
        const ack = brain.messages.ack({ message_id: messageId, agent: agent(), body: opts.body });
        if (json) return printJson(ack);
        println(
          ack.created
            ? `acknowledged ${cyan(ack.message_id)}`
            : `already acknowledged ${cyan(ack.message_id)} at ${shortTime(ack.created_at)}`,
        );
      }),
    );
}

export function registerThreads(program: Command, globals: Globals): void {
  program
    .command('threads')
    .description('list threads, most recently active first')
    .option('--status <status>', 'active, archived or closed')
    .option('--tag <tag>', 'only threads with this tag')
    .option('--limit <n>', 'at most this many', '50')
    .action((opts: { status?: string; tag?: string; limit: string }) =>
      withBrain(globals(), ({ brain, json }) => {
        const threads = brain.messages.threads({
          status: opts.status as 'active' | undefined,
          tag: opts.tag,
          limit: opts.limit,
        });
        if (json) return printJson({ threads });
        if (threads.length === 0) return println('no threads');
        for (const t of threads) {
          const tags = t.tags.length ? ` ${dim(t.tags.map((x) => `#${x}`).join(' '))}` : '';
          println(
            `${cyan(t.id)}  ${dim(shortTime(t.last_message_at))}  ${t.status.padEnd(8)} ${String(t.message_count).padStart(4)} msgs  ${bold(t.subject)}${tags}`,
          );
        }
      }),
    );

  program
    .command('thread')
    .description("a thread's messages in order, with receipts and acks")
    .argument('<thread-id>', 'the thread (thr_…)')
    .option('--limit <n>', 'messages per page', '50')
    .option('--offset <n>', 'skip this many messages', '0')
    .action((threadId: string, opts: { limit: string; offset: string }) =>
      withBrain(
        globals(),
        ({ brain, json }) => {
          const history = brain.messages.thread({
            thread_id: threadId,
            limit: opts.limit,
            offset: opts.offset,
          });
          const summary = brain.knowledge.threadSummary(history.thread.id);
          if (json) return printJson({ summary: summary ?? null, ...history });
          const t = history.thread;
          println(
            `${bold(t.subject)}  ${cyan(t.id)}  ${t.status}, ${t.message_count} messages${t.tags.length ? `, tags ${t.tags.join(', ')}` : ''}`,
          );
          if (summary) {
            println();
            println(`${dim('summary:')} ${summary.content}`);
            println(
              dim(
                `  (${summary.messages} of ${t.message_count} messages, up to ${summary.last_message_id}, ${shortTime(summary.created_at)})`,
              ),
            );
          }
          for (const m of history.messages) {
            println();
            println(formatMessage(m, { full: true }));
            const read = m.receipts.filter((r) => r.read_at).map((r) => r.agent);
            const unread = m.receipts.filter((r) => !r.read_at).map((r) => r.agent);
            const parts = [
              read.length ? `read by ${read.join(', ')}` : '',
              unread.length ? `unread by ${unread.join(', ')}` : '',
            ].filter(Boolean);
            if (parts.length) println(dim(`  ${parts.join('; ')}`));
            for (const a of m.acks)
              println(dim(`  ✓ ${a.agent} acked${a.body ? `: ${a.body}` : ''}`));
          }
          if (history.next_offset !== null)
            println(dim(`\nmore: brain thread ${t.id} --offset ${history.next_offset}`));
        },
        ['messages', 'knowledge'],
      ),
    );

  for (const [name, status, verb] of [
    ['archive', 'archived', 'archived'],
    ['close', 'closed', 'closed'],
    ['reopen', 'active', 'reopened'],
  ] as const) {
    program
      .command(name)
      .description(`mark a thread ${status}${name === 'close' ? ' (no more messages)' : ''}`)
      .argument('<thread-id>', 'the thread (thr_…)')
      .action((threadId: string) =>
        withBrain(globals(), ({ brain, json }) => {
          const thread = brain.messages.setThreadStatus(threadId, status);
          if (json) return printJson(thread);
          println(`${verb} ${cyan(thread.id)} (${thread.subject})`);
        }),
      );
  }

  program
    .command('tag')
    .description('add (or with --remove, remove) tags of a thread')
    .argument('<thread-id>', 'the thread (thr_…)')
    .argument('<tags>', 'comma-separated tags')
    .option('--remove', 'remove these tags instead')
    .action((threadId: string, tags: string, opts: { remove?: boolean }) =>
      withBrain(globals(), ({ brain, json }) => {
        const names = list(tags) ?? [];
        const thread = brain.messages.tagThread({
          thread_id: threadId,
          ...(opts.remove ? { remove: names } : { add: names }),
        });
        if (json) return printJson(thread);
        println(`${cyan(thread.id)} tags: ${thread.tags.join(', ') || '(none)'}`);
      }),
    );
}

export function registerAgents(program: Command, globals: Globals): void {
  program
    .command('agents')
    .description('list the agents the brain knows')
    .action(() =>
      withBrain(globals(), ({ brain, json }) => {
        const agents = brain.messages.listAgents();
        if (json) return printJson({ agents });
        for (const a of agents) {
          const name = a.display_name ? `${bold(a.name)} (${a.display_name})` : bold(a.name);
          const caps = a.capabilities.length ? dim(`  ${a.capabilities.join(', ')}`) : '';
          println(`${name}  last seen ${shortTime(a.last_seen_at)}${caps}`);
        }
      }),
    );

  program
    .command('whoami')
    .description('register the acting agent; set its display name and capabilities')
    .option('--display-name <text>', 'a name for people')
    .option('--capabilities <list>', 'comma-separated capabilities')
    .action((opts: { displayName?: string; capabilities?: string }) =>
      withBrain(creating(globals()), ({ brain, agent, json }) => {
        const name = agent();
        brain.touchAgent(name);
        const record =
          opts.displayName !== undefined || opts.capabilities !== undefined
            ? brain.messages.updateAgent({
                name,
                display_name: opts.displayName,
                capabilities: list(opts.capabilities),
              })
            : brain.messages.getAgent(name)!;
        if (json) return printJson(record);
        println(
          `${bold(record.name)}${record.display_name ? ` (${record.display_name})` : ''}, since ${shortTime(record.created_at)}`,
        );
        if (record.capabilities.length) println(`capabilities: ${record.capabilities.join(', ')}`);
      }),
    );
}

export function parseJsonOption(name: string, value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    parsed = undefined; // reported below, with the option's name
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new BrainError(
      'INVALID_INPUT',
      `${name}: must be a JSON object, e.g. '{"key": "value"}'`,
    );
  }
  return parsed as Record<string, unknown>;
}
