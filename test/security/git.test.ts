import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp, type HttpFake } from '../fakes/http.js';
import { judgeCommand } from '../../agent/permissions/shell.js';
import {
  CommandRefused,
  commandEnv,
  executeCommand,
  type ExecuteResult,
} from '../../agent/tools/command-process.js';
import { createRunCommandTool, runCommandConfig } from '../../agent/tools/run-command.js';
import type { ToolContext } from '../../agent/tools/types.js';
import { systemClock, type Brain } from '../../src/index.js';
import {
  addProcessFilter,
  hostileRepo,
  hostileSubmodule,
  plainEnv,
  type HostileRepo,
} from './hostile-repo.js';
import { tally } from './tally.js';

const t = tally('git');
let root: string;
let home: string;
let server: HttpFake;
let httpUrl: string;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'brain-security-git-')));
  home = join(root, 'home');
  mkdirSync(home);
  // The owner's own config: an alias the repository redefines keeps the owner's meaning.
  writeFileSync(
    join(home, '.gitconfig'),
    '[user]\n\tname = Owner\n\temail = owner@example.com\n[alias]\n\tlg = log --oneline -1\n',
  );
  // A remote that wants a password: git asks its credential helper and askpass.
  server = await serveHttp((_req, res) => {
    res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="x"' }).end();
  });
  httpUrl = `${server.url}/x.git`;
});

afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

interface Case {
  name: string;
  /** The commands as the judge would give them; more than one (or `line`) runs under sh. */
  argvs: (repo: HostileRepo) => string[][];
  line?: (repo: HostileRepo) => string;
  /** Where it runs: the repository (default) or the folder holding it. */
  outside?: boolean;
  network?: boolean;
  build?: (dir: string) => HostileRepo;
}

const one =
  (...argv: string[]) =>
  () => [argv];
const withProcess = (dir: string) => {
  const repo = hostileRepo(dir);
  addProcessFilter(repo);
  return repo;
};

const cases: Case[] = [
  { name: 'git diff (external diff, textconv, fsmonitor)', argvs: one('git', 'diff') },
  { name: 'git diff HEAD', argvs: one('git', 'diff', 'HEAD') },
  { name: 'git log -p (textconv)', argvs: one('git', 'log', '-p') },
  { name: 'git log -p --ext-diff', argvs: one('git', 'log', '-p', '--ext-diff') },
  { name: 'git show', argvs: one('git', 'show') },
  { name: 'git blame f (textconv)', argvs: one('git', 'blame', 'f') },
  { name: 'git status (fsmonitor, clean filter)', argvs: one('git', 'status') },
  { name: 'git grep --textconv', argvs: one('git', 'grep', '--textconv', 'hello') },
  { name: 'git cat-file --textconv', argvs: one('git', 'cat-file', '--textconv', 'HEAD:f') },
  { name: 'git x (an alias that runs a program)', argvs: one('git', 'x') },
  { name: 'git inc (an alias from an included file)', argvs: one('git', 'inc') },
  { name: 'git lg (redefines the owner’s alias)', argvs: one('git', 'lg') },
  { name: 'git add f (clean filter)', argvs: one('git', 'add', 'f') },
  { name: 'git checkout -- f (smudge filter)', argvs: one('git', 'checkout', '--', 'f') },
  { name: 'git checkout -b (post-checkout hook)', argvs: one('git', 'checkout', '-q', '-b', 'o') },
  { name: 'git commit (hooks)', argvs: one('git', 'commit', '-qam', 'msg') },
  { name: 'git commit -S (gpg.program)', argvs: one('git', 'commit', '-S', '-qam', 'signed') },
  { name: 'git commit --amend (core.editor)', argvs: one('git', 'commit', '--amend', '-q') },
  { name: 'git difftool (difftool.<tool>.cmd)', argvs: one('git', 'difftool', '-y', '-t', 'evil') },
  {
    name: 'git rebase -i (sequence.editor, pre-rebase hook)',
    argvs: () => [
      ['git', 'stash', '-q'],
      ['git', 'rebase', '-i', 'HEAD~1'],
    ],
    line: () => 'git stash -q && git rebase -i HEAD~1',
  },
  {
    name: 'git merge (merge.<driver>.driver)',
    argvs: () => [
      ['git', 'stash', '-q'],
      ['git', 'checkout', '-q', '-b', 'b2', 'HEAD~1'],
      ['git', 'commit', '-qam', 'b2'],
      ['git', 'checkout', '-q', 'main'],
      ['git', 'commit', '-qam', 'mine'],
      ['git', 'merge', '-q', '--no-edit', 'b2'],
    ],
    line: () =>
      'git stash -q && git checkout -q -b b2 HEAD~1 && echo other > f && git commit -qam b2 && ' +
      'git checkout -q main && echo mine > f && git commit -qam mine && git merge -q --no-edit b2',
  },
  {
    name: 'git ls-remote over ssh (core.sshCommand)',
    argvs: one('git', 'ls-remote', 'ssh://git.example.invalid/x'),
  },
  {
    name: 'git ls-remote to a server that wants a password (credential helper, askpass)',
    argvs: () => [['git', 'ls-remote', httpUrl]],
    network: true,
  },
  {
    name: 'git -C repo diff from outside it',
    argvs: (r) => [['git', '-C', r.dir, 'diff']],
    outside: true,
  },
  {
    name: 'git --git-dir --work-tree diff from outside',
    argvs: (r) => [['git', `--git-dir=${r.dir}/.git`, '--work-tree', r.dir, 'diff']],
    outside: true,
  },
  {
    name: 'a pipeline: git diff | head',
    argvs: () => [['git', 'diff'], ['head']],
    line: () => 'git diff | head',
  },
  { name: 'git status (filter.<driver>.process)', argvs: one('git', 'status'), build: withProcess },
  { name: 'git diff (filter.<driver>.process)', argvs: one('git', 'diff'), build: withProcess },
  {
    name: 'git status (a submodule’s own config)',
    argvs: one('git', 'status'),
    build: hostileSubmodule,
  },
  {
    name: 'git diff --submodule=diff (a submodule’s own config)',
    argvs: one('git', 'diff', '--submodule=diff'),
    build: hostileSubmodule,
  },
];

