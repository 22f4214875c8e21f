import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPolicy,
  permissionsConfig,
  type CommandPlace,
} from '../../../agent/permissions/policy.js';
import { getopt, options } from '../../../agent/permissions/programs/getopt.js';
import { confinePath } from '../../../agent/permissions/programs/paths.js';
import { judgeCommand } from '../../../agent/permissions/shell.js';
import { extractCommands } from '../../../agent/permissions/shell-parse.js';
import type { Tool } from '../../../agent/tools/types.js';

const P = { cwd: process.cwd(), roots: [process.cwd()] };

const BYPASSES = [
  'ls && rm -rf x',
  'ls; id',
  'ls | sh',
  'ls || id',
  'ls & id',
  'ls & pwd',
  'pwd &',
  'ls\nid',
  'ls \\\n&& id',
  'l\\\ns',
  'ls\\\n;id',
  '$(id)',
  'ls `id`',
  'cat <(id)',
  'ls >(id)',
  'env rm x',
  'xargs rm',
  "sh -c 'id'",
  'bash -c id',
  "python3 -c 'import os'",
  'python3',
  'node -e 1',
  "perl -e 'print 1'",
  "ruby -e 'p 1'",
  'find . -delete',
  'find . -exec rm {} +',
  'find . -execdir rm {} ;',
  'find . -fprint /tmp/x',
  'git -c core.pager=id log',
  'git --exec-path=/x status',
  'git -C /etc status',
  'git log --output=/tmp/x',
  'git diff --ext-diff',
  'git branch evil',
  'git push',
  'rg --pre id x',
  'rg --pre=id x',
  'rg -z x',
  'echo x > ~/.bashrc',
  'echo x >> f',
  'echo x >| f',
  'echo x &> f',
  'cat < /etc/shadow',
  'cat <<EOF\n$(id)\nEOF',
  "cat <<'EOF'\nhi\nEOF",
  'cat <<< hi',
  '$X',
  '${X}',
  '$X -la',
  'ls $(id)',
  'ls "$(id)"',
  'echo ${IFS}',
  'echo "$HOME"',
  "echo $'\\x41'",
  'a=1 ls',
  'FOO=1 ls -la',
  '~/bin/tool',
  './x',
  '/bin/rm x',
  '/bin/ls',
  '\\rm x',
  "'rm' x",
  '"ls"',
  'r\\m x',
  'command rm x',
  'builtin echo',
  'exec ls',
  'eval ls',
  'source x',
  '. x',
  'sudo ls',
  'timeout 5 rm x',
  'nice rm x',
  'sed -i s/a/b/ f',
  'sed --in-place s/a/b/ f',
  "sed 'w /tmp/x' f",
  "sed 's/a/b/w /tmp/x' f",
  "sed 's/a/b/e' f",
  'sed -f script f',
  'awk \'BEGIN{system("id")}\'',
  "awk '{print}' f",
  'sort -o out f',
  'sort --outp=out f',
  'sort --comp=id f',
  'git log --outp=/tmp/x',
  'git diff --ext-d',
  "sed -n -e p -ne 'w evil' f",
  'sed --in-pl s/a/b/ f',
  'sed --expr=p f',
  'date --se=2020-01-01',
  'file --comp',
  'uniq in out',
  'date -s 2020-01-01',
  'printf -v x hi',
  'tree -o out',
  'ls *',
  'ls {a,b}',
  'cat ~/.ssh/id_rsa',
  '(ls)',
  '{ ls; }',
  '! ls',
  'if true; then rm x; fi',
  'for f in a; do rm $f; done',
  'f() { rm x; }; f',
  'ls |& wc',
  'ls )',
  'ls "unterminated',
  'ｌs',
  'ls -la\u00a0; id',
  'ls\rid',
  'rm -rf /',
  'id',
  '',
  '   ',
  'ls ' + 'a '.repeat(6000),
  'echo ' + '"$('.repeat(3000),
  '('.repeat(4000) + 'ls' + ')'.repeat(4000),
  'ls | '.repeat(100) + 'ls',
];

