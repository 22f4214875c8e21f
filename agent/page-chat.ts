import { randomBytes } from 'node:crypto';
import { systemClock, type Brain, type Embedder } from '../src/index.js';
import { createAssistant } from './assistant.js';
import { startChatComponents } from './chat-host.js';
import type { AssistantConfig } from './config.js';
import { knownCommand, runCommand } from './conversation/commands.js';
import { failureText, STOPPED_TEXT } from './conversation/replies.js';
import { chatSession } from './conversation/sessions.js';
import type { Log } from './log.js';
import type { ApprovalAnswer, ApprovalRequest } from './permissions/approvals.js';
import { promptText } from './permissions/describe.js';

/**
 * The conversation of `brain ui`'s chat page: the terminal's conversation (agent/chat.ts) with a
 * browser for a terminal. Only the owner reaches it (ui/ lets the owner's viewer in, nobody else),
 * so a message is the owner's turn in the session `chat/NAME`: the owner's tools and data, and
 * approvals asked on the page. `chat/default` is the owner's one session, the one `brain chat`
 * and the owner's private Telegram and Discord chats are in; the lease of agent/lease.ts keeps
 * one turn of a session at a time across the processes that run them.
 *
 * The page shows what a turn does as events: its text as it streams, its tool calls, its
 * approval questions (answered with `answer`), and how it ended. A page that opens mid-turn
 * starts from `state`.
 */

export interface PageChatOptions {
  brain: Brain;
  config: AssistantConfig;
  log: Log;
  embedder?: Embedder | undefined;
}

/** An approval waiting for the owner, as the page shows it: the text every channel shows. */
export interface PageApproval {
  /** Random, per question: what the page's buttons answer. */
  id: string;
  /** The call, why it is asked and what "always" would allow (agent/permissions/describe.ts). */
  text: string;
  /** Whether "always" is offered. */
  always: boolean;
}

export type PageEvent =
  | { type: 'turn'; text: string }
  | { type: 'text'; delta: string }
  | { type: 'restart' }
  | { type: 'tool'; name: string }
  | ({ type: 'approval' } & PageApproval)
  | { type: 'settled'; id: string; answer: ApprovalAnswer | 'closed' }
  | { type: 'done'; reply: string }
  | { type: 'stopped'; text: string }
  | { type: 'failed'; text: string };

export interface PageChatState {
  /** A turn of the session runs in this process. */
  running: boolean;
  /** The text it has streamed so far. */
  text: string;
  approvals: PageApproval[];
}

export type PageSaid =
  | { kind: 'command'; command: string; reply: string }
  | { kind: 'turn' }
  /** A turn of the session is running here: one at a time, as in the terminal. */
  | { kind: 'busy' };

export interface PageChat {
  readonly owner: string;
  readonly agent: string;
  /** The session of a name the page gives (`default`: the owner's). */
  session(name: string): string;
  state(session: string): PageChatState;
  /** Every event of the session until the returned function is called. */
  subscribe(session: string, listener: (event: PageEvent) => void): () => void;
  /** A slash command is answered at once; anything else starts a turn. */
  say(session: string, text: string): PageSaid;
  /** The owner's answer to an approval of the session; false when it is not open (any more). */
  answer(session: string, id: string, answer: ApprovalAnswer): boolean;
  /**
   * The owner's answer to an open question by its row in the brain (brain ui's assistant page
   * lists it too); false when no question of this process has that row.
   */
  answerRecord(recordId: number, answer: 'approve' | 'deny'): boolean;
  /** Cancel running turns, wait for them, stop the MCP servers. */
  close(): Promise<void>;
}

interface Running {
  controller: AbortController;
  text: string;
  approvals: Map<
    string,
    PageApproval & { recordId: number | undefined; resolve(answer: ApprovalAnswer): void }
  >;
  done: Promise<void>;
}

