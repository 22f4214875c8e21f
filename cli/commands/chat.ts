import type { Command } from 'commander';
import { printJson, println, dim, note } from '../output.js';
import { creating, withBrain, type GlobalOptions } from '../run.js';
import { loadAssistantConfigFile } from '../assistant-config.js';
import { createEmbedder } from '../../src/index.js';

interface ChatOptions {
  session: string;
  config?: string;
  message?: string;
}

/**
 * `brain chat`: a conversation with the assistant in the terminal, or one turn with `-m`. The
 * assistant (models, tools, loop) loads only here, when the command runs.
 */
export function registerChat(program: Command, globals: () => GlobalOptions): void {
  program
    .command('chat')
    .description('talk with your assistant (one turn with -m); conversations live in the brain')
    .option('--session <name>', 'the conversation to continue (session chat/NAME)', 'default')
    .option(
      '--config <file>',
      'the assistant config (else BRAIN_ASSISTANT_CONFIG, else ~/.config/brain/assistant.json)',
    )
    .option('-m, --message <text>', 'say this, print the reply, and exit')
    .action(async (opts: ChatOptions) => {
      // A bad config is refused before the brain is opened (or made).
      const config = await loadAssistantConfigFile(opts.config);
      return withBrain(creating(globals()), async ({ brain, config: brainConfig, json }) => {
        const { openChat, streamLog } = await import('../../agent/index.js');
        const embedder = await createEmbedder(brainConfig, {
          brain: brain.embed,
          purpose: 'search',
        });
        const log = streamLog((line) => void process.stderr.write(`brain: ${line}`), 'warn');
        const chat = await openChat({ brain, config, log, embedder, session: opts.session });

        if (opts.message === undefined) {
          try {
            return await chat.repl(
              { input: process.stdin, output: process.stdout, note: (l) => note(dim(l)) },
              process.stdin.isTTY ? undefined : process,
            );
          } finally {
            await chat.close();
          }
        }

        const controller = new AbortController();
        const cancel = () => controller.abort(new Error('cancelled'));
        process.once('SIGINT', cancel);
        process.once('SIGTERM', cancel);
        try {
          const said = await chat.say(opts.message, controller.signal);
          if (said.kind === 'command')
            // A slash command is the conversation's, not a turn: no model call.
            return json
              ? printJson({ command: said.command, reply: said.reply })
              : println(said.reply);
          const result = said.result;
          if (result.cancelled) process.exitCode = 130;
          if (json)
            return printJson({
              reply: result.reply,
              session: result.session,
              thread_id: result.threadId,
              message_ids: [result.messageIds.user, result.messageIds.reply],
              // snake_case like every other --json document
              usage: {
                input_tokens: result.usage.input,
                output_tokens: result.usage.output,
                cache_read_tokens: result.usage.cacheRead,
                cache_write_tokens: result.usage.cacheWrite,
              },
              model: result.model ?? null,
              stop_reason: result.stopReason,
            });
          println(result.reply);
        } catch (err) {
          // Stopped while waiting for another turn of the session: nothing was said or stored.
          if (!controller.signal.aborted) throw err;
          note('brain: cancelled before the turn began (another turn of this session was running)');
          process.exitCode = 130;
        } finally {
          process.off('SIGINT', cancel);
          process.off('SIGTERM', cancel);
          await chat.close();
        }
      });
    });
}
