import { describe, expect, it } from 'vitest';
import {
  gitInvocations,
  gitOverrides,
  parseConfigList,
  withGitConfig,
  type ConfigEntry,
} from '../../../agent/tools/git-config.js';

const entry = (scope: string, key: string, value?: string): ConfigEntry => ({ scope, key, value });

describe('the git config a command runs with', () => {
  it('reads `git config --null --list --show-scope`, bare keys included', () => {
    const out = 'global\0user.name\nOwner\0local\0diff.My Driver.textconv\nx\ny\0local\0x.bare\0';
    expect(parseConfigList(out)).toEqual([
      entry('global', 'user.name', 'Owner'),
      entry('local', 'diff.My Driver.textconv', 'x\ny'),
      entry('local', 'x.bare'),
    ]);
  });

  it("neutralises the repository's programs and gives back the owner's own values", () => {
    const result = gitOverrides([
      entry('global', 'alias.lg', 'log --oneline'),
      entry('global', 'credential.helper', 'store'),
      entry('system', 'credential.https://example.com.helper', 'cache'),
      entry('local', 'alias.lg', '!evil'),
      entry('local', 'alias.x', '!evil'),
      entry('local', 'diff.evil.textconv', 'evil'),
      entry('local', 'filter.evil.process', 'evil'),
      entry('worktree', 'gpg.ssh.program', 'evil'),
      entry('local', 'credential.https://example.com.helper', '!evil'),
      entry('local', 'core.gitProxy', 'evil'),
      entry('local', 'user.name', 'Someone'),
      entry('local', 'submodule.s.update', 'rebase'),
      entry('command', 'alias.y', '!evil'),
    ]);
    expect(result).toEqual({
      pairs: [
        ['alias.lg', 'log --oneline'],
        ['alias.x', ''],
        ['diff.evil.textconv', ''],
        ['filter.evil.process', ''],
        ['gpg.ssh.program', 'ssh-keygen'],
        ['credential.helper', ''],
        ['credential.helper', 'store'],
        ['credential.https://example.com.helper', 'cache'],
      ],
      env: { GIT_PROXY_COMMAND: '' },
    });
  });

  it('refuses a remote program, which git takes from the first value it reads', () => {
    expect(gitOverrides([entry('local', 'remote.o.uploadpack', 'evil')])).toEqual({
      refused: expect.stringContaining('remote.o.uploadpack'),
    });
  });

  it('finds the repositories each command line names for git', () => {
    expect(
      gitInvocations([
        ['git', 'status'],
        ['/usr/bin/git', '-C', 'sub', '-c', 'a.b=c', '--git-dir', 'x/.git', 'log'],
        ['xargs', 'git', 'show'],
        ['sh', '-c', 'cd x && git diff'],
        ['grep', 'legit'],
        ['cat', 'git.txt'],
      ]),
    ).toEqual([[], ['-C', 'sub', '--git-dir=x/.git']]);
  });

  it('appends its pairs after the ones the environment already has', () => {
    expect(withGitConfig({ GIT_CONFIG_COUNT: '1', A: 'b' }, [['core.pager', 'cat']])).toEqual({
      A: 'b',
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_1: 'core.pager',
      GIT_CONFIG_VALUE_1: 'cat',
    });
  });
});
