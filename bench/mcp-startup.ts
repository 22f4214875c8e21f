/**
 * Time from spawning the built `brain mcp` to its answer to `initialize`, on a fresh database and
 * on an existing one. Usage: npm run build && npx tsx bench/mcp-startup.ts [runs]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const CLI = resolve(import.meta.dirname, '..', 'dist', 'bin', 'main.js');
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'b', version: '1' },
  },
});

function once(db: string): Promise<number> {
  return new Promise((done, fail) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [CLI, 'mcp', '--agent', 'bench', '--db', db], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, BRAIN_EMBEDDER: 'none' },
    });
    child.stdin.write(`${INIT}\n`);
    child.stdout.once('data', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      child.stdin.end();
      child.once('close', () => done(ms));
    });
    child.once('error', fail);
  });
}

const runs = Number(process.argv[2] ?? 20);
const dir = mkdtempSync(join(tmpdir(), 'brain-bench-'));
try {
  const fresh: number[] = [];
  for (let i = 0; i < runs; i++) fresh.push(await once(join(dir, `fresh-${i}.db`)));
  const existing: number[] = [];
  for (let i = 0; i < runs; i++) existing.push(await once(join(dir, 'fresh-0.db')));
  const stat = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!.toFixed(0);
    return `median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${s[s.length - 1]!.toFixed(0)} ms`;
  };
  console.log(`brain mcp spawn → initialize answered (${runs} runs each, node ${process.version})`);
  console.log(`  new database:      ${stat(fresh)}`);
  console.log(`  existing database: ${stat(existing)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
