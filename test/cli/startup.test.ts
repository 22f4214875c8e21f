import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBrain } from '../../src/index.js';
import { ROOT, tempDir } from '../helpers.js';
import { loadedModules, moduleHookArgs } from './module-hooks.js';

let dir: string;
let cleanup: () => void;
beforeAll(async () => {
  ({ dir, cleanup } = tempDir('brain-startup-'));
  // The commands measured here read: they need a brain to be there.
  (await openBrain({ dbPath: join(dir, 'brain.db') })).close();
});
afterAll(() => cleanup());

/**
 * tsc's build of the command line, module by module: the shipped bundle (dist/bin) is made from it
 * and keeps its shape (each command group and section a chunk of its own), and here each module
 * shows by its own name.
 */
const CLI = join(ROOT, 'dist', 'cli', 'main.js');

/** The URLs of every module a `brain …` process loads, seen by a module resolution hook. */
function modulesLoadedBy(
  args: string[],
  cli = CLI,
): {
  status: number | null;
  stdout: string;
  stderr: string;
  urls: string[];
} {
  const hook = moduleHookArgs(dir);
  const child = spawnSync(process.execPath, [...hook, cli, ...args], {
    env: {
      ...process.env,
      BRAIN_DB: join(dir, 'brain.db'),
      BRAIN_EMBEDDER: 'none',
      NO_COLOR: '1',
    },
    encoding: 'utf8',
  });
  const urls = loadedModules(child.stderr);
  return { status: child.status, stdout: child.stdout, stderr: child.stderr, urls };
}

/** What no one-shot command of messages, knowledge or search loads: zod, the SDKs, the embedders. */
const heavy = /\/node_modules\/(zod|@modelcontextprotocol|ollama)\//;

/** sqlite-vec: loaded only for sections that use the vector index (search, embed, upkeep, transfer). */
const vectors = /\/node_modules\/sqlite-vec\//;

/** A section's code, by the folder it lives in. */
const sectionCode = (folder: string) => new RegExp(`/dist/src/${folder}/section\\.js$`);
const dist = (path: string) => pathToFileURL(join(ROOT, 'dist', path)).href;

describe('the shipped bundle', () => {
  it('polls, searches and sends without zod or the SDKs, each in a few files', () => {
    const bundle = join(ROOT, 'dist', 'bin', 'main.js');
    const runs = {
      poll: modulesLoadedBy(['poll', '--agent', 'nova', '--json'], bundle),
      search: modulesLoadedBy(['search', 'lantern', '--json'], bundle),
      send: modulesLoadedBy(['send', '--agent', 'ada', '--to', 'bob', '--body', 'x'], bundle),
    };
    expect(JSON.parse(runs.poll.stdout)).toEqual({ agent: 'nova', unread: 0 });
    for (const [name, run] of Object.entries(runs)) {
      expect({ name, status: run.status }).toEqual({ name, status: 0 });
      expect({ name, heavy: run.urls.filter((url) => heavy.test(url)) }).toEqual({
        name,
        heavy: [],
      });
      // Our code from the bundle only: nothing of tsc's module-by-module build.
      expect(run.urls.filter((url) => url.includes('/dist/src/'))).toEqual([]);
      expect(run.urls.some((url) => url.includes('/dist/bin/chunks/'))).toBe(true);
    }
    // What every command loads is in main.js; poll adds its command group, its section and the
    // few modules they share, not a file per module of the library's face.
    const ours = [...new Set(runs.poll.urls.filter((url) => url.includes('/dist/bin/')))];
    expect(ours.length, ours.join('\n')).toBeLessThanOrEqual(12);
  });
});

