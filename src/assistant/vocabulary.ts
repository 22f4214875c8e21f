// The assistant's fixed words (decisions, outcomes, modes) and the pure readings of approval
// rules: free of zod and SQL, so adapters and one-shot commands load them without the sections.
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { escapeInvisible, quoteWord, splitQuoted } from './shown.js';

/** What became of a tool call: settled at once (allow, deny) or asked (pending → the answer). */
export const APPROVAL_DECISIONS = [
  'allow',
  'deny',
  'pending',
  'approved',
  'denied',
  'timeout',
] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];
/** Who settled it: the config's policy, the owner, a stored "always" rule, or an unattended run. */
export const APPROVAL_DECIDERS = ['policy', 'owner', 'always', 'unattended'] as const;
export type ApprovalDecider = (typeof APPROVAL_DECIDERS)[number];

/**
 * Programs that run whatever they are given (shells, interpreters, editors with commands) or run
 * another program (wrappers): never stored as an "always" rule, since what they do is in their
 * arguments' meaning, not their words.
 */
export const INTERPRETERS: ReadonlySet<string> = new Set([
  ...['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'csh', 'tcsh', 'busybox', 'rbash', 'ash'],
  ...['python', 'python2', 'python3', 'node', 'nodejs', 'deno', 'bun', 'ruby', 'perl', 'php'],
  ...['lua', 'tclsh', 'osascript', 'pwsh', 'powershell', 'awk', 'gawk', 'mawk', 'nawk'],
  ...['env', 'xargs', 'exec', 'eval', 'nice', 'nohup', 'timeout', 'sudo', 'doas', 'su'],
  ...['command', 'builtin', 'time', 'watch', 'strace', 'ssh', 'npx', 'make', 'find'],
  ...['stdbuf', 'ionice', 'chroot', 'setsid', 'flock', 'unshare', 'nsenter', 'runuser'],
  ...['pkexec', 'script', 'expect', 'parallel', 'chrt', 'taskset', 'firejail', 'bwrap'],
  ...['systemd-run', 'ltrace', 'gdb', 'valgrind', 'tmux', 'screen', 'entr', 'pnpx', 'bunx'],
  ...['uvx', 'pipx', 'irb', 'jshell', 'rscript', 'julia', 'wish', 'vi', 'vim', 'nvim', 'emacs'],
  ...['ed', 'ex', 'sg', 'dbus-run-session', 'wsl', 'cmd', 'start-stop-daemon'],
]);

/** Whether a program runs whatever it is given: INTERPRETERS, or a versioned interpreter name. */
export function isInterpreter(program: string): boolean {
  const name = program.toLowerCase();
  return (
    INTERPRETERS.has(name) ||
    /^(python|pypy|ruby|perl|node|php|lua|luajit|tclsh|wish|pip)[0-9.]*$/.test(name)
  );
}

/** The sha256 of the canonical JSON (keys sorted at every level) of a tool call's arguments. */
export function argsDigest(args: unknown): string {
  const canonical = JSON.stringify(args, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
  return createHash('sha256')
    .update(canonical ?? 'null')
    .digest('hex');
}

export const RUN_COMMAND = 'run_command';
/** A stored rule's most characters: one the owner cannot read whole is not offered. */
export const RULE_PATTERN_MAX = 1000;

/**
 * The pattern of a rule for one exact command: `exactly <words>`, each word quoted as a shell
 * would read it back, after `in <dir>` when it runs elsewhere than the workspace. Equal
 * patterns mean equal word lists and directories, so a rule matches only what was approved.
 */
export function commandRulePattern(argv: readonly string[], cwd = '.'): string {
  const where = cwd === '.' ? '' : `in ${quoteWord(cwd)} `;
  return `${where}exactly ${argv.map(quoteWord).join(' ')}`;
}

/** The command and directory of a rule pattern in the current form; undefined for any other text. */
export function parseCommandRule(pattern: string): { argv: string[]; cwd: string } | undefined {
  const words = splitQuoted(pattern);
  if (!words) return undefined;
  let cwd = '.';
  let rest = words;
  if (words[0] === 'in' && words.length > 2) {
    cwd = words[1]!;
    rest = words.slice(2);
  }
  if (rest[0] !== 'exactly' || rest.length < 2) return undefined;
  const argv = rest.slice(1);
  // Only the one spelling commandRulePattern writes: any other would be a second key for a call.
  return commandRulePattern(argv, cwd) === pattern ? { argv, cwd } : undefined;
}

/**
 * What a stored rule allows, read from its pattern. The current forms: run_command
 * `exactly <words>` (one command, word for word, in the workspace or `in <dir>`); write_file
 * `path <path>` (that file, relative to the workspace); send_message `to <name>` (messages to
 * that agent); an MCP tool its own name (every call of that tool, any input). Any other pattern
 * (the older `git push *` and bare tool names) is inactive: it matches nothing.
 */
export function readApprovalRule(
  tool: string,
  pattern: string,
): { active: boolean; matches: string } {
  const inactive = {
    active: false,
    matches: `nothing: "${escapeInvisible(pattern)}" is an old, wider form; approve the call again to store it exactly`,
  };
  if (tool === RUN_COMMAND) {
    const command = parseCommandRule(pattern);
    if (!command) return inactive;
    const where = command.cwd === '.' ? '' : `, in ${quoteWord(command.cwd)}`;
    return {
      active: true,
      matches: `${escapeInvisible(command.argv.map(quoteWord).join(' '))} (exactly${escapeInvisible(where)})`,
    };
  }
  const field = fieldOf(tool);
  if (field) {
    const value = pattern.startsWith(`${field} `) ? pattern.slice(field.length + 1) : '';
    return value.trim() === ''
      ? inactive
      : { active: true, matches: `${field} ${escapeInvisible(value)}` };
  }
  if (tool.startsWith('mcp__') && pattern === tool)
    return { active: true, matches: 'any input (every call of this tool)' };
  return inactive;
}

/** Tools whose rule names the one argument that matters: the file written, the recipient. */
const FIELD_RULES: Record<string, string> = { write_file: 'path', send_message: 'to' };
export const fieldOf = (tool: string) =>
  Object.hasOwn(FIELD_RULES, tool) ? FIELD_RULES[tool] : undefined;

export { SUMMARY_CATEGORY } from '../vocabulary.js';

/** Upper-case letters and digits without the look-alikes 0/O, 1/I/L. */
export const PAIRING_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const PAIRING_CODE_LENGTH = 8;
/** How long a code is valid. */
export const PAIRING_TTL_MS = 60 * 60 * 1000;
/** Requests waiting at once per channel; more are refused until one is decided or expires. */
export const PAIRING_MAX_PENDING = 3;

/** `interrupted`: the process running it ended without finishing it (migration 0019). */
export const CRON_OUTCOMES = ['running', 'ok', 'error', 'skipped', 'interrupted'] as const;
/** The mark a retried run's detail carries: a run is retried once, never twice. */
export const RETRIED = 'retried after an interruption';

export const REMINDER_MODES = ['notify', 'prompt'] as const;

export const TASK_PRIORITIES = ['low', 'normal', 'high'] as const;

export const USAGE_GROUPS = ['model', 'day', 'source'] as const;

/**
 * Who holds a lease: a process (its pid on a host) and a label that tells apart the holders one
 * process may have at once (two turns of one session in one process must also wait for each
 * other, so each turn takes the lease with its own label). A holder is the same holder only when
 * all three match.
 */
export interface LeaseHolder {
  pid: number;
  host: string;
  label: string;
}

/** This process as a holder, under `label`. */
export function leaseHolder(label: string): LeaseHolder {
  return { pid: process.pid, host: hostname(), label };
}
