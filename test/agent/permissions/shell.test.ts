import { describe, expect, it } from 'vitest';
import { judgeCommand } from '../../../agent/permissions/shell.js';
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