describe('brain poll as a process', () => {
  it("opens the messages section only, through the library's face, without zod or the SDKs", () => {
    const run = modulesLoadedBy(['poll', '--agent', 'nova', '--json']);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ agent: 'nova', unread: 0 });
    // The hook saw the modules poll does need, so the empty lists below mean something.
    expect(run.urls).toContain(dist('src/index.js'));
    expect(run.urls).toContain(dist('src/messaging/section.js'));
    const otherSections = ['knowledge', 'search', 'embed', 'maintenance', 'assistant', 'transfer'];
    expect(run.urls.filter((url) => otherSections.some((f) => sectionCode(f).test(url)))).toEqual(
      [],
    );
    // Of search, only what the face offers without the ranking (its input's declaration, the
    // fusion constants) and the context's cache holders; of the others, nothing but the small
    // modules of the face (a file reader, the evaluation's lazy door).
    const code =
      /\/dist\/src\/(search|transfer|eval|embed|maintenance)\/(?!(input|fusion|rank-caches|json-file|run|embedder|create|offline-hash|kinds|worker|idle-timer|storage-stats)\.js$)/;
    expect(run.urls.filter((url) => code.test(url))).toEqual([]);
    expect(run.urls.filter((url) => heavy.test(url))).toEqual([]);
    expect(run.urls.filter((url) => vectors.test(url))).toEqual([]);
  });

  it('prints its version without loading any command', () => {
    const run = modulesLoadedBy(['--version']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(run.urls.filter((url) => url.includes('/dist/cli/commands/'))).toEqual([]);
    expect(run.urls.filter((url) => vectors.test(url))).toEqual([]);
  });

  it('opens every section for the commands that need them', () => {
    const run = modulesLoadedBy(['export', '--json']);
    expect(run.status).toBe(0);
    expect(run.urls).toContain(dist('src/transfer/section.js'));
    expect(run.urls).toContain(dist('src/assistant/section.js'));
    expect(run.urls.filter((url) => /\/node_modules\/zod\//.test(url)).length).toBeGreaterThan(0);
  });
});

describe('brain search as a process, on a brain without vectors', () => {
  it('loads neither embedder nor the maintenance modules', () => {
    const run = modulesLoadedBy(['search', 'lantern', '--json']);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ hits: [] });
    expect(run.urls).toContain(pathToFileURL(join(ROOT, 'dist', 'src', 'embed', 'create.js')).href);
    const unneeded =
      /\/node_modules\/ollama\/|\/dist\/src\/embed\/(ollama|offline)\.js$|\/dist\/src\/maintenance\/(doctor|backup)\.js$/;
    expect(run.urls.filter((url) => unneeded.test(url))).toEqual([]);
  });

  it('answers plain words without loading zod or the assistant, transfer or upkeep code', () => {
    const run = modulesLoadedBy(['search', 'lantern', '--limit', '5', '--json']);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ hits: [], retrievers: ['fts'] });
    expect(run.urls).toContain(dist('src/search/section.js'));
    const unneeded = ['maintenance', 'assistant', 'transfer'];
    expect(run.urls.filter((url) => unneeded.some((f) => sectionCode(f).test(url)))).toEqual([]);
    expect(run.urls.filter((url) => heavy.test(url))).toEqual([]);
  });

  it('searches with filters, and refuses a bad one in words naming the field, without zod', () => {
    const filtered = modulesLoadedBy(['search', 'lantern', '--since', '2020-01-01', '--json']);
    expect(filtered.status).toBe(0);
    expect(JSON.parse(filtered.stdout)).toMatchObject({ hits: [] });
    const bad = modulesLoadedBy(['search', 'lantern', '--since', 'whenever', '--json']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/since: must be an ISO 8601 date or time/);
    // Words that cannot start a time leave the time reader unloaded.
    expect(bad.urls.filter((url) => /\/node_modules\/chrono-node\//.test(url))).toEqual([]);
    for (const run of [filtered, bad])
      expect(run.urls.filter((url) => heavy.test(url))).toEqual([]);
  });
});

describe('the other one-shot commands as processes', () => {
  it('send, read, inbox, thread and provenance answer without loading zod or the whole library', () => {
    const sent = modulesLoadedBy([
      'send',
      '--agent',
      'nova',
      '--to',
      'atlas',
      '--body',
      'hi',
      '--json',
    ]);
    expect(sent.status).toBe(0);
    const message = (JSON.parse(sent.stdout) as { id: string; thread_id: string }).id;
    const thread = (JSON.parse(sent.stdout) as { thread_id: string }).thread_id;
    expect(sent.urls).toContain(dist('src/messaging/section.js'));

    const runs = {
      sent,
      inbox: modulesLoadedBy(['inbox', '--agent', 'atlas', '--json']),
      read: modulesLoadedBy(['read', '--agent', 'atlas', '--limit', '10', '--json']),
      thread: modulesLoadedBy(['thread', thread, '--limit', '20', '--json']),
      provenance: modulesLoadedBy(['provenance', message, '--context', '1', '--json']),
    };
    expect(JSON.parse(runs.read.stdout)).toMatchObject({ messages: [{ id: message }] });
    expect(JSON.parse(runs.thread.stdout)).toMatchObject({
      messages: [{ id: message, receipts: [{ agent: 'atlas' }] }],
    });
    expect(JSON.parse(runs.provenance.stdout)).toMatchObject({ message: { id: message } });
    for (const [name, run] of Object.entries(runs)) {
      expect({ name, status: run.status }).toEqual({ name, status: 0 });
      expect({ name, heavy: run.urls.filter((url) => heavy.test(url)) }).toEqual({
        name,
        heavy: [],
      });
      // Messages and knowledge never touch the vector index.
      expect({ name, vectors: run.urls.filter((url) => vectors.test(url)) }).toEqual({
        name,
        vectors: [],
      });
    }
  });

  it('refuse bad input in words naming the field, without loading zod', () => {
    const thread = modulesLoadedBy(['thread', 'thr_nope']);
    expect(thread.status).toBe(2);
    expect(thread.stderr).toMatch(/thread_id: must be a thread id/);
    const read = modulesLoadedBy(['read', '--agent', 'atlas', '--limit', '0']);
    expect(read.status).toBe(2);
    expect(read.stderr).toMatch(/limit: must be a whole number from 1 to 1000/);
    for (const run of [thread, read]) expect(run.urls.filter((url) => heavy.test(url))).toEqual([]);
  });
});
