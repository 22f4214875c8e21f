import { spawnSync } from 'node:child_process';
import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/**
 * run_command's confinement: bubblewrap (`bwrap`, Debian's `bubblewrap`) puts each command in
 * its own namespaces: the whole filesystem read-only, the folders it may work in read-write, a
 * private /proc (so /proc/<pid>/environ of the service is not there to read), /tmp and /run
 * empty (no one's sockets or temp files), no network unless the call may have it, no
 * capabilities, a new session (no typing into a terminal). Without a usable bwrap commands run
 * as before and only the judge's allowlist holds; `sandboxStatus()` says which.
 */
export interface SandboxStatus {
  inUse: boolean;
  /** One line for `brain agent --check` and `brain doctor`, after "sandbox: ". */
  detail: string;
}

export interface Sandbox extends SandboxStatus {
  /** The bwrap that passed the probe, when in use. */
  bwrap?: string;
}

export interface ConfineOptions {
  /** Where the command starts: inside one of `writable`. */
  cwd: string;
  /** Real paths of the folders the command may write (the workspace, the root of cwd). */
  writable: readonly string[];
  /** Whether the command shares the host's network (default: its own, with only loopback). */
  network: boolean;
  /** Folders seen read-only even under /tmp or /run (the home folder, with git's config). */
  readable?: readonly string[];
}

const UNCONFINED = 'commands run unconfined, the allowlist still holds';

/** The namespaces and mounts every confined command gets, tried once before any is trusted. */
const PROBE = [
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
  '--unshare-all',
  '--cap-drop',
  'ALL',
  '--die-with-parent',
  '--new-session',
  'true',
];

/** The first executable `bwrap` on PATH, else /usr/bin/bwrap when it is there. */
export function findBwrap(path: string): string | undefined {
  const dirs = path.split(delimiter).filter((d) => isAbsolute(d));
  for (const file of [...dirs.map((d) => join(d, 'bwrap')), '/usr/bin/bwrap']) {
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // Not here (or not executable): look in the next place.
    }
  }
  return undefined;
}

/**
 * Whether `bwrap` can make the sandbox here: it may be missing, or present where namespaces are
 * not allowed (some containers, kernels with unprivileged user namespaces off).
 */
export function probeSandbox(bwrap: string | undefined): Sandbox {
  if (!bwrap) return { inUse: false, detail: `not in use (bubblewrap not found); ${UNCONFINED}` };
  const env = { PATH: '/usr/bin:/bin' };
  const version = spawnSync(bwrap, ['--version'], { encoding: 'utf8', timeout: 5000, env });
  const name = version.stdout?.trim().split('\n')[0] || `bubblewrap (${bwrap})`;
  const probe = spawnSync(bwrap, PROBE, { encoding: 'utf8', timeout: 5000, env });
  if (probe.status !== 0) {
    const why = (probe.stderr || probe.error?.message || `exit ${probe.status}`).trim();
    return {
      inUse: false,
      detail: `not in use (${name} cannot make a sandbox here: ${why.split('\n')[0]}); ${UNCONFINED}`,
    };
  }
  return { inUse: true, detail: `${name} in use`, bwrap };
}

// Once per process and PATH: the probe starts two processes, and whether namespaces work does not
// change while the service runs. Computed at the first call, never at import.
const probed = new Map<string, Sandbox>();

/** The sandbox of this process for commands run with this PATH, probed at the first call. */
export function currentSandbox(path: string): Sandbox {
  let sandbox = probed.get(path);
  if (!sandbox) probed.set(path, (sandbox = probeSandbox(findBwrap(path))));
  return sandbox;
}

/** For `brain agent --check` and `brain doctor`: whether commands run confined, and why not. */
export function sandboxStatus(path: string): SandboxStatus {
  const { inUse, detail } = currentSandbox(path);
  return { inUse, detail };
}

/**
 * bwrap's arguments up to the command: later mounts go over earlier ones, so the writable
 * folders are bound after the empty /tmp and /run (a workspace under /tmp stays visible).
 */
export function bwrapArgs(options: ConfineOptions): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  args.push('--tmpfs', '/tmp', '--tmpfs', '/run');
  // With the network shared, /etc/resolv.conf may be a link into /run (systemd-resolved,
  // resolvconf, NetworkManager): its target comes back, read-only.
  const resolv = options.network ? resolvConf() : undefined;
  if (resolv?.startsWith('/run/')) args.push('--ro-bind-try', resolv, resolv);
  for (const dir of options.readable ?? []) args.push('--ro-bind-try', dir, dir);
  for (const dir of options.writable) args.push('--bind', dir, dir);
  args.push('--unshare-all');
  if (options.network) args.push('--share-net');
  args.push('--cap-drop', 'ALL', '--die-with-parent', '--new-session');
  args.push('--chdir', options.cwd, '--');
  return args;
}

function resolvConf(): string | undefined {
  try {
    return realpathSync('/etc/resolv.conf');
  } catch {
    // No resolver file: name lookups fail inside as they would outside.
    return undefined;
  }
}