const SAFE = [
  'ls -la',
  'git status',
  'git log --oneline -5',
  'cat README.md | head -20',
  'echo "a && b"',
  "echo 'a; id'",
  'grep -rn TODO src',
  'rg -n "fn main" src',
  'find . -name "*.ts" -type f',
  'git diff HEAD~1 -- src',
  'git --no-pager log -3',
  'git branch',
  'git branch -a',
  'git diff --text --stat',
  'git log --output-indicator-new=+ -p',
  "sed -n -e '1,5p' -e 's/a/b/' f",
  'git show HEAD:README.md',
  'wc -l src/index.ts',
  'ls 2>/dev/null',
  'ls -la 2>&1 | sort | uniq -c',
  "sed -n '1,20p' README.md",
  "sed 's/a/b/g' f",
  'pwd; date',
  'ls # list',
  'jq .name package.json',
  'du -sh .',
  'echo "it\'s"',
];

describe('judgeCommand', () => {
  it.each(BYPASSES)('asks for %j rather than judging it safe', async (command) => {
    const judgement = await judgeCommand(command, P);
    expect(judgement.verdict).toBe('ask');
    expect(judgement.reason).not.toBe('');
  });

  it.each(SAFE)('judges %j safe', async (command) => {
    const judgement = await judgeCommand(command, P);
    expect(judgement, judgement.reason).toMatchObject({ verdict: 'safe' });
    expect(judgement.commands?.length).toBeGreaterThan(0);
  });

  it('reads a quoted operator as one word of one simple command', async () => {
    expect(await judgeCommand('echo "a && b" x\\ y', P)).toMatchObject({
      verdict: 'ask', // the backslash escape is not judged
    });
    expect(await judgeCommand('echo "a && b" \'c | d\' e\'f\'"g"', P)).toEqual({
      verdict: 'safe',
      reason: 'read-only: echo',
      commands: [{ argv: ['echo', 'a && b', 'c | d', 'efg'] }],
      simple: true,
      line: "echo 'a && b' 'c | d' 'efg'",
    });
  });

  it('unescapes double quotes as sh does and keeps single quotes literal', async () => {
    const judgement = await judgeCommand('echo "a\\"b\\\\c\\d" \'$HOME\'', P);
    expect(judgement.commands).toEqual([{ argv: ['echo', 'a"b\\c\\d', '$HOME'] }]);
    expect(judgement.simple).toBe(true);
  });

  it('lists every command of a pipeline or list, and a list is not simple', async () => {
    const judgement = await judgeCommand('cat README.md | head -20\ngit status && pwd', P);
    expect(judgement.commands?.map((c) => c.argv)).toEqual([
      ['cat', 'README.md'],
      ['head', '-20'],
      ['git', 'status'],
      ['pwd'],
    ]);
    expect(judgement.simple).toBe(false);
    expect((await judgeCommand('ls 2>/dev/null', P)).simple).toBe(false);
  });

  it('names the unsafe command and still gives the argv when the line was classified', async () => {
    const judgement = await judgeCommand('ls && rm -rf x', P);
    expect(judgement.reason).toContain('`rm` is not on the safe list');
    expect(judgement.commands).toEqual([{ argv: ['ls'] }, { argv: ['rm', '-rf', 'x'] }]);
  });

  it('gives no argv when the parse holds something it cannot classify', async () => {
    const judgement = await judgeCommand('ls $(id)', P);
    expect(judgement.commands).toBeUndefined();
    expect(judgement.reason).toContain('command substitution');
    expect((await judgeCommand('env rm x', P)).reason).toContain('runs another program');
    expect((await judgeCommand('FOO=1 ls', P)).reason).toContain('assignment');
    expect((await judgeCommand('ls \\\n&& id', P)).reason).toContain('not covered by the parse');
  });
});

/** The argv lists a line parses to, or undefined when it does not parse whole. */
async function argvsOf(line: string): Promise<string[][] | undefined> {
  const parsed = await extractCommands(line);
  return parsed.ok ? parsed.commands.map((c) => c.argv) : undefined;
}

const LINES = [
  ...SAFE,
  ...BYPASSES,
  "echo 'it'\\''s' \"a'b\" '' \"\" 'two\nlines' '$HOME' '\\n'",
  'ls -la 2>&1 >/dev/null | sort -r && echo done || echo failed; pwd\ndate',
  'ls &>/dev/null',
  'ls | wc -l 2>/dev/null',
  "sed -n -e '1,5p' README.md | sed 's/a/b/'",
];

