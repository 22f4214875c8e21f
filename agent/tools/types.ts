import type { Brain, Clock, PreparedAttachment } from '../../src/index.js';
import type { z } from 'zod';
import type { TokenUsage } from '../models/types.js';

/** What a tool's run gets: the brain, the turn it serves, and a way to stop. */
export interface ToolContext {
  brain: Brain;
  /** The assistant's agent name in the brain. */
  agent: string;
  /** The owner's agent name. */
  owner: string;
  /** The session's thread id (`thr_…`) and name (`chat/default`). */
  threadId: string;
  session: string;
  /** The user message of the current turn: the source of anything this turn learns. */
  turnMessageId: string;
  workspace: string;
  signal: AbortSignal;
  clock: Clock;
  /**
   * Where the foreign content the turn has taken in so far came from (empty: none): what the
   * turn schedules carries it (agent/permissions/trust.ts).
   */
  taint?: () => readonly string[];
  /**
   * False when this call must run with no network (a command allowed in a tainted turn);
   * undefined leaves it to the tool's own rules.
   */
  network?: boolean;
  /** Who drives the turn (agent/permissions/trust.ts); absent: not said, taken as not the owner. */
  driver?: 'owner' | 'contact' | 'agent' | 'scheduled';
  /** How deep in delegation the turn is: 0 for a turn nobody delegated (agent/delegation/). */
  depth?: number;
  /** The names of the tools the turn may use now: what a sub-turn's tools are chosen from. */
  turnTools?: () => readonly string[];
  /**
   * Sends a file to whoever the turn answers, on its channel, and keeps it with the turn's reply
   * (`prepared`: made ready by `brain.messages.attach`); absent where the turn's channel cannot.
   */
  sendFile?: (file: OutgoingFile & { prepared: PreparedAttachment }) => Promise<void>;
  /** Runs a sub-turn that can do no more than this turn (agent/loop.ts); delegate_task decides when. */
  subTurn?: (request: SubTurnRequest) => Promise<SubTurnResult>;
}

/** A file the assistant sends in a chat (send_file). */
export interface OutgoingFile {
  name: string;
  /** Where it is on this machine (its real path). */
  path: string;
  data: Buffer;
  /** As the brain sniffed it from the bytes. */
  mediaType: string;
  caption?: string | undefined;
}

/** A sub-turn asked of the loop: in its own session, with some of the calling turn's tools. */
export interface SubTurnRequest {
  session: string;
  text: string;
  /** Tool names; only those the calling turn may use are given. */
  tools: readonly string[];
  maxRounds: number;
  /** After each model call: why the sub-turn must stop (its budget is spent), else undefined. */
  budget: (call: { model: string; endpoint: string; usage: TokenUsage }) => string | undefined;
  signal: AbortSignal;
  /** Its asks go to whoever the calling turn asks; false: nobody is asked (each ask denied). */
  asks: boolean;
  /** The usage rows' source. */
  source: string;
}

/** What a sub-turn ended with: the loop's TurnResult, as far as a tool reads it. */
export interface SubTurnResult {
  reply: string;
  session: string;
  threadId: string;
  messageIds: { user: string; reply: string };
  usage: TokenUsage;
  /** The loop's TurnStop: `end_turn`, `max_rounds`, `budget`, `cancelled`, … */
  stopReason: string;
  cancelled: boolean;
  /** Where the foreign content the sub-turn took in came from; absent when none. */
  taint?: readonly string[];
}

export interface ToolOutput {
  /** What the model reads. */
  content: string;
  isError?: boolean;
  /** Text from outside the owner (web pages, mail, other agents, MCP servers): wrapped as data. */
  untrusted?: boolean;
}

/** One tool: a name, a short description, a zod schema for its input, and what it does. */
export interface Tool<I = unknown> {
  name: string;
  description: string;
  schema: z.ZodType<I>;
  /**
   * The JSON Schema the model is given, when it does not come from `schema`: an MCP server's
   * tool carries its own (and `schema` then only lets the input through for the server to judge).
   */
  inputSchema?: Record<string, unknown>;
  /** True for tools that only read: the permission default is `allow` for them. */
  readOnly: boolean;
  /**
   * Whether a call can send data out of the machine or to someone other than the owner (a URL,
   * a search query, a message, a remote service): in a turn that has taken in foreign content
   * such a call needs the owner's yes (agent/permissions/trust.ts).
   */
  egress?: boolean;
  /**
   * Whether it reads the owner's private data (memories, inbox, files, the environment): only
   * the owner's profile gets it unless the config grants it by name.
   */
  ownerData?: boolean;
  run(input: I, ctx: ToolContext): Promise<ToolOutput>;
}
