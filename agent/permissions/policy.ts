import { z } from 'zod';
import type { ApprovalRule } from '../../src/index.js';
import { makeRoots } from '../tools/fs-roots.js';
import { resolveCwd } from '../tools/run-command.js';
import type { Tool } from '../tools/types.js';
import { alwaysPatternOf, toolPatternOf, workspacePath } from './always.js';
import { describeCall, firstLine } from './describe.js';
import { PERMISSION_LEVELS, type Decision, type PermissionLevel } from './decision.js';
import { profilesConfig } from './trust.js';

export { PERMISSION_LEVELS, type Decision, type PermissionLevel } from './decision.js';

/** A tool name, or a pattern where `*` stands for any run of characters (`mcp__github__*`). */
const toolPattern = z
  .string()
  .regex(
    /^[A-Za-z0-9_*.-]{1,200}$/,
    'must be a tool name or a pattern of letters, digits, _ - . *',
  );

/** `permissions` in the assistant's config. */
export const permissionsConfig = z
  .strictObject({
    /** Per tool or pattern: allow, ask or deny; the most specific entry wins. */
    tools: z.record(toolPattern, z.enum(PERMISSION_LEVELS)).default({}),
    /** How long an ask waits for the owner before it is denied. */
    approvalTimeoutSeconds: z.number().int().min(1).max(86_400).default(120),
    /** Tool profiles by who drives the turn (agent/permissions/trust.ts). */
    profiles: profilesConfig,
  })
  .prefault({});
export type PermissionsConfig = z.output<typeof permissionsConfig>;

/** What the shell judge answers (agent/permissions/shell.ts). */
export interface CommandJudgement {
  verdict: 'safe' | 'ask';
  reason: string;
  commands?: Array<{ argv: string[] }> | undefined;
  simple: boolean;
  /** The judged argv lists re-serialised for `sh -c` (agent/permissions/shell.ts). */
  line?: string | undefined;
}
/** Where a command would run: its directory and the folders its paths must stay in. */
export interface CommandPlace {
  /** The real path of the directory the command runs in. */
  cwd: string;
  /** Real paths of the folders a command's path operands may name (the workspace first). */
  roots: readonly string[];
}
export type JudgeCommand = (command: string, place: CommandPlace) => Promise<CommandJudgement>;

/** What a decision needs to know of the turn besides the call. */
export interface DecideContext {
  /** The workspace: where relative paths and a command's default cwd start. */
  workspace: string;
}

export interface Policy {
  decide(tool: Tool, input: unknown, ctx: DecideContext): Promise<Decision>;
}

/**
 * The configured level for a tool: an exact entry beats every pattern, a longer pattern beats a
 * shorter one (the same length: the first written); undefined when nothing matches.
 */
export function configuredLevel(
  tools: Record<string, PermissionLevel>,
  name: string,
): { level: PermissionLevel; key: string } | undefined {
  const exact = tools[name];
  if (exact) return { level: exact, key: name };
  let best: { level: PermissionLevel; key: string } | undefined;
  for (const [key, level] of Object.entries(tools)) {
    if (!key.includes('*') || !globMatches(key, name)) continue;
    if (!best || key.length > best.key.length) best = { level, key };
  }
  return best;
}

