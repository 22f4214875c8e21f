import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A repository whose own config names a program for every hook git has: drivers (textconv,
 * external diff, clean/smudge/process filters, merge), diff.external, core.fsmonitor, aliases
 * (one through an include), pagers, hooks, editors, ssh, credential helper, gpg, difftool. Each
 * program is one script that records its name in `marks/` (inside the repository, so a run in
 * the sandbox could write it) and otherwise behaves as git expects, so an unprotected git gets
 * far enough to run the next one.
 */
export interface HostileRepo {
  dir: string;
  marks: string;
  /** Names of the programs that ran. */
  ran(): string[];
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: plainEnv(cwd) });

/** Enough environment for git to commit, with no config but the repository's own. */
export function plainEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'a',
    GIT_AUTHOR_EMAIL: 'a@example.com',
    GIT_COMMITTER_NAME: 'a',
    GIT_COMMITTER_EMAIL: 'a@example.com',
    GIT_TERMINAL_PROMPT: '0',
  };
}

/** Build the repository in `dir` (created): two commits, then the hostile config. */
export function hostileRepo(dir: string, options: { remote?: string } = {}): HostileRepo {
  const marks = join(dir, 'marks');
  mkdirSync(marks, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'f'), 'hello\n');
  writeFileSync(join(dir, '.gitattributes'), '* diff=evil filter=evil merge=evil\n');
  writeFileSync(join(dir, '.gitignore'), 'marks/\nevil\ninc.cfg\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'one');
  writeFileSync(join(dir, 'f'), 'hello\nworld\n');
  git(dir, 'commit', '-qam', 'two');
  writeFileSync(join(dir, 'f'), 'hello\nworld\nagain\n');

  const evil = join(dir, 'evil');
  writeFileSync(
    evil,
    [
      '#!/bin/sh',
      `name=$1; shift`,
      `touch '${marks}'/"$name"`,
      'case $name in',
      '  textconv) cat "$@" ;;',
      '  clean|smudge|pager|diff-filter) cat ;;',
      'esac',
      'exit 0',
      '',
    ].join('\n'),
  );
  chmodSync(evil, 0o755);
  const hooks = join(dir, 'hooks');
  mkdirSync(hooks);
  for (const hook of ['pre-commit', 'commit-msg', 'post-commit', 'post-checkout', 'pre-rebase'])
    writeFileSync(join(hooks, hook), `#!/bin/sh\n'${evil}' hook-${hook}\n`, { mode: 0o755 });
  writeFileSync(join(dir, 'inc.cfg'), `[alias]\n\tinc = !'${evil}' alias-include\n`);
  const program = (name: string) => `'${evil}' ${name}`;
  const config: Array<[string, string]> = [
    ['diff.evil.textconv', program('textconv')],
    ['diff.evil.command', program('diff-command')],
    ['diff.external', program('diff-external')],
    ['filter.evil.clean', program('clean')],
    ['filter.evil.smudge', program('smudge')],
    ['merge.evil.driver', program('merge-driver')],
    ['core.fsmonitor', program('fsmonitor')],
    ['core.pager', program('pager')],
    ['pager.log', program('pager')],
    ['core.hooksPath', hooks],
    ['core.editor', program('editor')],
    ['sequence.editor', program('sequence-editor')],
    ['core.sshCommand', program('ssh')],
    ['core.askPass', program('askpass')],
    ['credential.helper', `!'${evil}' credential`],
    ['gpg.program', program('gpg')],
    ['alias.x', `!'${evil}' alias`],
    ['alias.lg', `!'${evil}' alias-lg`],
    ['difftool.evil.cmd', program('difftool')],
    ['interactive.diffFilter', program('diff-filter')],
    ['include.path', join(dir, 'inc.cfg')],
  ];
  if (options.remote) {
    config.push(['remote.o.url', options.remote]);
    config.push(['remote.o.fetch', '+refs/heads/*:refs/remotes/o/*']);
  }
  for (const [key, value] of config) git(dir, 'config', key, value);
  return { dir, marks, ran: () => readdirSync(marks).sort() };
}

/** The filter.<driver>.process of the repository: git stops at it, so it gets its own case. */
export function addProcessFilter(repo: HostileRepo): void {
  git(repo.dir, 'config', 'filter.evil.process', `'${join(repo.dir, 'evil')}' filter-process`);
}

/** A superproject whose checked-out submodule `s` has a hostile config of its own. */
export function hostileSubmodule(dir: string): HostileRepo {
  const inner = join(dir, 'inner');
  mkdirSync(inner, { recursive: true });
  git(inner, 'init', '-q', '-b', 'main');
  writeFileSync(join(inner, 'a'), 'a\n');
  writeFileSync(join(inner, '.gitattributes'), '* filter=sub diff=sub\n');
  git(inner, 'add', '.');
  git(inner, 'commit', '-qm', 'a');
  const top = join(dir, 'top');
  mkdirSync(top);
  git(top, 'init', '-q', '-b', 'main');
  git(top, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', inner, 's');
  git(top, 'commit', '-qm', 'with s');
  const marks = join(top, 'marks');
  mkdirSync(marks);
  const evil = join(top, 'evil');
  writeFileSync(evil, `#!/bin/sh\ntouch '${marks}'/"$1"\nexit 1\n`, { mode: 0o755 });
  const sub = join(top, '.git', 'modules', 's');
  for (const [key, value] of [
    ['filter.sub.process', `'${evil}' sub-filter`],
    ['core.fsmonitor', `'${evil}' sub-fsmonitor`],
    ['diff.sub.command', `'${evil}' sub-diff`],
  ] as const)
    spawnSync('git', ['config', '--file', join(sub, 'config'), key, value]);
  writeFileSync(join(top, 's', 'a'), 'changed\n');
  return { dir: top, marks, ran: () => readdirSync(marks).sort() };
}
