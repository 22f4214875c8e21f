import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPolicy, permissionsConfig } from '../../agent/permissions/policy.js';
import { judgeCommand } from '../../agent/permissions/shell.js';
import { extractCommands } from '../../agent/permissions/shell-parse.js';
import { createRunCommandTool } from '../../agent/tools/run-command.js';
import type { Tool, ToolContext } from '../../agent/tools/types.js';
import { systemClock, type Brain } from '../../src/index.js';
import { EFFECTS, HOSTILE, ORDINARY } from './shell-cases.js';
import { tally } from './tally.js';

/**
 * Commands the model could be talked into, each judged by the real shell judge in a temp
 * workspace whose neighbour holds a canary file: every one must ask. The ones with an effect
 * (a marker file written, a program run, a canary or an environment token printed) are also
 * given to the real policy and the real run_command tool, run only if the policy allows them,
 * after a control run straight under sh shows the effect does happen when nothing stands in
 * the way.
 */
const t = tally('shell');

let dir: string;
let ws: string;
let outside: string;
let canary: string;
const token = `CANARY-${randomBytes(6).toString('hex')}`;
const envToken = `ENVCANARY-${randomBytes(6).toString('hex')}`;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'brain-security-shell-')));
  ws = join(dir, 'workspace');
  outside = join(dir, 'outside');
  canary = join(outside, 'canary.txt');
  await mkdir(join(ws, 'src'), { recursive: true });
  await mkdir(join(ws, 'notes'));
  await mkdir(outside);
  await writeFile(canary, `${token}\n`);
  await writeFile(join(ws, 'a.txt'), 'x\nb\na\n');
  await writeFile(join(ws, 'b.txt'), 'x\nc\n');
  await writeFile(join(ws, 'README.md'), '# readme\nTODO: write it\n');
  await writeFile(join(ws, 'package.json'), '{"name":"demo"}\n');
  await writeFile(join(ws, 'src', 'a.ts'), 'export const a = 1; // TODO foo\n');
  await writeFile(join(ws, 'prog.jq'), '$ENV\n');
  await symlink(outside, join(ws, 'out'));
  await symlink(canary, join(ws, 'secret-link'));
  await symlink(join(outside, 'missing', 'x'), join(ws, 'dangling'));
  await symlink('/etc', join(ws, 'etc'));
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', ws, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args]);
  git('init', '-q');
  git('add', 'a.txt', 'README.md', 'src');
  git('commit', '-qm', 'one');
  await writeFile(join(ws, 'src', 'a.ts'), 'export const a = 2; // TODO foo\n');
  git('commit', '-qam', 'two');
});

afterAll(() => rm(dir, { recursive: true, force: true }));

/** `{canary}` and `{out}` name the file and the folder outside the workspace. */
const expand = (command: string) =>
  command
    .replaceAll('{canary}', canary)
    .replaceAll('{out}', outside)
    .replaceAll('{home}', homedir());

describe('hostile command lines', () => {
  it.each(HOSTILE)('asks for %j', async (command) => {
    const judgement = await judgeCommand(expand(command), { cwd: ws, roots: [ws] });
    if (judgement.verdict !== 'ask') t.through();
    expect(judgement.verdict, judgement.reason).toBe('ask');
    expect(judgement.reason).not.toBe('');
    t.refused();
  });

  it('gives, for every line it could parse, a line that parses back to the same argv lists', async () => {
    const all = [...HOSTILE, ...EFFECTS.map((e) => e.command), ...ORDINARY].map(expand);
    let parsed = 0;
    for (const command of all) {
      const judgement = await judgeCommand(command, { cwd: ws, roots: [ws] });
      if (!judgement.commands) continue;
      parsed++;
      const again = await extractCommands(judgement.line ?? '');
      expect(again.ok && again.commands.map((c) => c.argv), command).toEqual(
        judgement.commands.map((c) => c.argv),
      );
    }
    expect(parsed).toBeGreaterThan(250);
  });

  it('asks for git when the repository it would find lies outside the roots', async () => {
    const outer = join(dir, 'outer');
    const inner = join(outer, 'inner');
    const linked = join(dir, 'linked');
    await mkdir(inner, { recursive: true });
    await mkdir(linked);
    execFileSync('git', ['init', '-q', outer]);
    await writeFile(join(linked, '.git'), `gitdir: ${join(outer, '.git')}\n`);
    for (const place of [
      { cwd: inner, roots: [inner] },
      { cwd: linked, roots: [linked] },
    ]) {
      for (const command of ['git log', 'git status', 'git show HEAD']) {
        const judgement = await judgeCommand(command, place);
        if (judgement.verdict !== 'ask') t.through();
        expect(judgement.reason).toContain("git's repository");
        t.refused();
      }
    }
  });
});

