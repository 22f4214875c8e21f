import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';

/**
 * git under run_command runs no program a repository names. A repository's own config
 * (.git/config, its includes, a submodule's config) can name programs that read-only commands
 * start: `git diff` runs diff.external and a driver's textconv, `git status` core.fsmonitor and
 * filter.<driver>.process, `git x` an alias `!cmd`. Config given in the environment
 * (GIT_CONFIG_COUNT/KEY/VALUE) is read after every file, so it overrides them: the keys below
 * for every command, and, when a command runs git, each program-naming key the repository sets,
 * found by listing its config first (listing runs nothing).
 *
 * A key the repository sets is given the owner's value when the system or global config has one
 * (the owner's aliases, credential helpers and gpg keep working), else a neutral value. For
 * drivers no value means "none": the empty program makes git fail loudly ("cannot run"), which
 * is what a hostile repository gets; filters, whose empty value does mean none, keep working.
 * Checked with git 2.39 in test/security/git.test.ts.
 */

/** Set for every command, whatever it is and whatever any config says. */
export const GIT_FIXED: ReadonlyArray<readonly [string, string]> = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
  // No one is at a terminal: an editor would wait until the timeout. `true` keeps the message
  // git prepared, so `commit --amend` keeps its message and a commit without -m stops, empty.
  ['core.editor', 'true'],
  ['sequence.editor', 'true'],
  // No askpass program; with GIT_TERMINAL_PROMPT=0 a missing password fails at once.
  ['core.askPass', ''],
  ['protocol.ext.allow', 'never'],
];

/**
 * Set for a command that gets no network: git reaches no remote (a read-only `git show` in a
 * partial clone fetches missing objects from the repository's remote, GIT_NO_LAZY_FETCH being
 * git 2.45's), whether or not a sandbox also takes the network away.
 */
export const GIT_OFFLINE: ReadonlyArray<readonly [string, string]> = [
  ['protocol.allow', 'never'],
  ...['file', 'git', 'http', 'https', 'ssh', 'ext'].map(
    (name) => [`protocol.${name}.allow`, 'never'] as const,
  ),
];

export interface ConfigEntry {
  scope: string;
  key: string;
  value: string | undefined;
}

export type GitOverrides =
  | { refused?: undefined; pairs: Array<[string, string]>; env: Record<string, string> }
  | { refused: string };

const GPG_PROGRAMS: Record<string, string> = { openpgp: 'gpg', x509: 'gpgsm', ssh: 'ssh-keygen' };

/**
 * What a repository-set key becomes: a neutral value, `refuse` (git takes the first value, so a
 * later one cannot override it), or undefined for a key that names no program.
 */
export function neutralValue(
  key: string,
  value: string | undefined,
): string | 'refuse' | undefined {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  const section = key.slice(0, first).toLowerCase();
  const name = key.slice(last + 1).toLowerCase();
  const sub = first === last ? undefined : key.slice(first + 1, last);
  const of = (s: string, n: string, withSub: boolean) =>
    section === s && name === n && (sub !== undefined) === withSub;
  if (section === 'alias') return '';
  if (section === 'pager') return 'false';
  if (of('diff', 'external', false) || of('core', 'alternaterefscommand', false)) return '';
  if (sub !== undefined && section === 'diff' && (name === 'textconv' || name === 'command'))
    return '';
  if (sub !== undefined && section === 'filter' && ['clean', 'smudge', 'process'].includes(name))
    return '';
  if (of('merge', 'driver', true)) return '';
  if (of('core', 'sshcommand', false)) return 'ssh';
  if (of('gpg', 'program', false)) return 'gpg';
  if (of('gpg', 'program', true)) return GPG_PROGRAMS[sub!.toLowerCase()] ?? 'gpg';
  if (of('gpg', 'defaultkeycommand', true)) return 'false';
  if (of('interactive', 'difffilter', false)) return 'cat';
  if (of('imap', 'tunnel', false)) return 'false';
  if (sub !== undefined && ['difftool', 'mergetool', 'browser', 'man'].includes(section))
    return name === 'cmd' || name === 'path' ? 'false' : undefined;
  if (of('guitool', 'cmd', true)) return 'false';
  if (section === 'trailer' && sub !== undefined && (name === 'command' || name === 'cmd'))
    return 'false';
  if (section === 'sendemail') {
    if (['tocmd', 'cccmd', 'headercmd', 'sendmailcmd'].includes(name)) return 'false';
    if (name === 'smtpserver' && value?.startsWith('/')) return 'localhost';
    return undefined;
  }
  if (of('submodule', 'update', true)) return value?.startsWith('!') ? 'none' : undefined;
  if (section === 'remote' && sub !== undefined) {
    if (name === 'uploadpack' || name === 'receivepack') return 'refuse';
    // A helper name is looked up as git-remote-<name>; with a slash it is a path.
    if (name === 'vcs')
      return /^[A-Za-z0-9][A-Za-z0-9+.-]*$/.test(value ?? '') ? undefined : 'none';
  }
  return undefined;
}