function materialise(c: Case, where: string) {
  mkdirSync(where);
  const repo = (c.build ?? hostileRepo)(join(where, 'repo'));
  const argvs = c.argvs(repo);
  const line = c.line?.(repo);
  return { repo, argvs, line, cwd: c.outside ? where : repo.dir };
}

describe('git under run_command runs no program the repository names', () => {
  it.each(cases)('$name', { timeout: 30_000 }, async (c) => {
    const dir = mkdtempSync(join(root, 'case-'));
    // Control: plain git in the same repository runs the repository's program.
    const control = materialise(c, join(dir, 'control'));
    const [file, ...args] = control.line ? ['sh', '-c', control.line] : control.argvs[0]!;
    // Not spawnSync: the loopback server in this process has to answer it.
    await new Promise((resolve) =>
      execFile(file!, args, { cwd: control.cwd, env: plainEnv(home), timeout: 20_000 }, resolve),
    );
    expect(control.repo.ran().length, 'the case must be hostile').toBeGreaterThan(0);

    const run = materialise(c, join(dir, 'run'));
    const result = await executeCommand({
      command: run.line ?? run.argvs[0]!.join(' '),
      judgement: {
        verdict: 'ask',
        reason: 'approved by the owner',
        commands: run.argvs.map((argv) => ({ argv })),
        simple: run.line === undefined,
        ...(run.line ? { line: run.line } : {}),
      },
      cwd: run.cwd,
      timeoutMs: 20_000,
      signal: new AbortController().signal,
      env: commandEnv({ PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8' }),
      maxOutputChars: 10_000,
      writable: [dir],
      network: c.network ?? false,
    });
    expect(run.repo.ran(), result.output).toEqual([]);
    t.refused();
  });

  it("keeps the owner's meaning of an alias the repository redefines", async () => {
    const dir = mkdtempSync(join(root, 'owner-'));
    const repo = hostileRepo(join(dir, 'repo'));
    const result = await approved(['git', 'lg'], repo.dir, dir);
    expect(result.exitCode, result.output).toBe(0);
    expect(result.output).toMatch(/^[0-9a-f]{7,} two\n$/);
    expect(repo.ran()).toEqual([]);
    t.refused();
  });

  it('refuses a fetch whose remote names an upload-pack program (git takes the first value)', async () => {
    const dir = mkdtempSync(join(root, 'uploadpack-'));
    const other = hostileRepo(join(dir, 'other'));
    const repo = hostileRepo(join(dir, 'repo'), { remote: other.dir });
    spawnSync('git', ['config', 'remote.o.uploadpack', `touch '${repo.marks}/upload-pack'; x`], {
      cwd: repo.dir,
    });
    await expect(approved(['git', 'fetch', 'o'], repo.dir, dir)).rejects.toThrow(CommandRefused);
    expect(repo.ran()).toEqual([]);
    t.refused();
  });

  it('does not run a `git -c alias.y=!cmd y` unasked: the judge asks', async () => {
    const dir = mkdtempSync(join(root, 'dash-c-'));
    const repo = hostileRepo(join(dir, 'repo'));
    const line = `git -c 'alias.y=!touch ${repo.marks}/dash-c' y`;
    const judgement = await judgeCommand(line, { cwd: repo.dir, roots: [dir] });
    expect(judgement.verdict).toBe('ask');
    expect(repo.ran()).toEqual([]);
    t.refused();
  });

  it('lets ordinary git work through run_command in an ordinary repository, unasked', async () => {
    const dir = mkdtempSync(join(root, 'plain-'));
    const repo = join(dir, 'repo');
    mkdirSync(repo);
    const env = plainEnv(home);
    for (const args of [
      ['init', '-q', '-b', 'main'],
      ['commit', '-q', '--allow-empty', '-m', 'first'],
    ])
      spawnSync('git', args, { cwd: repo, env });
    writeFileSync(join(repo, 'README.md'), 'hi\n');
    spawnSync('git', ['add', '.'], { cwd: repo, env });
    spawnSync('git', ['commit', '-qm', 'readme'], { cwd: repo, env });
    writeFileSync(join(repo, 'README.md'), 'hi there\n');
    const tool = createRunCommandTool({
      config: runCommandConfig.parse({}),
      env: { PATH: process.env.PATH, HOME: home },
    });
    const ctx = context(repo);
    for (const command of ['git status', 'git log --oneline -5', 'git diff', 'git show --stat'])
      expect(await tool.run({ command }, ctx), command).toMatchObject({ isError: false });
    expect((await tool.run({ command: 'git diff' }, ctx)).content).toContain('+hi there');
  });
});

describe('git diffs in a hostile repository, judged safe and run unasked', () => {
  it('show the diff with the repository’s diff drivers off, and run none of its programs', async () => {
    const dir = mkdtempSync(join(root, 'drivers-'));
    const repo = hostileRepo(join(dir, 'repo'));
    const tool = createRunCommandTool({
      config: runCommandConfig.parse({}),
      env: { PATH: process.env.PATH, HOME: home },
    });
    const ctx = context(repo.dir);
    for (const command of [
      'git diff',
      'git log -p -1',
      'git show',
      'git diff HEAD~1',
      'git blame f',
    ]) {
      const judged = await judgeCommand(command, { cwd: repo.dir, roots: [dir] });
      expect(judged.verdict, command).toBe('safe');
      const out = await tool.run({ command }, ctx);
      expect(out.isError, `${command}: ${out.content}`).toBe(false);
      expect(repo.ran(), command).toEqual([]);
      t.refused();
    }
  });
});

function approved(argv: string[], cwd: string, writable: string): Promise<ExecuteResult> {
  return executeCommand({
    command: argv.join(' '),
    judgement: { verdict: 'ask', reason: 'approved', commands: [{ argv }], simple: true },
    cwd,
    timeoutMs: 20_000,
    signal: new AbortController().signal,
    env: commandEnv({ PATH: process.env.PATH, HOME: home }),
    maxOutputChars: 10_000,
    writable: [writable],
  });
}

function context(workspace: string): ToolContext {
  return {
    brain: undefined as unknown as Brain,
    agent: 'assistant',
    owner: 'owner',
    threadId: 'thr_test',
    session: 'chat/test',
    turnMessageId: 'msg_test',
    workspace,
    signal: new AbortController().signal,
    clock: systemClock,
  };
}