describe('the judged line', () => {
  it.each(LINES)('parses back to the judged argv lists: %j', async (command) => {
    const judgement = await judgeCommand(command, P);
    if (!judgement.commands) return expect(judgement.line).toBeUndefined();
    const line = judgement.line ?? '';
    expect(await argvsOf(line)).toEqual(judgement.commands.map((c) => c.argv));
    // Judging the line again changes nothing: it is its own serialisation.
    expect((await judgeCommand(line, P)).line).toBe(line);
  });

  it('quotes every argument, keeps the operators and writes `&>` the way sh reads it', async () => {
    const judgement = await judgeCommand("echo 'it'\\''s' && ls -la &>/dev/null | wc -l\npwd", P);
    expect(judgement.line).toBe("echo 'it'\\''s' && ls '-la' >/dev/null 2>&1 | wc '-l'\npwd");
    expect(judgement.commands?.map((c) => c.argv)).toEqual([
      ['echo', "it's"],
      ['ls', '-la'],
      ['wc', '-l'],
      ['pwd'],
    ]);
  });

  it('gives sh the same words: the line prints what the argv holds', async () => {
    const judgement = await judgeCommand("printf '[%s]' \"a'b\" 'c d' '' '$X' \"e\\\\f\"", P);
    expect(judgement.verdict).toBe('safe');
    const out = execFileSync('/bin/sh', ['-c', judgement.line ?? ''], { encoding: 'utf8' });
    expect(out).toBe("[a'b][c d][][$X][e\\f]");
  });

  it('puts --sandbox first in every sed it returns, once, whatever the verdict', async () => {
    const safe = await judgeCommand("sed -n '1,5p' README.md", P);
    expect(safe.commands).toEqual([{ argv: ['sed', '--sandbox', '-n', '1,5p', 'README.md'] }]);
    const again = await judgeCommand(safe.line ?? '', P);
    expect(again.commands).toEqual(safe.commands);
    const hostile = await judgeCommand("ls | sed '1e touch x'", P);
    expect(hostile.verdict).toBe('ask');
    expect(hostile.commands?.[1]?.argv).toEqual(['sed', '--sandbox', '1e touch x']);
  });

  it('refuses what sh would read differently from bash', async () => {
    expect((await judgeCommand('ls 10>/dev/null', P)).reason).toContain('more than one digit');
    expect((await judgeCommand('done', P)).reason).toContain('shell syntax');
  });
});

describe('getopt', () => {
  const sedTable = options(['-n --quiet', '-e= --expression=', '-l= --line-length=', '-s']);

  it('gives `-l` and `--line-length` the next word, so the script is the word after', () => {
    expect(getopt(['-l', '1p', 'SCRIPT', 'f'], sedTable)).toEqual({
      options: [{ id: '-l', name: '-l', value: '1p' }],
      operands: ['SCRIPT', 'f'],
    });
    expect(getopt(['--line-length', '1p', 'S'], sedTable)).toMatchObject({ operands: ['S'] });
    expect(getopt(['--line-length=1', 'S'], sedTable)).toMatchObject({ operands: ['S'] });
    expect(getopt(['-nl1p', 'S'], sedTable)).toMatchObject({
      options: [
        { id: '-n', value: undefined },
        { id: '-l', value: '1p' },
      ],
      operands: ['S'],
    });
    expect(getopt(['-ne', 'w x', 'f'], sedTable)).toMatchObject({
      options: [{ id: '-n' }, { id: '-e', value: 'w x' }],
      operands: ['f'],
    });
  });

  it('ends options at `--` and, without permutation, at the first operand', () => {
    expect(getopt(['-n', '--', '-s', 'f'], sedTable)).toMatchObject({ operands: ['-s', 'f'] });
    expect(getopt(['p', '-s', 'f'], sedTable, false)).toMatchObject({
      options: [],
      operands: ['p', '-s', 'f'],
    });
    expect(getopt(['p', '-s', 'f'], sedTable, true)).toMatchObject({ operands: ['p', 'f'] });
  });

  it('refuses an unknown option, an abbreviation and a value given to a flag', () => {
    expect(getopt(['--expr=p'], sedTable)).toMatch(/abbreviates `--expression`/);
    expect(getopt(['--in-pl'], sedTable)).toMatch(/not on the list/);
    expect(getopt(['-i'], sedTable)).toMatch(/not on the list/);
    expect(getopt(['--quiet=1'], sedTable)).toMatch(/takes no value/);
    expect(getopt(['-e'], sedTable)).toMatch(/needs a value/);
  });
});