function globMatches(pattern: string, name: string): boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`).test(name);
}

/**
 * Tools that change only the assistant's own memory in the brain (each change keeps its
 * provenance): allowed by default like the reading tools; the config can still ask or deny.
 * Reminders and tasks (agent/scheduler/) are of this kind: rows in the brain, for the owner.
 */
export const MEMORY_TOOLS: ReadonlySet<string> = new Set([
  'save_memory',
  'set_reminder',
  'cancel_reminder',
  'add_task',
  'complete_task',
]);

/** What "always" stores is exact (agent/permissions/always.ts); these name it for the policy's users. */
export { alwaysPatternOf, ruleMatches } from './always.js';

export interface PolicyDeps {
  config: PermissionsConfig;
  /** Judges run_command's command line; without it every command is asked. */
  judgeCommand?: JudgeCommand;
  /** Folders besides the workspace a command may run in and read (relative to the workspace). */
  commandRoots?: readonly string[];
  /** The stored "always allow" rules, read at each decision (`brain.approvalRules`). */
  rules: () => ApprovalRule[];
}

/**
 * The permission policy. In order: a configured `deny` refuses (nothing overrides it); a
 * configured `allow` allows; otherwise the default (read-only tools allow, run_command allows a
 * command the shell judge calls safe, everything else asks), and an ask that a stored "always"
 * rule covers is allowed.
 */
export function createPolicy(deps: PolicyDeps): Policy {
  return {
    async decide(tool, input, ctx) {
      const configured = configuredLevel(deps.config.tools, tool.name);
      const command =
        tool.name === 'run_command' ? (input as { command?: unknown }).command : undefined;
      const base = { summary: firstLine(describeCall(tool, input, ctx)), by: 'policy' as const };
      if (configured?.level === 'deny')
        return { ...base, decision: 'deny', reason: `permissions.tools.${configured.key} is deny` };
      if (configured?.level === 'allow')
        return {
          ...base,
          decision: 'allow',
          reason: `permissions.tools.${configured.key} is allow`,
        };

      let reason: string;
      let alwaysPattern: string | undefined;
      if (tool.name === 'run_command') {
        if (typeof command !== 'string') return { ...base, decision: 'ask', reason: 'no command' };
        const judged = deps.judgeCommand
          ? await judgeWhereItRuns(deps.judgeCommand, command, input, ctx, deps.commandRoots)
          : {
              verdict: 'ask' as const,
              reason: 'no shell judge',
              simple: false,
              commands: undefined,
            };
        if (judged.verdict === 'safe' && !configured)
          return {
            ...base,
            decision: 'allow',
            reason: `a safe command (${judged.reason})`,
            confined: true,
          };
        reason = configured ? `permissions.tools.${configured.key} is ask` : judged.reason;
        // Only one simple command (no pipeline, list or redirection) runs as its words say.
        const only = judged.commands?.length === 1 ? judged.commands[0]!.argv : undefined;
        if (judged.simple && only) alwaysPattern = alwaysPatternOf(only, cwdOf(input, ctx));
      } else {
        if (tool.readOnly && !configured)
          return { ...base, decision: 'allow', reason: 'a read-only tool' };
        if (MEMORY_TOOLS.has(tool.name) && !configured)
          return { ...base, decision: 'allow', reason: 'writes only to its own memory' };
        if (tool.name === 'delegate_task' && !configured)
          return {
            ...base,
            decision: 'allow',
            reason: "its sub-turn's calls are judged one by one",
          };
        reason = configured
          ? `permissions.tools.${configured.key} is ask`
          : `${tool.name} changes things`;
        alwaysPattern = toolPatternOf(tool.name, input, ctx.workspace);
      }
      // A rule allows exactly the call it was stored for: the same pattern, nothing wider. A call
      // that cannot be allowed always has no pattern, so no stored rule covers it.
      const rule =
        alwaysPattern === undefined
          ? undefined
          : deps.rules().find((r) => r.tool === tool.name && r.pattern === alwaysPattern);
      if (rule)
        return {
          ...base,
          by: 'always',
          decision: 'allow',
          reason: `always allowed (rule ${rule.id}: ${rule.matches})`,
        };
      return { ...base, decision: 'ask', reason, ...(alwaysPattern ? { alwaysPattern } : {}) };
    },
  };
}

/** Where a run_command call runs, relative to the workspace (`.` for it), as its rule names it. */
function cwdOf(input: unknown, ctx: DecideContext): string {
  const cwd = (input as { cwd?: unknown }).cwd;
  return typeof cwd === 'string' && cwd !== '' ? workspacePath(cwd, ctx.workspace) : '.';
}

/**
 * Judge a command where it would run: its `cwd` resolved against the workspace as run_command
 * resolves it (symlinks followed, inside the workspace or a root), and the real paths of the
 * workspace and the configured roots as the folders its paths may name.
 */
async function judgeWhereItRuns(
  judge: JudgeCommand,
  command: string,
  input: unknown,
  ctx: DecideContext,
  commandRoots: readonly string[] = [],
): Promise<CommandJudgement> {
  const asked = (input as { cwd?: unknown }).cwd;
  const wanted = typeof asked === 'string' ? asked : undefined;
  const cwd = await resolveCwd(wanted, ctx.workspace, commandRoots);
  if (cwd === undefined)
    return {
      verdict: 'ask',
      reason: `cwd ${wanted ?? '.'} is not a directory inside the workspace or an allowed root`,
      commands: undefined,
      simple: false,
    };
  const { real } = await makeRoots(ctx.workspace, commandRoots);
  return judge(command, { cwd, roots: real });
}
