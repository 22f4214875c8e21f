import { Command } from 'commander';
import { packageVersion } from '../src/version.js';
import { registerBench } from './commands/bench.js';
import { registerChat } from './commands/chat.js';
import { registerDemo } from './commands/demo.js';
import { registerEmbed } from './commands/embed.js';
import { registerEval } from './commands/eval.js';
import { registerKnowledge } from './commands/knowledge.js';
import { registerMaintenance } from './commands/maintenance.js';
import { registerMcp } from './commands/mcp.js';
import {
  registerAgents,
  registerInbox,
  registerSend,
  registerThreads,
} from './commands/messaging.js';
import { registerSearch } from './commands/search.js';
import { registerTransfer } from './commands/transfer.js';
import { registerUsage } from './commands/usage.js';
import { registerApprovals } from './commands/approvals.js';
import { registerPairing } from './commands/pairing.js';
import { registerAgent } from './commands/agent.js';
import type { GlobalOptions } from './run.js';

/** The `brain` command: global options, then one registration per group of commands. */
export function createProgram(): Command {
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
  registerSend(program, globals);
  registerInbox(program, globals);
  registerThreads(program, globals);
  registerKnowledge(program, globals);
  registerSearch(program, globals);
  registerTransfer(program, globals);
  registerAgents(program, globals);
  registerMaintenance(program, globals);
  registerDemo(program, globals);
  registerEmbed(program, globals);
  registerEval(program, globals);
  registerBench(program, globals);
  registerMcp(program, globals);
  registerChat(program, globals);
  registerUsage(program, globals);
  registerApprovals(program, globals);
  registerPairing(program, globals);
  registerAgent(program, globals);
  return program;
}