const isCredentialHelper = (key: string) => /^credential\.(.+\.)?helper$/i.test(key);
const isOwners = (e: ConfigEntry) => e.scope === 'system' || e.scope === 'global';
const isRepositorys = (e: ConfigEntry) => e.scope === 'local' || e.scope === 'worktree';
const normal = (key: string) => {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  return `${key.slice(0, first).toLowerCase()}${key.slice(first, last)}.${key.slice(last + 1).toLowerCase()}`;
};

/** The overrides for config entries as `git config --list --show-scope` reports them. */
export function gitOverrides(entries: readonly ConfigEntry[]): GitOverrides {
  const pairs: Array<[string, string]> = [];
  const env: Record<string, string> = {};
  const owners = new Map<string, string>();
  for (const e of entries)
    if (isOwners(e) && e.value !== undefined) owners.set(normal(e.key), e.value);
  const done = new Set<string>();
  let helpers = false;
  for (const e of entries) {
    if (!isRepositorys(e)) continue;
    const key = normal(e.key);
    if (isCredentialHelper(key)) helpers = true;
    else if (key === 'core.gitproxy') env.GIT_PROXY_COMMAND = ''; // the environment wins there
    if (done.has(key)) continue;
    const neutral = neutralValue(e.key, e.value);
    if (neutral === undefined) continue;
    if (neutral === 'refuse')
      return {
        refused: `the repository's config sets ${e.key}, a program git would run whatever the environment says`,
      };
    done.add(key);
    pairs.push([e.key, owners.get(key) ?? neutral]);
  }
  // An empty helper empties the list collected so far; the owner's helpers then come back.
  if (helpers) {
    pairs.push(['credential.helper', '']);
    for (const e of entries)
      if (isOwners(e) && isCredentialHelper(e.key) && e.value) pairs.push([e.key, e.value]);
  }
  return { pairs, env };
}

/** `git config --null --list --show-scope`: `scope\0key\nvalue\0` (no `\n` for a bare key). */
export function parseConfigList(out: string): ConfigEntry[] {
  const parts = out.split('\0');
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const kv = parts[i + 1]!;
    const nl = kv.indexOf('\n');
    entries.push({
      scope: parts[i]!,
      key: nl < 0 ? kv : kv.slice(0, nl),
      value: nl < 0 ? undefined : kv.slice(nl + 1),
    });
  }
  return entries;
}

/** Environment entries that give git these config pairs after any it already has. */
export function withGitConfig(
  env: Record<string, string>,
  pairs: ReadonlyArray<readonly [string, string]>,
): Record<string, string> {
  const out = { ...env };
  let n = Number(out.GIT_CONFIG_COUNT ?? 0) || 0;
  for (const [key, value] of pairs) {
    out[`GIT_CONFIG_KEY_${n}`] = key;
    out[`GIT_CONFIG_VALUE_${n}`] = value;
    n++;
  }
  out.GIT_CONFIG_COUNT = String(n);
  return out;
}

