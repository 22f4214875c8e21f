/**
 * One process of a stress, crash or WAL run (spawned by bench/stress.ts and the reliability
 * tests). It reports on stdout, one line per event, written as soon as the call returned:
 *   sent <message-id>     a send returned (writers)
 *   stm <stm-id>          a remember returned (crash writers)
 *   read <message-id>     a read returned this message to its agent (readers)
 *   ready                 the database is open (pollers)
 * Any failure ends the process with code 1 and `error <code>: <message>` on stderr: the parent
 * treats every such line (SQLITE_BUSY above all) as a failed run.
 *
 *   writer  --db P --name W --count N --to r1,r2 [--threads t1,t2] [--broadcast-every K] [--via library|cli|mcp]
 * (--via mcp: each worker drives its own `brain mcp --agent NAME` with the MCP SDK client.)
 *   reader  --db P --name R --stop FILE [--idle-ms MS] [--via library|cli|mcp]
 *   crash-writer --db P --name W [--wal-limit BYTES]
 *   poller  --db P --name R        (polls and peeks without pause until killed)
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { isBrainError, openBrain, type Brain } from '../src/index.js';
import { packageRoot } from '../src/db/package-root.js';

const CLI = join(packageRoot(), 'dist', 'bin', 'main.js');

export type Via = 'library' | 'cli' | 'mcp';

type MaybePromise<T> = T | Promise<T>;

/** What a worker needs from the brain, whichever way it reaches it. */
interface Client {
  send(input: {
    from: string;
    to?: string | null;
    body: string;
    thread?: string;
    subject?: string;
  }): MaybePromise<string>;
  /** Read (and mark read) unread messages; their ids. */
  read(agent: string, limit: number): MaybePromise<string[]>;
  poll(agent: string): MaybePromise<number>;
  pollsCheaply: boolean;
  close(): MaybePromise<void>;
}

function libraryClient(brain: Brain): Client {
  return {
    send: (input) => brain.messages.send(input).id,
    read: (agent, limit) => brain.messages.read({ agent, limit }).map((m) => m.id),
    poll: (agent) => brain.messages.poll(agent).unread,
    pollsCheaply: true,
    close: () => brain.close(),
  };
}

/** Each call is one `brain` process, as an agent in a shell would run it. */
function cliClient(db: string): Client {
  const run = (args: string[]): unknown => {
    const r = spawnSync(process.execPath, [CLI, ...args, '--db', db, '--json'], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    if (r.status !== 0) throw new Error(`brain ${args[0]} exited ${r.status}: ${r.stderr.trim()}`);
    return JSON.parse(r.stdout);
  };
  return {
    send: (input) => {
      const args = ['send', '--agent', input.from, '--body', input.body];
      if (input.to) args.push('--to', input.to);
      if (input.thread) args.push('--thread', input.thread);
      if (input.subject) args.push('--subject', input.subject);
      return (run(args) as { id: string }).id;
    },
    read: (agent, limit) =>
      (
        run(['read', '--agent', agent, '--limit', String(limit)]) as { messages: { id: string }[] }
      ).messages.map((m) => m.id),
    poll: (agent) => (run(['poll', '--agent', agent]) as { unread: number }).unread,
    pollsCheaply: false,
    close: () => undefined,
  };
}

/**
 * One `brain mcp` process for this agent, driven by the real MCP SDK client over stdio: the way
 * Claude Code and other agents reach the brain.
 */
async function mcpClient(db: string, agent: string): Promise<Client> {
  const [{ Client: McpClient }, { StdioClientTransport, getDefaultEnvironment }] =
    await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/stdio.js'),
    ]);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--agent', agent, '--db', db],
    env: { ...getDefaultEnvironment(), BRAIN_EMBEDDER: 'none' },
    stderr: 'inherit',
  });
  const client = new McpClient({ name: 'stress', version: '1.0.0' });
  await client.connect(transport);
  await client.listTools(); // as real clients do: the SDK then checks each tool's output schema
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) {
      const text = (result.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');
      throw new Error(`${name}: ${text}`);
    }
    return result.structuredContent as Record<string, unknown>;
  };
  return {
    send: async (input) => {
      const { from: _from, to, ...rest } = input;
      const args: Record<string, unknown> = { ...rest };
      if (to) args.to = to;
      for (const k of Object.keys(args)) if (args[k] === undefined) delete args[k];
      return (await call('send_message', args)).id as string;
    },
    read: async (_agent, limit) =>
      ((await call('read_inbox', { limit })).messages as Array<{ id: string }>).map((m) => m.id),
    poll: async () => (await call('poll_inbox', {})).unread as number,
    pollsCheaply: true,
    close: () => client.close(),
  };
}

