import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, runCli, tempDir } from '../helpers.js';
import { tinyPdf } from '../src/attachments/pdf.js';

let dir: string;
let cleanup: () => void;
let env: Record<string, string>;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  env = { BRAIN_DB: join(dir, 'brain.db') };
});
afterEach(() => cleanup());

describe('brain send --attach (the built CLI)', () => {
  it('attaches files, finds the message by their words, lists them in the thread and gives the bytes back', async () => {
    writeFileSync(join(dir, 'report.md'), '# Fees\nThe pangolin clearing fee doubled.\n');
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 255]);
    writeFileSync(join(dir, 'chart.png'), bytes);
    const sent = await runCli(
      [
        '--agent',
        'analyst',
        '--json',
        'send',
        '--to',
        'reviewer',
        '--body',
        'see files',
        '--attach',
        join(dir, 'report.md'),
        join(dir, 'chart.png'),
      ],
      env,
    );
    expect(sent.stderr).not.toMatch(/Error/);
    const { id, thread_id } = JSON.parse(sent.stdout) as { id: string; thread_id: string };

    const search = await runCli(['--agent', 'reviewer', 'search', 'pangolin clearing'], env);
    expect(search.stdout).toContain(id);
    expect(search.stdout).toContain('in attachment report.md:');

    const thread = await runCli(['thread', thread_id, '--json'], env);
    const files = (
      JSON.parse(thread.stdout) as {
        messages: Array<{
          attachments: Array<{ name: string; media_type: string; sha256: string }>;
        }>;
      }
    ).messages[0]!.attachments;
    expect(files.map((f) => [f.name, f.media_type])).toEqual([
      ['report.md', 'text/markdown'],
      ['chart.png', 'image/png'],
    ]);

    const out = join(dir, 'copy.png');
    const got = await runCli(['attachment', files[1]!.sha256.slice(0, 10), '--out', out], env);
    expect(got.code).toBe(0);
    expect(readFileSync(out).equals(bytes)).toBe(true);
    const again = await runCli(['attachment', files[1]!.sha256, '--out', out], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/copy\.png exists/);
  });

  it('refuses a file over the limit with a clear error, and sends nothing', async () => {
    writeFileSync(join(dir, 'big.bin'), Buffer.alloc(2048));
    const r = await runCli(
      ['--agent', 'a', 'send', '--body', 'x', '--attach', join(dir, 'big.bin')],
      {
        ...env,
        BRAIN_MAX_ATTACHMENT_BYTES: '1024',
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'brain: INVALID_INPUT: --attach 1 (big.bin): is 2048 bytes; the limit is 1024 (BRAIN_MAX_ATTACHMENT_BYTES)\n',
    );
    const threads = await runCli(['threads', '--json'], env);
    expect(threads.stdout).not.toContain('thr_');
  });

  it("reads a PDF's text in a worker from the built bundle, run from another folder; past the time limit the PDF is sent without it and the thread says so", async () => {
    writeFileSync(join(dir, 'fast.pdf'), tinyPdf('okapi tariff schedule'));
    writeFileSync(join(dir, 'slow.pdf'), tinyPdf('narwhal invoice backlog'));
    const brain = (args: string[], extra: Record<string, string> = {}) =>
      promisify(execFile)(process.execPath, [CLI, ...args], {
        cwd: dir,
        env: { ...process.env, ...env, ...extra, BRAIN_EMBEDDER: 'none', NO_COLOR: '1' },
      });
    await brain(['--agent', 'a', 'send', '--body', 'fast', '--attach', 'fast.pdf']);
    // A limit no worker meets stands for a PDF crafted to keep pdf.js busy.
    const slow = await brain(['--agent', 'a', 'send', '--body', 'slow', '--attach', 'slow.pdf'], {
      BRAIN_ATTACHMENT_TEXT_TIMEOUT_MS: '1',
    });
    expect(slow.stdout).toMatch(/^sent \S+ in thread (thr_\S+) .*with 1 file/);
    expect((await brain(['search', 'okapi tariff'])).stdout).toContain('in attachment fast.pdf:');
    expect((await brain(['search', 'narwhal invoice'])).stdout).toBe('no hits\n');
    const thread = await brain(['thread', /(thr_\S+)/.exec(slow.stdout)![1]!]);
    expect(thread.stdout).toContain('📎 slow.pdf (application/pdf');
    expect(thread.stdout).toContain('text not extracted: took too long');
  });
});