/**
 * The repository options each git invocation names before its subcommand (`-C dir`,
 * `--git-dir`, `--work-tree`, `--bare`), one list per invocation; `[]` for a command that runs
 * git in some other way (`xargs git …`, a line for sh) and so in the working directory.
 */
export function gitInvocations(argvs: ReadonlyArray<readonly string[]>): string[][] {
  const found = new Map<string, string[]>();
  const add = (globals: string[]) => found.set(JSON.stringify(globals), globals);
  for (const argv of argvs) {
    if (argv[0] !== undefined && basename(argv[0]) === 'git') {
      const globals: string[] = [];
      for (let i = 1; i < argv.length; i++) {
        const a = argv[i]!;
        if (!a.startsWith('-')) break;
        const next = argv[i + 1];
        if (a === '-C' || a === '--git-dir' || a === '--work-tree') {
          if (next === undefined) break;
          globals.push(...(a === '-C' ? [a, next] : [`${a}=${next}`]));
          i++;
        } else if (/^--(git-dir|work-tree)=/.test(a) || a === '--bare') globals.push(a);
        else if (a === '-c' || a === '--config-env' || a === '--namespace' || a === '--exec-path')
          i++; // options with a value that select no repository
      }
      add(globals);
    } else if (argv.some((a) => /(^|[^\w.-])git($|[^\w.-])/.test(a))) add([]);
  }
  return [...found.values()];
}

interface Run {
  cwd: string;
  env: Record<string, string>;
  signal?: AbortSignal;
}

/** One git process to its end: whether it succeeded, what it printed, and whether git is there. */
function git(
  args: string[],
  run: Run,
): Promise<{ ok: boolean; out: string; err: string; missing?: boolean }> {
  return new Promise((resolve) => {
    const child = spawn('git', args, {
      cwd: run.cwd,
      env: run.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 10_000,
      ...(run.signal ? { signal: run.signal } : {}),
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', (e: NodeJS.ErrnoException) =>
      resolve({ ok: false, out, err: e.message, missing: e.code === 'ENOENT' }),
    );
    child.on('close', (code) => resolve({ ok: code === 0, out, err }));
  });
}

/** Submodules nest; this many repositories in all is more than any real work tree. */
const MAX_REPOSITORIES = 64;

/**
 * The overrides for the repositories these invocations use (and their checked-out submodules,
 * whose own config `git status` and `git diff --submodule` read). Refused when a config cannot
 * be read: the command would read it too, and what it names is then unknown.
 */
export async function repositoryOverrides(
  invocations: readonly string[][],
  run: Run,
): Promise<GitOverrides> {
  const entries: ConfigEntry[] = [];
  const queue = invocations.map((globals) => [...globals]);
  const seen = new Set<string>();
  while (queue.length > 0) {
    const globals = queue.shift()!;
    const id = JSON.stringify(globals);
    if (seen.has(id)) continue;
    seen.add(id);
    if (seen.size > MAX_REPOSITORIES)
      return { refused: `more than ${MAX_REPOSITORIES} nested git repositories to check` };
    const [listing, top, index] = await Promise.all([
      git([...globals, 'config', '--null', '--list', '--show-scope'], run),
      git([...globals, 'rev-parse', '--show-toplevel'], run),
      git([...globals, 'ls-files', '-z', '--stage', '--full-name', '--', ':/'], run),
    ]);
    // Without git on PATH no repository config is read by anything the command runs.
    if (listing.missing) return { pairs: [], env: {} };
    if (!listing.ok)
      return { refused: `git config could not be read: ${listing.err.trim().split('\n')[0]}` };
    entries.push(...parseConfigList(listing.out));
    const root = top.out.trim();
    if (!top.ok || !index.ok || root === '') continue;
    for (const line of index.out.split('\0')) {
      // `<mode> <object> <stage>\t<path>`: mode 160000 is a submodule.
      const tab = line.indexOf('\t');
      if (!line.startsWith('160000 ') || tab < 0) continue;
      const dir = join(root, line.slice(tab + 1));
      if (existsSync(join(dir, '.git'))) queue.push(['-C', dir]);
    }
  }
  return gitOverrides(entries);
}
