import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createListFilesTool } from '../../../agent/tools/list-files.js';
import { createReadFileTool } from '../../../agent/tools/read-file.js';
import type { ToolContext } from '../../../agent/tools/types.js';
import { createWriteFileTool } from '../../../agent/tools/write-file.js';
import { systemClock } from '../../../src/index.js';
import { tempDir } from '../../helpers.js';

let tmp: ReturnType<typeof tempDir>;
let ws: string;
let outside: string;

function ctx(): ToolContext {
  return {
    brain: undefined as never,
    agent: 'assistant',
    owner: 'ann',
    threadId: 'thr_x',
    session: 'chat/default',
    turnMessageId: 'msg_x',
    workspace: ws,
    signal: new AbortController().signal,
    clock: systemClock,
  };
}

beforeEach(() => {
  tmp = tempDir();
  ws = join(tmp.dir, 'ws');
  outside = join(tmp.dir, 'outside');
  mkdirSync(join(ws, 'sub'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(ws, 'notes.txt'), 'one\ntwo\nthree\n');
  writeFileSync(join(outside, 'secret.txt'), 'the secret\n');
});
afterEach(() => tmp.cleanup());

const read = createReadFileTool();
const write = createWriteFileTool();
const list = createListFilesTool();

describe('read_file', () => {
  it('reads a workspace file with numbered lines, and a range by offset and limit', async () => {
    expect((await read.run({ path: 'notes.txt' }, ctx())).content).toBe(
      '1\tone\n2\ttwo\n3\tthree\n',
    );
    const part = await read.run({ path: 'notes.txt', offset: 2, limit: 1 }, ctx());
    expect(part.content).toContain('2\ttwo\n');
    expect(part.content).not.toContain('three');
    expect(part.content).toContain('continue with offset 3');
  });

  it('refuses a path climbing out with .., and an absolute path elsewhere', async () => {
    const up = await read.run({ path: '../outside/secret.txt' }, ctx());
    expect(up.isError).toBe(true);
    expect(up.content).toMatch(/refused/);
    const abs = await read.run({ path: join(outside, 'secret.txt') }, ctx());
    expect(abs.isError).toBe(true);
    expect(abs.content).not.toContain('the secret');
    const etc = await read.run({ path: '/etc/passwd' }, ctx());
    expect(etc.content).toMatch(/refused/);
  });

  it('refuses a file symlink and a folder symlink pointing out, and a link to /etc/passwd', async () => {
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'link.txt'));
    symlinkSync(outside, join(ws, 'out'));
    symlinkSync('/etc/passwd', join(ws, 'passwd'));
    for (const path of ['link.txt', 'out/secret.txt', 'passwd']) {
      const r = await read.run({ path }, ctx());
      expect(r.isError, path).toBe(true);
      expect(r.content, path).toMatch(/refused/);
      expect(r.content).not.toContain('root:');
    }
  });

  it('follows a symlink that stays inside the workspace', async () => {
    symlinkSync(join(ws, 'notes.txt'), join(ws, 'sub', 'again.txt'));
    expect((await read.run({ path: 'sub/again.txt' }, ctx())).content).toContain('1\tone');
  });

  it('reads from an extra root when configured, and only then', async () => {
    const path = join(outside, 'secret.txt');
    expect((await read.run({ path }, ctx())).isError).toBe(true);
    const wider = createReadFileTool({ roots: [outside] });
    expect((await wider.run({ path }, ctx())).content).toContain('the secret');
  });

  it('describes a binary file by type and size instead of dumping it', async () => {
    writeFileSync(join(ws, 'blob.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01, 0xff, 0xfe]));
    writeFileSync(join(ws, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const r = await read.run({ path: 'blob.bin' }, ctx());
    expect(r.content).toBe('blob.bin: binary file, 6 bytes; not shown');
    expect((await read.run({ path: 'latin1.txt' }, ctx())).content).toMatch(/binary file, 5 bytes/);
  });

  it('stops at 256 KiB and says where to continue', async () => {
    const line = 'x'.repeat(1023);
    writeFileSync(join(ws, 'big.txt'), `${line}\n`.repeat(400));
    const r = await read.run({ path: 'big.txt' }, ctx());
    expect(Buffer.byteLength(r.content)).toBeLessThanOrEqual(256 * 1024 + 100);
    expect(r.content).toMatch(/of 400; continue with offset \d+/);
  });
});

describe('write_file', () => {
  it('writes the whole content atomically and leaves no temp file', async () => {
    const body = 'line\n'.repeat(50_000);
    const r = await write.run({ path: 'sub/out.txt', content: body }, ctx());
    expect(r.isError).toBeUndefined();
    expect(readFileSync(join(ws, 'sub', 'out.txt'), 'utf8')).toBe(body);
    await write.run({ path: 'sub/out.txt', content: 'replaced' }, ctx());
    expect(readFileSync(join(ws, 'sub', 'out.txt'), 'utf8')).toBe('replaced');
    expect(readdirSync(join(ws, 'sub'))).toEqual(['out.txt']);
  });

  it('refuses to write through .., an absolute path elsewhere, or a symlinked folder pointing out', async () => {
    symlinkSync(outside, join(ws, 'out'));
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'link.txt'));
    for (const path of [
      '../outside/new.txt',
      join(outside, 'new.txt'),
      'out/new.txt',
      'link.txt',
    ]) {
      const r = await write.run({ path, content: 'pwned' }, ctx());
      expect(r.isError, path).toBe(true);
      expect(r.content, path).toMatch(/refused/);
    }
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('the secret\n');
  });

  it('refuses content over 1 MiB by its schema', () => {
    const parsed = write.schema.safeParse({ path: 'a', content: 'x'.repeat(1024 * 1024 + 1) });
    expect(parsed.success).toBe(false);
  });
});

describe('list_files', () => {
  it('lists entries with type and size, and marks a link pointing out', async () => {
    symlinkSync(outside, join(ws, 'out'));
    const r = await list.run({ path: '.' }, ctx());
    expect(r.content).toContain('file\t14\tnotes.txt');
    expect(r.content).toContain('dir\t-\tsub/');
    expect(r.content).toContain('link\t-\tout (points outside)');
  });

  it('refuses to list a folder outside, directly or through a symlink', async () => {
    symlinkSync(outside, join(ws, 'out'));
    for (const path of ['..', outside, 'out', '/etc']) {
      const r = await list.run({ path }, ctx());
      expect(r.isError, path).toBe(true);
      expect(r.content).not.toContain('secret.txt');
    }
  });
});