export async function openPageChat(options: PageChatOptions): Promise<PageChat> {
  const { brain, config, log } = options;
  const assistant = createAssistant({
    brain,
    config,
    clock: systemClock,
    log,
    embedder: options.embedder,
  });
  const components = await startChatComponents({
    brain,
    config,
    clock: systemClock,
    log,
    assistant,
  });
  const listeners = new Map<string, Set<(event: PageEvent) => void>>();
  const running = new Map<string, Running>();

  const emit = (session: string, event: PageEvent) => {
    for (const listener of listeners.get(session) ?? []) {
      try {
        listener(event);
      } catch (err) {
        // One page gone wrong must not stop the turn or the other pages.
        log('warn', 'page.listener_failed', { error: (err as Error).message });
      }
    }
  };

  const ask = (session: string, turn: Running, request: ApprovalRequest) =>
    new Promise<ApprovalAnswer>((resolve) => {
      const id = randomBytes(9).toString('base64url');
      const shown: PageApproval = {
        id,
        text: promptText(request),
        always: request.alwaysPattern !== undefined,
      };
      const close = () => {
        if (!turn.approvals.delete(id)) return;
        resolve('deny');
        emit(session, { type: 'settled', id, answer: 'closed' });
      };
      turn.approvals.set(id, {
        ...shown,
        recordId: request.recordId,
        resolve: (answer) => {
          request.signal.removeEventListener('abort', close);
          turn.approvals.delete(id);
          resolve(answer);
          emit(session, { type: 'settled', id, answer });
        },
      });
      if (request.signal.aborted) return close();
      request.signal.addEventListener('abort', close, { once: true });
      emit(session, { type: 'approval', ...shown });
    });

  const startTurn = (session: string, text: string) => {
    const turn: Running = {
      controller: new AbortController(),
      text: '',
      approvals: new Map(),
      done: Promise.resolve(),
    };
    running.set(session, turn);
    emit(session, { type: 'turn', text });
    turn.done = assistant
      .turn(
        session,
        text,
        {
          onText: (delta) => {
            turn.text += delta;
            emit(session, { type: 'text', delta });
          },
          onRestart: () => {
            turn.text = '';
            emit(session, { type: 'restart' });
          },
          onToolCall: (name) => emit(session, { type: 'tool', name }),
          askApproval: (request) => ask(session, turn, request),
        },
        {
          signal: turn.controller.signal,
          source: 'ui',
          unattended: false,
          tools: () => components.tools(session),
        },
      )
      .then(
        (result) =>
          emit(
            session,
            result.cancelled
              ? { type: 'stopped', text: STOPPED_TEXT }
              : { type: 'done', reply: result.reply },
          ),
        (err: unknown) => {
          if (turn.controller.signal.aborted)
            return emit(session, { type: 'stopped', text: STOPPED_TEXT });
          log('warn', 'page.turn_failed', {
            session,
            code: (err as { code?: string }).code ?? 'ERROR',
          });
          emit(session, { type: 'failed', text: failureText(err) });
        },
      )
      .finally(() => {
        if (running.get(session) === turn) running.delete(session);
      });
  };

  const cancel = (session: string) =>
    running.get(session)?.controller.abort(new Error('cancelled'));

  return {
    owner: config.owner,
    agent: config.agent,
    session: (name) => chatSession(name),
    state(session) {
      const turn = running.get(session);
      return {
        running: turn !== undefined,
        text: turn?.text ?? '',
        approvals: [...(turn?.approvals.values() ?? [])].map(({ id, text, always }) => ({
          id,
          text,
          always,
        })),
      };
    },
    subscribe(session, listener) {
      let set = listeners.get(session);
      if (!set) listeners.set(session, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0) listeners.delete(session);
      };
    },
    say(session, text) {
      const command = knownCommand(text);
      if (command) {
        // Only the owner reaches the page: the owner's commands.
        const { reply } = runCommand(command.name, command.arg, {
          brain,
          config,
          session,
          owner: true,
          models: assistant.models,
          busy: () => running.has(session),
          cancel: () => cancel(session),
          approvalsWaiting: () => running.get(session)?.approvals.size ?? 0,
        });
        return { kind: 'command', command: command.name, reply: reply || STOPPED_TEXT };
      }
      if (running.has(session)) return { kind: 'busy' };
      startTurn(session, text);
      return { kind: 'turn' };
    },
    answer(session, id, answer) {
      const open = running.get(session)?.approvals.get(id);
      if (!open) return false;
      if (answer === 'always' && !open.always) return false;
      open.resolve(answer);
      return true;
    },
    answerRecord(recordId, answer) {
      for (const turn of running.values())
        for (const open of turn.approvals.values())
          if (open.recordId === recordId) {
            open.resolve(answer);
            return true;
          }
      return false;
    },
    async close() {
      const turns = [...running.values()];
      for (const turn of turns) turn.controller.abort(new Error('the page chat is closing'));
      await Promise.all(turns.map((t) => t.done));
      listeners.clear();
      await components.stop();
    },
  };
}
