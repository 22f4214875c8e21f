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
 *   reader  --db P --name R --stop FILE [--idle-ms MS] [--via library|cli|mcp]
 *   crash-writer --db P --name W [--wal-limit BYTES]
 *   poller  --db P --name R        (polls and peeks without pause until killed)
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { isBrainError, openBrain, type Brain } from '../src/index.js';

const CLI = join(import.meta.dirname, '..', 'cli', 'main.js');

export type Via = 'library' | 'cli';

/** What a worker needs from the brain, whichever way it reaches it. */
interface Client {
  send(input: {
    from: string;
    to?: string | null;
    body: string;
    thread?: string;
    subject?: string;
  }): string;
  /** Read (and mark read) unread messages; their ids. */
  read(agent: string, limit: number): string[];
  poll(agent: string): number;
  pollsCheaply: boolean;
  close(): void;
}

function libraryClient(brain: Brain): Client {
  return {
    send: (input) => brain.send(input).id,
    read: (agent, limit) => brain.read({ agent, limit }).map((m) => m.id),
    poll: (agent) => brain.poll(agent).unread,
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

function emit(line: string): void {
  // process.stdout is synchronous for pipes and files on Linux: once this returns, the parent
  // can read the line even if we are killed the next instant.
  process.stdout.write(`${line}\n`);
}

/** Block the thread (workers are synchronous loops; there is nothing else to run meanwhile). */
function sleep(ms: number): void {
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const list = (s: string | undefined) => (s ? s.split(',').filter(Boolean) : []);

function main(): void {
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
  const openClient = (): Client =>
    values.via === 'cli'
      ? cliClient(db)
      : libraryClient(
          openBrain({
            dbPath: db,
            walLimitBytes: walLimit === 0 ? Number.POSITIVE_INFINITY : walLimit,
          }),
        );
  const filler = 'lorem ipsum dolor sit amet '.repeat(Math.ceil(Number(values['body-bytes']) / 27));
  const bodyOf = (i: number) =>
    `${name} message ${i} ${filler}`.slice(0, Number(values['body-bytes']));

  if (role === 'writer') {
    const client = openClient();
    const to = list(values.to);
    const threads = list(values.threads);
    const every = Number(values['broadcast-every']);
    for (let i = 0; i < Number(values.count); i++) {
      const broadcast = every > 0 && i % every === every - 1;
      // Every third message joins a shared thread, so writers contend on its counters.
      const thread = threads.length && i % 3 === 0 ? threads[i % threads.length] : undefined;
      const id = client.send({
        from: name,
        to: broadcast ? null : (to[i % to.length] ?? null),
        body: bodyOf(i),
        thread,
        subject: thread ? undefined : `${name} ${i}`,
      });
      emit(`sent ${id}`);
    }
    client.close();
  } else if (role === 'reader') {
    const client = openClient();
    const idle = Number(values['idle-ms']);
    const stop = values.stop!;
    let stopping = false;
    for (;;) {
      // Seen the stop file: one more full drain, then leave (writers have all finished).
      if (!stopping && existsSync(stop)) stopping = true;
      // In-process polling is cheap and never writes, so readers poll before they read; a CLI
      // call costs a process either way, so CLI readers just read.
      const unread = client.pollsCheaply ? client.poll(name) : 1;
      const ids = unread > 0 ? client.read(name, 50) : [];
      for (const id of ids) emit(`read ${id}`);
      if (ids.length > 0) continue;
      if (stopping) break;
      sleep(idle);
    }
    client.close();
  } else if (role === 'crash-writer') {
    const brain = openBrain({ dbPath: db, walLimitBytes: walLimit });
    for (let i = 0; ; i++) {
      const sent = brain.send({ from: name, to: 'keeper', body: bodyOf(i), subject: `crash ${i}` });
      emit(`sent ${sent.id}`);
      if (i % 3 === 0) {
        const stm = brain.remember({
          agent: name,
          content: `remembered ${i}`,
          source_message_id: sent.id,
        });
        emit(`stm ${stm.id}`);
      }
    }
  } else if (role === 'poller') {
    const brain = openBrain({ dbPath: db });
    emit('ready');
    for (;;) {
      brain.poll(name);
      brain.peek({ agent: name, limit: 5 });
    }
  } else {
    throw new Error(`unknown role ${role}`);
  }
}

try {
  main();
} catch (err) {
  const code = isBrainError(err) ? err.code : ((err as { code?: string }).code ?? 'ERROR');
  process.stderr.write(`error ${code}: ${(err as Error).message}\n`);
  process.exitCode = 1;
}
