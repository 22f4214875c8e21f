import type { Brain, Clock } from '../src/index.js';
import type { AssistantConfig } from './config.js';
import type { Log } from './log.js';
import type { TurnIo, TurnResult } from './loop.js';
import type { Driver } from './permissions/trust.js';
import type { Tool } from './tools/types.js';
import type { ChannelTarget } from './channels/target.js';

/**
 * The contract between `brain agent` (agent/service/) and what runs inside it: the channels
 * (Telegram, Discord), the scheduler and the MCP client. Each is a component the service starts,
 * stops, checks and reconfigures; each reaches the assistant only through the host. It sits at
 * the bottom of agent/: it names what the parts exchange and imports none of them but types.
 */

export type { ChannelTarget };

/** The lane runs owner work first, then other agents' messages, then scheduled work. */
export type LanePriority = 'owner' | 'agent' | 'scheduled';

/** How a chat message's turn is to be queued (agent/service/arrival.ts decides it). */
export interface ArrivalTurn {
  session: string;
  /** The model's input: the sender's words, anything foreign in it marked as data. */
  text: string;
  driver: Driver;
  /** Who said it, as an agent name, when it is not the owner. */
  from?: string;
  priority: LanePriority;
  /** Nobody can answer an approval: every `ask` is denied. */
  unattended: boolean;
  /** Approval prompts go to this chat: only in the owner's own turns. */
  asks: boolean;
}

/** One turn asked of the lane. */
export interface TurnRequest {
  /** The session's name: the owner's session, `telegram/<chat_id>`, `heartbeat`, `cron/<job>`, … */
  session: string;
  text: string;
  /** Who said it, as an agent name (default the owner); anyone else's words are untrusted data. */
  from?: string;
  /**
   * The text is this message, already stored in the session's thread: the turn answers it there
   * (its reply `reply_to` it) instead of storing the text again. The inbox's turns use it.
   */
  messageId?: string;
  /** The usage rows' source: `channel`, `inbox`, `heartbeat`, `cron`, `reminder`, `email`. */
  source: string;
  priority: LanePriority;
  /** Nobody can answer an approval: every `ask` is denied. */
  unattended: boolean;
  /**
   * The text carries words of someone other than the owner although nobody else sent it (a mail
   * watcher's new mail): the turn is not the owner's (see TurnOrigin).
   */
  foreignText?: boolean;
  /**
   * Who drives the turn (agent/permissions/trust.ts); default: `scheduled` for scheduled work,
   * the owner when nobody else said it, else another agent. Channels take it from arrivalTurn.
   */
  driver?: Driver;
  /** Foreign content the turn starts with (a reminder set in a tainted turn): its sources. */
  taint?: readonly string[];
  io: TurnIo;
  /**
   * Runs the turn instead of the assistant: a delegated task's sub-turn, built by the turn that
   * delegated it with no more than that turn may do (agent/delegation/), queued like any turn.
   */
  run?: (signal: AbortSignal) => Promise<TurnResult>;
}

/**
 * Who drives a turn, as the host reads it from the TurnRequest: what a component's `tools()`
 * decides by, so that what someone else says cannot reach the owner's tools.
 */
export interface TurnOrigin {
  /**
   * The owner drives it: their own words (any channel, `brain chat`) or work the owner set up
   * (heartbeat, cron, reminders). False for other agents, other people, and untrusted text.
   */
  owner: boolean;
  /** Who drives it: what the tool profiles are chosen by. */
  driver: Driver;
  priority: LanePriority;
  /** The usage rows' source (`channel`, `inbox`, `heartbeat`, `cron`, `reminder`, `email`). */
  source: string;
  unattended: boolean;
}

export interface QueuedTurn {
  /** The turn's result; rejects with its error, or with a cancellation before it started. */
  done: Promise<TurnResult>;
  cancel(reason?: string): void;
}

export interface ServiceHost {
  readonly brain: Brain;
  readonly clock: Clock;
  readonly log: Log;
  /** The running config: replaced when a changed file validates (live reload). */
  config(): AssistantConfig;
  /** Queue a turn. Never await it inside an update handler: the handler must return. */
  enqueue(request: TurnRequest): QueuedTurn;
  /** Cancel a session's running and queued turns; true when one was running. */
  cancelSession(session: string): boolean;
  /** Whether a turn of the session is running or queued. */
  busy(session: string): boolean;
  /** The owner's one session, shared by Telegram, Discord and `brain chat`. */
  ownerSession(): string;
  /** Whether this user of a channel is the owner (config `owner`: `{telegram: 123, discord: "456"}`). */
  isOwner(identity: { channel: string; userId: string }): boolean;
  /** Remember where the owner spoke last: the default delivery target. */
  noteOwnerTarget(target: ChannelTarget): void;
  /** Send text to the owner at `target`, else where the owner spoke last; false when nothing could. */
  deliver(text: string, target?: ChannelTarget): Promise<boolean>;
  /** Each session's `/model` choice, which the host's assistant follows (agent/service/commands.ts). */
  readonly sessionModels?: SessionModels;
  /** Turns waiting in the lane: `/status`. */
  queuedTurns?(): number;
  /** The running channels: what the resumer hands a stored message back to. */
  channels?(): readonly Channel[];
}

/** `brain agent --check`: one line per thing looked at. */
export interface CheckItem {
  name: string;
  ok: boolean;
  detail: string;
}

/** One line per item: `ok   name: detail` or `FAIL name: detail`. */
export function formatCheckItem(item: CheckItem): string {
  return `${item.ok ? 'ok  ' : 'FAIL'} ${item.name}: ${item.detail}`;
}

export interface ServiceComponent {
  readonly name: string;
  /** Resolves when it is running (a channel: polling or connected). */
  start(host: ServiceHost): Promise<void>;
  /** Stop taking new work; resolves when it has let go of everything it holds. */
  stop(): Promise<void>;
  check?(host: ServiceHost): Promise<CheckItem[]>;
  /** A new config validated; the component applies what changed. */
  reconfigure?(config: AssistantConfig): Promise<void> | void;
  /**
   * Tools this component gives the model for a turn of a session (reminders, tasks, MCP tools),
   * asked before each model call; `origin` says who drives the turn.
   */
  tools?(session: string, origin: TurnOrigin): readonly Tool[];
}

export interface Channel extends ServiceComponent {
  readonly channel: 'telegram' | 'discord';
  /** A proactive message (heartbeat, reminders, relays) to a chat of this channel. */
  notify(chatId: string, text: string): Promise<void>;
  /**
   * Run a turn for a message of this chat already stored (agent/service/accepted.ts), as if it had
   * just arrived: what the resumer does with one a crash left unanswered.
   */
  takeUp?(chatId: string, turn: ArrivalTurn, messageId: string): void;
}

/** Which endpoint each session uses after `/model` (agent/conversation/commands.ts keeps them). */
export interface SessionModels {
  get(session: string): number | undefined;
  set(session: string, endpoint: number | undefined): void;
}

/** Thrown into `done` of a turn cancelled before it started, and of one whose runner gave up on abort. */
export class TurnCancelledError extends Error {
  override readonly name = 'TurnCancelledError';
  constructor(
    readonly session: string,
    reason = 'cancelled',
  ) {
    super(`turn of ${session} cancelled: ${reason}`);
  }
}
