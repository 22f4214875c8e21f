/**
 * The hub under load: the built `brain serve` as its own process, and N agents in this process,
 * each a real MCP SDK client over streamable HTTP with its own bearer token, subscribed to its
 * inbox and calling tools at a mix for a while. Then: every acknowledged send is in the brain
 * exactly once. The clients share the machine's cores with the server, so the figures are
 * conservative.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ResourceUpdatedNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import BetterSqlite3 from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../src/db/package-root.js';
import { openBrain } from '../src/index.js';

export const OPS = ['send', 'poll', 'read', 'search', 'thread', 'remember'] as const;
export type Op = (typeof OPS)[number];
export type Mix = Record<Op, number>;

/** Weights: mostly messaging, some search, now and then a thread or a memory. */
export const DEFAULT_MIX: Mix = {
  send: 30,
  poll: 30,
  read: 15,
  search: 15,
  thread: 5,
  remember: 5,
};

export interface HubLoadOptions {
  /** A folder for the database and the tokens file. */
  dir: string;
  agents: number;
  seconds: number;
  mix?: Mix;
  /** Mean pause between an agent's calls (uniform 0..2×), as an agent thinking between tools. */
  thinkMs?: number;
  onProgress?: (line: string) => void;
}

export interface OpStats {
  count: number;
  p50: number;
  p99: number;
}

export interface HubLoadReport {
  agents: number;
  elapsedMs: number;
  ops: Record<Op, OpStats>;
  total: number;
  errors: number;
  errorSamples: string[];
  /** From a send's acknowledgement to the recipient's notifications/resources/updated. */
  notify: OpStats & { missed: number; early: number };
  rssKb: number;
  peakRssKb: number;
  /** The server's CPU time over the run, in seconds (user + system). */
  serverCpuS: number;
  acked: number;
  missing: number;
  doubled: number;
}

const WORDS = 'deploy cache index schema backup latency token thread review budget'.split(' ');
const MARK = 'hubmark';

interface Pending {
  ack?: number;
  /**
   * A notification for this inbox arrived while the send was in flight: it may be this send's
   * (the watcher saw the commit before the response got here) or an earlier one's. The send then
   * waits for a later notification and counts 0 ms if none comes.
   */
  early?: boolean;
}

