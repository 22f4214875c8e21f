import { Command } from 'commander';
import { packageVersion } from '../src/index.js';
import type { GlobalOptions } from './run.js';

type Register = (program: Command, globals: () => GlobalOptions) => void;

/**
 * The groups of commands, in the order help lists them: the names each group registers, and the
 * module that registers them, loaded only when one of its commands runs (or help lists them all).
 * A one-shot command such as `brain poll`, run by agents' hooks many times a minute, so loads one
 * command module instead of every one.
 */
export const COMMAND_GROUPS: ReadonlyArray<{
  commands: readonly string[];
  load(): Promise<readonly Register[]>;
}> = [
  {
    commands: ['send'],
    load: async () => [(await import('./commands/messaging.js')).registerSend],
  },
  {
    commands: ['poll', 'inbox', 'read', 'ack'],
    load: async () => [(await import('./commands/messaging.js')).registerInbox],
  },
  {
    commands: ['threads', 'thread', 'archive', 'close', 'reopen', 'tag'],
    load: async () => [(await import('./commands/messaging.js')).registerThreads],
  },
  {
    commands: ['attachment'],
    load: async () => [(await import('./commands/attachment.js')).registerAttachment],
  },
  {
    commands: ['remember', 'memories', 'atom', 'link', 'chain', 'provenance'],
    load: async () => [(await import('./commands/knowledge.js')).registerKnowledge],
  },
  {
    commands: ['extract', 'summarize', 'insights'],
    load: async () => [(await import('./commands/extract.js')).registerExtract],
  },
  {
    commands: ['reflect'],
    load: async () => [(await import('./commands/reflect.js')).registerReflect],
  },
  {
    commands: ['search', 'recent'],
    load: async () => [(await import('./commands/search.js')).registerSearch],
  },
  {
    commands: ['export', 'import', 'migrate'],
    load: async () => [(await import('./commands/transfer.js')).registerTransfer],
  },
  {
    commands: ['agents', 'whoami'],
    load: async () => [(await import('./commands/messaging.js')).registerAgents],
  },
  {
    commands: ['doctor', 'backup'],
    load: async () => [(await import('./commands/maintenance.js')).registerMaintenance],
  },
  {
    commands: ['replicate', 'restore'],
    load: async () => [(await import('./commands/replication.js')).registerReplication],
  },
  { commands: ['demo'], load: async () => [(await import('./commands/demo.js')).registerDemo] },
  { commands: ['embed'], load: async () => [(await import('./commands/embed.js')).registerEmbed] },
  { commands: ['eval'], load: async () => [(await import('./commands/eval.js')).registerEval] },
  { commands: ['bench'], load: async () => [(await import('./commands/bench.js')).registerBench] },
  {
    commands: ['mcp', 'serve'],
    load: async () => [(await import('./commands/mcp.js')).registerMcp],
  },
  { commands: ['chat'], load: async () => [(await import('./commands/chat.js')).registerChat] },
  { commands: ['usage'], load: async () => [(await import('./commands/usage.js')).registerUsage] },
  {
    commands: ['skills'],
    load: async () => [(await import('./commands/skills.js')).registerSkills],
  },
  {
    commands: ['profile'],
    load: async () => [(await import('./commands/profile.js')).registerProfile],
  },
  {
    commands: ['approvals'],
    load: async () => [(await import('./commands/approvals.js')).registerApprovals],
  },
  {
    commands: ['pairing'],
    load: async () => [(await import('./commands/pairing.js')).registerPairing],
  },
  {
    commands: ['heartbeat', 'cron', 'reminders', 'tasks'],
    load: async () => [(await import('./commands/scheduler.js')).registerScheduler],
  },
  {
    commands: ['agent'],
    // `agent mcp` is added to the service's `agent` command, so after it.
    load: async () => [
      (await import('./commands/agent.js')).registerAgent,
      (await import('./commands/agent-mcp.js')).registerAgentMcp,
    ],
  },
  { commands: ['ui'], load: async () => [(await import('./commands/ui.js')).registerUi] },
  {
    commands: ['webhooks'],
    load: async () => [(await import('./commands/webhooks.js')).registerWebhooks],
  },
];

/** Global options that take a value: their value is not the command's name. */
const VALUED_GLOBALS = new Set(['--agent', '--db']);

/** The command `args` (the user's arguments, without node and the script) names, if any. */
export function commandNamed(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (VALUED_GLOBALS.has(arg)) i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

/**
 * The `brain` command: global options, then the commands. With `args`, only the group of the
 * command they name is registered (every group when they name none or an unknown one: help and
 * commander's suggestions need every name).
 */
export async function createProgram(args?: readonly string[]): Promise<Command> {
  const program = new Command('brain')
    .description(
      'A memory and messaging hub for AI agents: one SQLite file that is their conversation and their memory.',
    )
    .version(packageVersion(), '-V, --version')
    .option('--agent <name>', 'act as this agent (else BRAIN_AGENT)')
    .option('--db <path>', 'the database file (else BRAIN_DB, else ~/.local/share/brain/brain.db)')
    .option('--json', 'print one JSON document on stdout')
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ sortSubcommands: false })
    .exitOverride();

  const globals = (): GlobalOptions => program.opts<GlobalOptions>();
  const named = args && commandNamed(args);
  // `--version` without a command prints the version and stops: no command is needed for it.
  if (named === undefined && args?.some((a) => a === '-V' || a === '--version')) return program;
  const only = COMMAND_GROUPS.find((g) => named !== undefined && g.commands.includes(named));
  for (const group of only ? [only] : COMMAND_GROUPS)
    for (const register of await group.load()) register(program, globals);
  return program;
}