describe('paths', () => {
  let dir: string;
  let ws: string;
  beforeAll(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'brain-shell-paths-')));
    ws = join(dir, 'ws');
    await mkdir(join(ws, 'sub'), { recursive: true });
    await mkdir(join(dir, 'outside'));
    await writeFile(join(dir, 'outside', 'secret'), 'secret\n');
    await writeFile(join(ws, 'a.txt'), 'a\n');
    await symlink(join(dir, 'outside'), join(ws, 'out'));
    await symlink(join(dir, 'outside', 'secret'), join(ws, 'secret'));
    await symlink(join(dir, 'outside', 'nowhere'), join(ws, 'dangling'));
    await symlink(join(ws, 'sub'), join(ws, 'in'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const place = () => ({ cwd: ws, roots: [ws] });

  it.each(['a.txt', '.', 'sub', 'in', 'in/new-file', 'missing/deeper', 'sub/../a.txt', ''])(
    'accepts %j, which stays inside the workspace',
    async (path) => {
      expect(await confinePath(path, place())).toBeUndefined();
    },
  );

  it.each([
    ['..', 'outside'],
    ['out', 'outside'],
    ['out/secret', 'outside'],
    ['secret', 'outside'],
    ['in/../../outside/secret', 'outside'],
    ['out/../ws/a.txt', undefined],
    ['dangling', 'points nowhere'],
    ['missing/../../outside/secret', 'does not exist'],
    ['/proc/self/environ', '/proc'],
    ['/dev/stdin', '/dev'],
    ['/etc/passwd', 'outside'],
  ])('judges %j by where it leads', async (path, reason) => {
    const got = await confinePath(path, place());
    if (reason === undefined) expect(got).toBeUndefined();
    else expect(got).toContain(reason);
  });

  it('never reads /proc, /sys or /dev, even when a root contains them', async () => {
    for (const path of ['/proc/self/environ', '/sys/kernel', '/dev/null'])
      expect(await confinePath(path, { cwd: ws, roots: ['/'] })).toMatch(/never read/);
    expect(await confinePath('/etc/hostname', { cwd: ws, roots: ['/'] })).toBeUndefined();
  });

  it('judges a command by every file it names, through its options too', async () => {
    const judge = (c: string) => judgeCommand(c, place());
    expect((await judge('grep -rn a . && cat a.txt in/x')).verdict).toBe('safe');
    expect((await judge('cat out/secret')).reason).toContain('`out/secret` is outside');
    expect((await judge('grep -f secret a.txt')).reason).toContain('`secret` is outside');
    expect((await judge('date -f out/secret')).verdict).toBe('ask');
    expect((await judge('diff sub a.txt')).reason).toContain('is a directory');
  });

  it('refuses a command whose directory lies outside every root', async () => {
    const judgement = await judgeCommand('pwd', { cwd: join(dir, 'outside'), roots: [ws] });
    expect(judgement).toMatchObject({ verdict: 'ask', line: 'pwd' });
    expect(judgement.reason).toContain('would run where it may not read');
  });

  it('lets the policy judge a command where it runs: its cwd and the real roots', async () => {
    const places: CommandPlace[] = [];
    const policy = createPolicy({
      config: permissionsConfig.parse({}),
      judgeCommand: async (_command, place) => {
        places.push(place);
        return { verdict: 'safe', reason: 'test', commands: [{ argv: ['ls'] }], simple: true };
      },
      commandRoots: [join(dir, 'outside'), 'missing-root'],
      rules: () => [],
    });
    const runCommand: Tool = {
      name: 'run_command',
      description: '',
      schema: z.unknown(),
      readOnly: false,
      run: async () => ({ content: '' }),
    };
    const ctx = { workspace: join(ws, 'in', '..') };
    expect(await policy.decide(runCommand, { command: 'ls', cwd: 'in' }, ctx)).toMatchObject({
      decision: 'allow',
    });
    expect(places).toEqual([{ cwd: join(ws, 'sub'), roots: [ws, join(dir, 'outside')] }]);
    const refused = await policy.decide(runCommand, { command: 'ls', cwd: '/etc' }, ctx);
    expect(refused).toMatchObject({ decision: 'ask' });
    expect(refused.reason).toContain('cwd /etc is not a directory inside the workspace');
    expect(places).toHaveLength(1);
  });
});
