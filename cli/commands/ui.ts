import type { Command } from 'commander';
import { assistantConfigExists, loadAssistantConfigFile } from '../assistant-config.js';
import { note } from '../output.js';
import type { GlobalOptions } from '../run.js';

type Globals = () => GlobalOptions;

/**
 * `brain ui`: the web explorer. Its server is imported only when it runs; the assistant's config
 * only when there is one (then the page can chat), the assistant itself at the chat's first use.
 */
export function registerUi(program: Command, globals: Globals): void {
  program
    .command('ui')
    .description('browse the brain in a web browser (threads, inboxes, search, provenance)')
    .option(
      '--host <host>',
      'address to listen on; beyond loopback --tokens is required',
      '127.0.0.1',
    )
    .option('--port <n>', 'port to listen on (0: any free port)', '7338')
    .option('--tokens <file>', 'tokens as for `brain serve`; a login asks for one once')
    .option(
      '--config <file>',
      'the assistant config for the chat page (else BRAIN_ASSISTANT_CONFIG, else ~/.config/brain/assistant.json)',
    )
    .option('--open', 'open the page in the default browser')
    .action(async (raw: Record<string, unknown>) => {
      const { runUi } = await import('../../ui/run.js');
      const file = typeof raw.config === 'string' ? raw.config : undefined;
      const assistant = assistantConfigExists(file)
        ? () => loadAssistantConfigFile(file)
        : undefined;
      await runUi(globals(), raw, note, assistant);
    });
}
