import { execFileSync, spawn } from 'node:child_process';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createListFilesTool } from '../../agent/tools/list-files.js';
import { createReadFileTool } from '../../agent/tools/read-file.js';
import type { ToolContext, ToolOutput } from '../../agent/tools/types.js';
import { createWriteFileTool } from '../../agent/tools/write-file.js';
import { systemClock, type Brain } from '../../src/index.js';
import { tally } from './tally.js';

const t = tally('files');
let root: string;
let ws: string;
let socket: Server;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'brain-security-files-')));
  ws = join(root, 'ws');
  mkdirSync(ws);
  execFileSync('mkfifo', [join(ws, 'pipe')]);
  symlinkSync(join(ws, 'pipe'), join(ws, 'link-to-pipe'));
  symlinkSync('/dev/zero', join(ws, 'zero'));
  symlinkSync('/dev/stdin', join(ws, 'stdin'));
  socket = createServer();
  await new Promise<void>((resolve) => socket.listen(join(ws, 'sock'), resolve));
  writeFileSync(join(ws, 'plain.txt'), 'plain\n');
});

afterAll(async () => {
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  rmSync(root, { recursive: true, force: true });
});

function ctx(): ToolContext {
  return {
    brain: undefined as unknown as Brain,
    agent: 'assistant',
    owner: 'owner',
    threadId: 'thr_x',
    session: 'chat/default',
    turnMessageId: 'msg_x',
    workspace: ws,
    signal: new AbortController().signal,
    clock: systemClock,
  };
}

/** The tool's answer, or a failure when it has none within `ms` (a blocked open never answers). */
async function promptly(run: Promise<ToolOutput>, ms = 3000): Promise<ToolOutput> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([run, late]);
  } finally {
    clearTimeout(timer);
  }
}

const read = createReadFileTool();
const readDev = createReadFileTool({ roots: ['/dev'] });
const write = createWriteFileTool();
const list = createListFilesTool();

describe('file tools refuse FIFOs, sockets and devices before opening them', () => {
  it.each([
    ['a FIFO in the workspace', 'pipe', /refused: pipe is a FIFO/],
    ['a symlink to that FIFO', 'link-to-pipe', /refused: pipe is a FIFO/],
    ['a unix socket', 'sock', /refused: sock is a socket/],
    ['/dev/zero through a symlink', 'zero', /refused: zero is outside/],
    ['/dev/stdin through a symlink', 'stdin', /refused|does not exist/],
  ])('read_file: %s', async (_name, path, message) => {
    const out = await promptly(read.run({ path }, ctx()));
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(message);
    t.refused();
  });

  it('read_file: /dev/zero and /dev/null where /dev is an allowed folder', async () => {
    for (const path of ['/dev/zero', '/dev/null', '/dev/urandom']) {
      const out = await promptly(readDev.run({ path }, ctx()));
      expect(out, path).toEqual({
        content: `refused: ${path} is a character device, not a file`,
        isError: true,
      });
      t.refused();
    }
  });

  it.runIf(process.getuid?.() === 0)(
    'read_file: a device node made inside the workspace',
    async () => {
      execFileSync('mknod', [join(ws, 'zero-node'), 'c', '1', '5']);
      const out = await promptly(read.run({ path: 'zero-node' }, ctx()));
      expect(out).toEqual({
        content: 'refused: zero-node is a character device, not a file',
        isError: true,
      });
      t.refused();
    },
  );

  it('write_file: leaves a FIFO and a socket in place, and no one waits', async () => {
    for (const path of ['pipe', 'sock']) {
      const out = await promptly(write.run({ path, content: 'x' }, ctx()));
      expect(out.content, path).toMatch(/^refused: .* is a (FIFO|socket), not a file$/);
      const st = lstatSync(join(ws, path));
      expect(st.isFIFO() || st.isSocket(), path).toBe(true);
      t.refused();
    }
  });

  it('list_files: lists a folder holding them, and says a FIFO is no folder', async () => {
    const out = await promptly(list.run({ path: '.' }, ctx()));
    expect(out.content).toMatch(/other\t-\tpipe\n/);
    expect(out.content).toMatch(/other\t-\tsock\n/);
    expect(await promptly(list.run({ path: 'pipe' }, ctx()))).toEqual({
      content: 'pipe is not a folder',
      isError: true,
    });
  });

  it('read_file: a FIFO swapped in for a file while it reads never blocks it', async () => {
    const dir = join(ws, 'race');
    mkdirSync(dir);
    writeFileSync(join(dir, 'target'), 'text\n');
    // Another process puts a FIFO and a file at `target` by turns, each by an atomic rename.
    const swapper = spawn(
      'sh',
      [
        '-c',
        'while :; do mkfifo p.$$ && mv -f p.$$ target; echo text > f.$$ && mv -f f.$$ target; done',
      ],
      // Its own process group, so that killing it also kills a `mv` or `mkfifo` it is running,
      // which would otherwise go on to write in the folder after the test.
      { cwd: dir, stdio: 'ignore', detached: true },
    );
    const exited = new Promise((resolve) => swapper.once('exit', resolve));
    const seen = { text: 0, fifo: 0, other: 0 };
    try {
      // Until it has read both (the swapper may start late on a busy machine), 5,000 reads at most.
      for (let i = 0; i < 5000 && (seen.fifo === 0 || seen.text === 0 || i < 300); i++) {
        const out = await promptly(read.run({ path: 'race/target' }, ctx()), 5000);
        if (out.content === '1\ttext\n') seen.text++;
        else if (/is a FIFO, not a file/.test(out.content)) seen.fifo++;
        else seen.other++;
      }
    } finally {
      process.kill(-(swapper.pid as number), 'SIGKILL');
      await exited;
    }
    expect(seen.fifo, JSON.stringify(seen)).toBeGreaterThan(0);
    expect(seen.text, JSON.stringify(seen)).toBeGreaterThan(0);
    t.refused();
  });

  it('read_file: an ordinary file still reads', async () => {
    expect(await read.run({ path: 'plain.txt' }, ctx())).toEqual({ content: '1\tplain\n' });
  });
});