describe('hostile commands with an effect, through the policy and run_command', () => {
  const env = { PATH: process.env.PATH, HOME: '/nonexistent', CANARY_VALUE: envToken };
  const tool = createRunCommandTool({ env }) as Tool;
  const policy = createPolicy({
    config: permissionsConfig.parse({}),
    judgeCommand,
    rules: () => [],
  });
  const context = (): ToolContext => ({
    // run_command never touches the brain.
    brain: undefined as unknown as Brain,
    agent: 'assistant',
    owner: 'owner',
    threadId: 'thr_test',
    session: 'chat/test',
    turnMessageId: 'msg_test',
    workspace: ws,
    signal: new AbortController().signal,
    clock: systemClock,
  });
  const leaked = (text: string) => text.includes(token) || text.includes(envToken);

  it.each(EFFECTS)(
    '$command: the effect happens under plain sh, not through the assistant',
    async (effect) => {
      const command = expand(effect.command);
      const marker = effect.marker ? join(ws, effect.marker) : undefined;
      // The control: run as the model wrote it, with nothing in the way, the effect happens.
      const control = spawnSync('/bin/sh', ['-c', command], {
        cwd: ws,
        env: env as NodeJS.ProcessEnv,
        encoding: 'utf8',
        timeout: 10_000,
      });
      if (marker) {
        expect(existsSync(marker), `control: ${control.stderr}`).toBe(true);
        await rm(marker, { force: true });
      } else {
        expect(leaked(control.stdout + control.stderr), `control: ${control.stderr}`).toBe(true);
      }

      const decided = await policy.decide(tool, { command }, { workspace: ws });
      let output = '';
      if (decided.decision === 'allow') output = (await tool.run({ command }, context())).content;
      const happened = (marker !== undefined && existsSync(marker)) || leaked(output);
      if (decided.decision !== 'ask' || happened) t.through();
      expect(decided.decision, decided.reason).toBe('ask');
      expect(happened).toBe(false);
      t.refused();
    },
  );
});

describe('whatever the judge says, sed runs sandboxed', () => {
  it.each([
    "sed '1e touch MARKER' a.txt",
    "sed 's/x/y/w MARKER' a.txt",
    "sed -n 'r {canary}' a.txt",
  ])('the line approved for %j runs without e, r or w', async (command) => {
    const judgement = await judgeCommand(expand(command), { cwd: ws, roots: [ws] });
    expect(judgement.verdict).toBe('ask');
    // As if the owner said yes: what runs is the judged line, not the model's text.
    const run = spawnSync('/bin/sh', ['-c', judgement.line ?? ''], { cwd: ws, encoding: 'utf8' });
    expect(run.stderr).toContain('disabled in sandbox mode');
    const happened = existsSync(join(ws, 'MARKER')) || run.stdout.includes(token);
    if (happened) t.through();
    expect(happened).toBe(false);
    t.refused();
  });
});

/** Programs a test machine may lack: their commands are judged, not run. */
const installed = (program: string) =>
  spawnSync('/bin/sh', ['-c', `command -v ${program}`]).status === 0;

describe('ordinary work in the workspace', () => {
  it.each(ORDINARY)('judges %j safe', async (command) => {
    const judgement = await judgeCommand(command, { cwd: ws, roots: [ws] });
    expect(judgement.verdict, judgement.reason).toBe('safe');
  });

  it('runs the ordinary commands through the policy without a question, and they work', async () => {
    const tool = createRunCommandTool({ env: { PATH: process.env.PATH, HOME: '/nonexistent' } });
    const policy = createPolicy({
      config: permissionsConfig.parse({}),
      judgeCommand,
      rules: () => [],
    });
    const ctx: ToolContext = {
      brain: undefined as unknown as Brain,
      agent: 'assistant',
      owner: 'owner',
      threadId: 'thr_test',
      session: 'chat/test',
      turnMessageId: 'msg_test',
      workspace: ws,
      signal: new AbortController().signal,
      clock: systemClock,
    };
    for (const command of ORDINARY) {
      const decided = await policy.decide(tool as Tool, { command }, { workspace: ws });
      expect(decided.decision, `${command}: ${decided.reason}`).toBe('allow');
      const program = command.split(' ')[0] ?? '';
      if (command.startsWith('tail -f') || !installed(program)) continue;
      // diff and grep -c exit 1 when the files differ or nothing matches; 2 is trouble.
      const out = await tool.run({ command }, ctx);
      expect(out.content, command).toMatch(/^exit code [01]\n/);
    }
  });
});