function emit(line: string): void {
  // process.stdout is synchronous for pipes and files on Linux: once this returns, the parent
  // can read the line even if we are killed the next instant.
  process.stdout.write(`${line}\n`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const list = (s: string | undefined) => (s ? s.split(',').filter(Boolean) : []);

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      db: { type: 'string' },
      name: { type: 'string' },
      count: { type: 'string', default: '100' },
      to: { type: 'string' },
      threads: { type: 'string' },
      'broadcast-every': { type: 'string', default: '0' },
      via: { type: 'string', default: 'library' },
      stop: { type: 'string' },
      'idle-ms': { type: 'string', default: '2' },
      'wal-limit': { type: 'string' },
      'body-bytes': { type: 'string', default: '200' },
    },
  });
  const role = positionals[0];
  const db = values.db!;
  const name = values.name!;
  const walLimit = values['wal-limit'] ? Number(values['wal-limit']) : undefined;
  const openClient = async (): Promise<Client> =>
    values.via === 'cli'
      ? cliClient(db)
      : values.via === 'mcp'
        ? mcpClient(db, name)
        : libraryClient(
            await openBrain({
              dbPath: db,
              walLimitBytes: walLimit === 0 ? Number.POSITIVE_INFINITY : walLimit,
            }),
          );
  const filler = 'lorem ipsum dolor sit amet '.repeat(Math.ceil(Number(values['body-bytes']) / 27));
  const bodyOf = (i: number) =>
    `${name} message ${i} ${filler}`.slice(0, Number(values['body-bytes']));

  if (role === 'writer') {
    const client = await openClient();
    const to = list(values.to);
    const threads = list(values.threads);
    const every = Number(values['broadcast-every']);
    for (let i = 0; i < Number(values.count); i++) {
      const broadcast = every > 0 && i % every === every - 1;
      // Every third message joins a shared thread, so writers contend on its counters.
      const thread = threads.length && i % 3 === 0 ? threads[i % threads.length] : undefined;
      const id = await client.send({
        from: name,
        to: broadcast ? null : (to[i % to.length] ?? null),
        body: bodyOf(i),
        thread,
        subject: thread ? undefined : `${name} ${i}`,
      });
      emit(`sent ${id}`);
    }
    await client.close();
  } else if (role === 'reader') {
    const client = await openClient();
    const idle = Number(values['idle-ms']);
    const stop = values.stop!;
    let stopping = false;
    for (;;) {
      // Seen the stop file: one more full drain, then leave (writers have all finished).
      if (!stopping && existsSync(stop)) stopping = true;
      // In-process polling is cheap and never writes, so readers poll before they read; a CLI
      // call costs a process either way, so CLI readers just read.
      const unread = client.pollsCheaply ? await client.poll(name) : 1;
      const ids = unread > 0 ? await client.read(name, 50) : [];
      for (const id of ids) emit(`read ${id}`);
      if (ids.length > 0) continue;
      if (stopping) break;
      await sleep(idle);
    }
    await client.close();
  } else if (role === 'crash-writer') {
    const brain = await openBrain({ dbPath: db, walLimitBytes: walLimit });
    for (let i = 0; ; i++) {
      const sent = brain.messages.send({
        from: name,
        to: 'keeper',
        body: bodyOf(i),
        subject: `crash ${i}`,
      });
      emit(`sent ${sent.id}`);
      if (i % 3 === 0) {
        const stm = brain.knowledge.remember({
          agent: name,
          content: `remembered ${i}`,
          source_message_id: sent.id,
        });
        emit(`stm ${stm.id}`);
      }
    }
  } else if (role === 'poller') {
    const brain = await openBrain({ dbPath: db });
    emit('ready');
    for (;;) {
      brain.messages.poll(name);
      brain.messages.peek({ agent: name, limit: 5 });
    }
  } else {
    throw new Error(`unknown role ${role}`);
  }
}

try {
  await main();
} catch (err) {
  const code = isBrainError(err) ? err.code : ((err as { code?: string }).code ?? 'ERROR');
  process.stderr.write(`error ${code}: ${(err as Error).message}\n`);
  process.exitCode = 1;
}