export async function runHubLoad(options: HubLoadOptions): Promise<HubLoadReport> {
  const mix = options.mix ?? DEFAULT_MIX;
  const thinkMs = options.thinkMs ?? 100;
  const dbPath = join(options.dir, 'hub.db');
  const tokensPath = join(options.dir, 'tokens');
  const names = Array.from({ length: options.agents }, (_, i) => `agent-${i}`);
  const tokens = names.map(() => randomBytes(16).toString('hex'));
  writeFileSync(tokensPath, names.map((n, i) => `${tokens[i]} ${n}\n`).join(''), { mode: 0o600 });

  const server = await spawnServe(['--port', '0', '--tokens', tokensPath, '--db', dbPath]);
  const clients: Client[] = [];
  const latencies = Object.fromEntries(OPS.map((op) => [op, [] as number[]])) as Record<
    Op,
    number[]
  >;
  const notifyMs: number[] = [];
  const pending = names.map(() => new Set<Pending>());
  const acked: string[] = [];
  const errorSamples: string[] = [];
  let errors = 0;
  let early = 0;
  try {
    for (const [i, name] of names.entries()) {
      const client = new Client({ name: `hub-load-${name}`, version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: { Authorization: `Bearer ${tokens[i]}` } },
        }),
      );
      await client.listTools(); // as real clients do: the SDK then checks each output schema
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, () => {
        const now = performance.now();
        for (const p of pending[i]!) {
          if (p.ack === undefined) p.early = true;
          else {
            notifyMs.push(now - p.ack);
            pending[i]!.delete(p);
          }
        }
      });
      await client.subscribeResource({ uri: `brain://inbox/${name}` });
      clients.push(client);
    }
    options.onProgress?.(`${options.agents} agents connected and subscribed`);

    const weights = OPS.map((op) => mix[op]);
    const sum = weights.reduce((a, b) => a + b, 0);
    const pick = (): Op => {
      let r = Math.random() * sum;
      for (const [k, op] of OPS.entries()) if ((r -= weights[k]!) < 0) return op;
      return 'poll';
    };
    const word = () => WORDS[Math.floor(Math.random() * WORDS.length)]!;

    const cpuAtStart = cpuSeconds(server.pid);
    const started = performance.now();
    const until = started + options.seconds * 1000;
    const agent = async (i: number) => {
      const client = clients[i]!;
      const threads: string[] = [];
      let seq = 0;
      const call = async (name: string, args: Record<string, unknown>) => {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        if (result.isError) {
          const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
          throw new Error(`${name}: ${text}`);
        }
        return result.structuredContent as Record<string, unknown>;
      };
      while (performance.now() < until) {
        await new Promise((r) => setTimeout(r, Math.random() * 2 * thinkMs));
        const op = pick();
        const t0 = performance.now();
        try {
          switch (op) {
            case 'send': {
              let to = Math.floor(Math.random() * (names.length - 1));
              if (to >= i) to++;
              const args: Record<string, unknown> = {
                to: names[to],
                body: `${word()} ${word()} ${word()} ${MARK}:${i}:${seq++}`,
              };
              // Mostly in a thread the agent already takes part in, as conversations go on.
              if (threads.length && Math.random() < 0.8)
                args.thread = threads[Math.floor(Math.random() * threads.length)];
              else args.subject = `${word()} ${word()}`;
              const p: Pending = {};
              pending[to]!.add(p);
              const r = await call('send_message', args).catch((err: unknown) => {
                pending[to]!.delete(p); // no message, so no notification to wait for
                throw err;
              });
              p.ack = performance.now();
              acked.push(r.id as string);
              if (!threads.includes(r.thread_id as string)) threads.push(r.thread_id as string);
              break;
            }
            case 'poll':
              await call('poll_inbox', {});
              break;
            case 'read': {
              const r = await call('read_inbox', { limit: 20 });
              for (const m of r.messages as Array<{ thread_id: string }>)
                if (!threads.includes(m.thread_id)) threads.push(m.thread_id);
              break;
            }
            case 'search':
              await call('search', { query: `${word()} ${word()}`, limit: 10 });
              break;
            case 'thread':
              if (threads.length)
                await call('get_thread', {
                  thread_id: threads[Math.floor(Math.random() * threads.length)],
                  limit: 20,
                });
              else await call('poll_inbox', {});
              break;
            case 'remember':
              await call('remember', { content: `${word()} ${word()} noted by ${names[i]}` });
              break;
          }
          latencies[op].push(performance.now() - t0);
        } catch (err) {
          errors++;
          if (errorSamples.length < 5) errorSamples.push((err as Error).message);
        }
      }
    };
    await Promise.all(names.map((_, i) => agent(i)));
    const elapsedMs = performance.now() - started;
    const serverCpuS = cpuSeconds(server.pid) - cpuAtStart;
    // Stragglers: a notification is due within one watcher tick; give it a generous margin.
    await new Promise((r) => setTimeout(r, 500));
    let missed = 0;
    for (const set of pending)
      for (const p of set) {
        if (p.early) {
          notifyMs.push(0);
          early++;
        } else missed++;
      }

    const status = readFileSync(`/proc/${server.pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    const rssKb = kb('VmRSS');
    const peakRssKb = kb('VmHWM');

    await Promise.all(clients.map((c) => c.close()));
    clients.length = 0;
    const code = await server.stop();
    if (code !== 0) {
      errors++;
      errorSamples.push(`brain serve exited ${code}`);
    }
    const { missing, doubled } = await verify(dbPath, acked);
    const ops = Object.fromEntries(OPS.map((op) => [op, stats(latencies[op])])) as Record<
      Op,
      OpStats
    >;
    return {
      agents: options.agents,
      elapsedMs,
      ops,
      total: OPS.reduce((n, op) => n + ops[op].count, 0),
      errors,
      errorSamples,
      notify: { ...stats(notifyMs), missed, early },
      rssKb,
      peakRssKb,
      serverCpuS,
      acked: acked.length,
      missing,
      doubled,
    };
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    if (server.child.exitCode === null) await server.stop();
  }
}

/** Every acknowledged send, by its id through the library and by its marker in the rows. */
async function verify(dbPath: string, acked: string[]) {
  const brain = await openBrain({ dbPath });
  // The library has no count by body text: a read-only connection of our own counts markers.
  const raw = new BetterSqlite3(dbPath, { readonly: true });
  try {
    let missing = acked.filter((id) => !brain.messages.getMessage(id)).length;
    const bodies = raw
      .prepare(`SELECT body FROM messages WHERE body LIKE '%${MARK}:%'`)
      .pluck()
      .all() as string[];
    const byMark = new Map<string, number>();
    for (const b of bodies) {
      const mark = new RegExp(`${MARK}:\\d+:\\d+`).exec(b)?.[0] ?? '';
      byMark.set(mark, (byMark.get(mark) ?? 0) + 1);
    }
    const doubled = [...byMark.values()].filter((n) => n > 1).length;
    // A mark with no acknowledged send (the run ended mid-call) is not a loss; fewer marks is.
    if (byMark.size < acked.length) missing = Math.max(missing, acked.length - byMark.size);
    return { missing, doubled };
  } finally {
    raw.close();
    brain.close();
  }
}

/** utime + stime of a process from /proc (clock ticks, 100 a second on Linux). */
function cpuSeconds(pid: number): number {
  // The command name may hold spaces; the fields after its closing parenthesis do not.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function stats(xs: number[]): OpStats {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
  return { count: s.length, p50: at(0.5), p99: at(0.99) };
}

interface Served {
  url: string;
  pid: number;
  child: ReturnType<typeof spawn>;
  stop(): Promise<number | null>;
}

/** The built `brain serve` (`--port 0`): resolves with the URL it prints on stderr. */
function spawnServe(args: string[]): Promise<Served> {
  const cli = join(packageRoot(), 'dist', 'bin', 'main.js');
  const child = spawn(process.execPath, [cli, 'serve', ...args], {
    env: { ...process.env, BRAIN_EMBEDDER: 'none' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      // Only the start-up lines matter; the rest is drained so the pipe never fills.
      if (stderr.length > 10_000) return;
      stderr += d.toString();
      const url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
      if (url)
        resolve({
          url,
          pid: child.pid!,
          child,
          stop: () => {
            if (child.exitCode === null) child.kill('SIGTERM');
            return exited;
          },
        });
    });
    void exited.then((code) => reject(new Error(`brain serve exited ${code}: ${stderr}`)));
  });
}
