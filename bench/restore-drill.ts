/**
 * The restore drill: agents write to a brain through MCP and the CLI at a steady rate while
 * `brain replicate` ships it to a file:// replica; the machine is "lost" mid-run (Litestream
 * killed, the brain's files deleted); `brain restore` brings it back from the replica, and a
 * point-in-time restore takes it back to a moment of the run. Returns what each restore held
 * against what was acknowledged, so the test and `npm run reliability` judge the same figures.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StdioClientTransport,
  getDefaultEnvironment,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const CLI = resolve(import.meta.dirname, '..', 'dist', 'bin', 'main.js');

export interface DrillOptions {
  /** A fresh folder for the brain, its replica and the restores. */
  dir: string;
  /** Litestream's sync interval, as `brain replicate --sync-interval` takes it. */
  syncInterval: string;
  /** How long the writers write before the loss, in ms. */
  runMs: number;
  /** Writers through MCP (each its own `brain mcp` process) and through the CLI. */
  mcpWriters: number;
  cliWriters: number;
  /** Pause between one MCP writer's sends, in ms (the CLI's pace is a process per send). */
  pauseMs: number;
}

/** One acknowledged write: its body, when its call began and when it was acknowledged. */
export interface Write {
  body: string;
  writer: string;
  startedAt: number;
  ackedAt: number;
}

export interface RestoreCheck {
  /** `brain restore` exit code and output. */
  code: number;
  stdout: string;
  stderr: string;
  /** Bodies of the messages the restored brain holds. */
  bodies: Set<string>;
}

export interface DrillResult {
  writes: Write[];
  /** When the machine was lost (ms since 1970). */
  lostAt: number;
  /** The point in time restored to, and its restore. */
  pointInTime: number;
  latest: RestoreCheck;
  past: RestoreCheck;
  /** The most time before the loss at which an acknowledged write is missing from the restore (0 when none is). */
  rpoMs: number;
}

interface Proc {
  code: number;
  stdout: string;
  stderr: string;
}

function runCli(args: string[]): Promise<Proc> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, BRAIN_EMBEDDER: 'none', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code: code ?? -1, stdout, stderr }));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, ok: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

function hasSnapshot(replica: string): boolean {
  const generations = join(replica, 'generations');
  if (!existsSync(generations)) return false;
  return readdirSync(generations).some((g) => {
    const snapshots = join(generations, g, 'snapshots');
    return existsSync(snapshots) && readdirSync(snapshots).length > 0;
  });
}

function bodiesOf(path: string): Set<string> {
  const db = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  try {
    return new Set(db.prepare('SELECT body FROM messages').pluck().all() as string[]);
  } finally {
    db.close();
  }
}

