import { createInterface } from 'node:readline';
import { startIdleMaintenance, type Brain } from '../src/index.js';
import {
  AnsweredElsewhere,
  type ApprovalAnswer,
  type ApprovalRequest,
} from './permissions/approvals.js';
import { promptText } from './permissions/describe.js';
import type { Tool } from './tools/types.js';
import { knownCommand, runCommand } from './conversation/commands.js';
import type { Assistant } from './assistant.js';

export interface ReplStreams {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Tool calls and notes, dimmed or on stderr: not part of the reply. */
  note: (line: string) => void;
}

/**
 * The terminal conversation: a line is a turn whose reply streams as it is written; Ctrl-C
 * cancels the running turn (a second one, or one at an idle prompt, quits); `/exit` quits, and
 * the other slash commands are the conversation's (agent/service/commands.ts), never a turn.
 */
export async function runRepl(options: {
  assistant: Assistant;
  brain: Brain;
  session: string;
  streams: ReplStreams;
  /** Where Ctrl-C arrives from when stdin is not a terminal (readline only sees it on a TTY). */
  signals?: NodeJS.EventEmitter;
  /** The components' tools for the owner's turn (reminders, tasks, MCP servers: chat-host.ts). */
  tools?: (session: string) => readonly Tool[];
}): Promise<void> {
  const { assistant, brain, session, streams } = options;
  const { config } = assistant;
  const terminal = Boolean((streams.input as { isTTY?: boolean }).isTTY);
  const rl = createInterface({ input: streams.input, output: streams.output, terminal });
  let running: AbortController | undefined;
  let closed = false;
  // Whether the reply being streamed has left the cursor mid-line: a note starts a line of its own.
  let midLine = false;
  const write = (text: string) => {
    if (text === '') return;
    streams.output.write(text);
    midLine = !text.endsWith('\n');
  };
  const note = (line: string) => {
    if (midLine) write('\n');
    midLine = false;
    streams.note(line);
  };
  const onInterrupt = () => {
    if (running && !running.signal.aborted) {
      running.abort(new Error('cancelled'));
      note('(cancelling: Ctrl-C again to quit)');
      return;
    }
    closed = true;
    running?.abort(new Error('quit'));
    rl.close();
  };
  rl.on('SIGINT', onInterrupt);
  options.signals?.on('SIGINT', onInterrupt);
  rl.on('close', () => (closed = true));

  const current = brain.assistant.session({
    name: session,
    agent: config.agent,
    owner: config.owner,
  });
  note(
    `brain chat: session ${session} (${current.thread_id}); /help lists commands, /exit or Ctrl-C quits`,
  );
  rl.setPrompt('you> ');
  rl.prompt();
  // While the user types: what the first turn's memory search would otherwise load, and the
  // session's context. Optional, so a brain already closed (input that ended at once) is no
  // reason to fail.
  setImmediate(() => {
    try {
      assistant.warm(session);
    } catch {
      // closed: nothing to warm
    }
  });
  // Between turns (the user typing, the model answering): merge the word index and empty the WAL,
  // so a turn's own writes rarely have to (src/maintenance/idle.ts).
  const upkeep = startIdleMaintenance(brain.upkeep, {
    onError: (err) => note(`brain: idle upkeep failed: ${err.message}`),
  });
  try {
    for await (const raw of rl) {
      const line = raw.trim();
      if (line === '/exit') break;
      const command = knownCommand(line);
      if (command) {
        // The terminal's user is the owner; a line is read only between turns, so nothing runs.
        const { reply } = runCommand(command.name, command.arg, {
          brain,
          config,
          session,
          owner: true,
          models: assistant.models,
          busy: () => running !== undefined,
          cancel: () => running?.abort(new Error('cancelled')),
        });
        if (reply !== '') write(`${terminalText(reply)}\n`);
      } else if (line !== '') {
        running = new AbortController();
        let wrote = false;
        try {
          const result = await assistant.turn(
            session,
            line,
            {
              onText: (delta) => {
                wrote = true;
                write(terminalText(delta));
              },
              onToolCall: (name) => note(`  [${name}]`),
              onRestart: () => note('(the answer starts over)'),
              // The owner is at this machine: the file is where it is, and the brain keeps a copy.
              sendFile: async (file) =>
                note(
                  `  📎 ${terminalText(file.path)} (${file.mediaType}, ${file.data.length} bytes)`,
                ),
              ...(terminal
                ? {
                    askApproval: (request: ApprovalRequest) => {
                      if (midLine) write('\n');
                      midLine = false;
                      request.signal.addEventListener(
                        'abort',
                        () => {
                          const why: unknown = request.signal.reason;
                          if (why instanceof AnsweredElsewhere)
                            note(`\n  (${terminalText(why.message)})`);
                        },
                        { once: true },
                      );
                      return askOnTerminal(rl, request);
                    },
                  }
                : {}),
            },
            // Without a terminal nobody can answer: an ask is denied, as in any unattended run.
            {
              signal: running.signal,
              unattended: !terminal,
              ...(options.tools ? { tools: () => options.tools!(session) } : {}),
            },
          );
          if (!wrote && !result.cancelled) write(terminalText(result.reply));
          if (result.cancelled) note('(cancelled)');
          else write('\n');
        } catch (err) {
          if (running.signal.aborted) note('(cancelled)');
          else
            note(`brain: ${(err as { code?: string }).code ?? 'ERROR'}: ${(err as Error).message}`);
        } finally {
          running = undefined;
        }
      }
      if (closed) break;
      rl.prompt();
    }
  } finally {
    upkeep.stop();
    options.signals?.off('SIGINT', onInterrupt);
    rl.close();
  }
}

/**
 * The model's text as the terminal may print it: control characters other than newline and tab
 * (and so every escape sequence) are left out, so a reply cannot move the cursor, clear the
 * screen, hide what follows or paint a prompt of its own over the real one.
 */
export function terminalText(text: string): string {
  let out = '';
  for (const c of text) if (printable(c.codePointAt(0)!)) out += c;
  return out;
}

/** Newline, tab and everything but the C0 and C1 controls, DEL and the bidi overrides. */
function printable(code: number): boolean {
  if (code === 0x0a || code === 0x09) return true;
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return false;
  return !((code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069));
}

/**
 * The terminal's approval prompt: the call as every channel shows it (escaped, so nothing it
 * holds can move the cursor or repaint the line), why it is asked, and what "always" would allow.
 * `y` approves once, `a` always (only when offered), anything else denies.
 */
export function askOnTerminal(
  rl: ReturnType<typeof createInterface>,
  request: ApprovalRequest,
): Promise<ApprovalAnswer> {
  const text = promptText(request)
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
  const choices = request.alwaysPattern ? '[y]es once / [a]lways / [N]o' : '[y]es once / [N]o';
  const canAlways = request.alwaysPattern !== undefined;
  return new Promise((resolve) => {
    rl.question(`Allow this call?\n${text}\n${choices} `, { signal: request.signal }, (answer) =>
      resolve(parseApprovalAnswer(answer, canAlways)),
    );
  });
}

/** The owner's answer: `y`/`yes` approves once, `a`/`always` (when offered) always, else deny. */
export function parseApprovalAnswer(answer: string, canAlways = true): ApprovalAnswer {
  const a = answer.trim().toLowerCase();
  if (a === 'y' || a === 'yes') return 'approve';
  if ((a === 'a' || a === 'always') && canAlways) return 'always';
  return 'deny';
}