async function mcpClient(dbPath: string, agent: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--agent', agent, '--db', dbPath],
    env: { ...getDefaultEnvironment(), BRAIN_EMBEDDER: 'none' },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'restore-drill', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

export async function runRestoreDrill(options: DrillOptions): Promise<DrillResult> {
  const primary = join(options.dir, 'primary', 'brain.db');
  const replica = join(options.dir, 'replica');
  const url = pathToFileURL(replica).href;
  mkdirSync(join(options.dir, 'primary'), { recursive: true });

  const made = await runCli([
    '--db',
    primary,
    '--agent',
    'setup',
    'send',
    '--to',
    'all',
    '--body',
    'setup',
  ]);
  if (made.code !== 0) throw new Error(`could not make the brain: ${made.stderr}`);

  const replicating: ChildProcess = spawn(
    process.execPath,
    [CLI, '--db', primary, 'replicate', '--to', url, '--sync-interval', options.syncInterval],
    // A process group of its own: brain and its Litestream die together, as with their machine.
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  const killReplication = () => {
    try {
      process.kill(-replicating.pid!, 'SIGKILL');
    } catch (err) {
      // Already gone (the group has ended): nothing left to kill.
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  };
  let replicateLog = '';
  replicating.stderr!.on('data', (d: Buffer) => (replicateLog += d.toString()));
  const clients: Client[] = [];
  let lost = false;
  try {
    await until('the first snapshot in the replica', () => hasSnapshot(replica)).catch((err) => {
      throw new Error(`${(err as Error).message}: ${replicateLog}`);
    });
    for (let i = 0; i < options.mcpWriters; i++) clients.push(await mcpClient(primary, `mcp-${i}`));

    const writes: Write[] = [];
    const mcpWriter = async (client: Client, writer: string) => {
      for (let n = 0; !lost; n++) {
        const body = `${writer} write ${n}`;
        const startedAt = Date.now();
        const result = (await client.callTool({
          name: 'send_message',
          arguments: { to: 'archive', body },
        })) as CallToolResult;
        if (result.isError) throw new Error(`${writer}: ${JSON.stringify(result.content)}`);
        writes.push({ body, writer, startedAt, ackedAt: Date.now() });
        await sleep(options.pauseMs);
      }
    };
    const cliWriter = async (writer: string) => {
      for (let n = 0; !lost; n++) {
        const body = `${writer} write ${n}`;
        const startedAt = Date.now();
        const sent = await runCli([
          '--db',
          primary,
          '--agent',
          writer,
          'send',
          '--to',
          'archive',
          '--body',
          body,
        ]);
        // A send that raced the loss may find no brain, or make a new one: only what was
        // acknowledged before the loss counts.
        if (lost) break;
        if (sent.code !== 0) throw new Error(`${writer}: ${sent.stderr}`);
        writes.push({ body, writer, startedAt, ackedAt: Date.now() });
      }
    };
    const startedAt = Date.now();
    const writers = [
      ...clients.map((c, i) => mcpWriter(c, `mcp-${i}`)),
      ...Array.from({ length: options.cliWriters }, (_, i) => cliWriter(`cli-${i}`)),
    ];
    const failed = Promise.all(writers).then(() => undefined);
    // The point in time: the middle of the run.
    await Promise.race([sleep(options.runMs / 2), failed]);
    const pointInTime = Date.now();
    await Promise.race([sleep(options.runMs - (Date.now() - startedAt)), failed]);

    // The machine is lost: Litestream dies with it, then its disk.
    const lostAt = Date.now();
    lost = true;
    killReplication();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${primary}${suffix}`, { force: true });
    await failed;
    const acknowledged = writes.filter((w) => w.ackedAt <= lostAt);

    const restore = async (target: string, extra: string[]): Promise<RestoreCheck> => {
      const run = await runCli(['--db', target, 'restore', '--from', url, ...extra]);
      return { ...run, bodies: run.code === 0 ? bodiesOf(target) : new Set() };
    };
    const latest = await restore(join(options.dir, 'restored', 'brain.db'), []);
    const past = await restore(join(options.dir, 'past', 'brain.db'), [
      '--timestamp',
      new Date(pointInTime).toISOString(),
    ]);
    const missing = acknowledged.filter((w) => !latest.bodies.has(w.body));
    const rpoMs = Math.max(0, ...missing.map((w) => lostAt - w.ackedAt));
    return { writes: acknowledged, lostAt, pointInTime, latest, past, rpoMs };
  } finally {
    // On failure too: writers stop, and nothing outlives the drill.
    lost = true;
    killReplication();
    await Promise.all(clients.map((c) => c.close()));
  }
}

/**
 * What did not hold: a restore that failed or did not pass the doctor, a write acknowledged more
 * than `boundMs` before the loss (or the point in time) missing, a write begun after the point in
 * time present.
 */
export function drillProblems(r: DrillResult, boundMs: number): string[] {
  const problems: string[] = [];
  for (const [name, check] of [
    ['latest', r.latest],
    ['point-in-time', r.past],
  ] as const) {
    if (check.code !== 0)
      problems.push(`${name} restore exited ${check.code}: ${check.stderr.trim()}`);
    else if (!check.stdout.includes('every check passes'))
      problems.push(`${name} restore did not pass the doctor:\n${check.stdout}`);
  }
  for (const w of r.writes) {
    if (w.ackedAt <= r.lostAt - boundMs && !r.latest.bodies.has(w.body))
      problems.push(
        `"${w.body}", acknowledged ${r.lostAt - w.ackedAt} ms before the loss, is not in the restore`,
      );
    if (w.ackedAt <= r.pointInTime - boundMs && !r.past.bodies.has(w.body))
      problems.push(
        `"${w.body}", acknowledged ${r.pointInTime - w.ackedAt} ms before the point in time, is not in its restore`,
      );
    if (w.startedAt > r.pointInTime && r.past.bodies.has(w.body))
      problems.push(`"${w.body}", begun after the point in time, is in its restore`);
  }
  return problems;
}
