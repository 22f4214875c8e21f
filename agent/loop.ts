import {
  BrainError,
  type Brain,
  type Clock,
  type Embedder,
  type PreparedAttachment,
} from '../src/index.js';
import { loadContext, type CompactionSettings, type SessionCache } from './compaction.js';
import { saidAgain, type Round } from './history.js';
import { acquireTurnLease } from './lease.js';
import { silentLog, type Log } from './log.js';
import { buildSystemPrompt, relevantMemories } from './prompt.js';
import { profileSection } from './profile.js';
import type { SkillCatalog } from './skills/catalog.js';
import { skillsSection } from './skills/section.js';
import {
  ModelError,
  type ChatMessage,
  type ContentBlock,
  type ModelPool,
  type ModelResponse,
  type StopReason,
  type TokenUsage,
  type ToolResultBlock,
  type ToolUseBlock,
} from './models/types.js';
import {
  gateToolCall,
  type ApprovalAnswer,
  type ApprovalRequest,
  type GateResult,
} from './permissions/approvals.js';
import type { Policy } from './permissions/policy.js';
import {
  createTrust,
  markedSources,
  offeredTools,
  trustContext,
  withoutForeign,
  type Driver,
  type MutableTrust,
  type ProfilesConfig,
} from './permissions/trust.js';
import { runToolCall, toolSchemas } from './tools/registry.js';
import { noteSideEffect, noteSideEffectFinished } from './turn-effects.js';
import { untrusted } from './untrusted.js';
import type {
  OutgoingFile,
  SubTurnRequest,
  SubTurnResult,
  Tool,
  ToolContext,
} from './tools/types.js';

/** How a turn talks to whoever asked: streamed text, tool calls as they start, and approvals. */
export interface TurnIo {
  onText(delta: string): void;
  onToolCall?(name: string, input: Record<string, unknown>): void;
  /** The answer being streamed starts over (another endpoint took it): what was shown of it is void. */
  onRestart?(): void;
  /**
   * Ask the owner whether a tool call the policy marks `ask` may run; absent means nobody can
   * answer, so an ask is denied. Its signal aborts when the answer is no longer wanted.
   */
  askApproval?(request: ApprovalRequest): Promise<ApprovalAnswer>;
  /** Send a file to whoever the turn answers (send_file); absent where the channel cannot. */
  sendFile?(file: OutgoingFile): Promise<void>;
}

/** What the loop reads of the assistant's config. */
export interface TurnConfig {
  agent: string;
  owner: string;
  workspace: string;
  maxRounds: number;
  compaction: CompactionSettings;
  /** The memories the system prompt shows. */
  memory: { maxTokens: number; limit: number };
  timeZone?: string | undefined;
}

export interface RunTurnOptions {
  brain: Brain;
  pool: ModelPool;
  /** Summarises old turns; default `pool`. */
  compactionPool?: ModelPool;
  tools: readonly Tool[];
  /**
   * Tools that can change between rounds of one turn (MCP tools that find_tools loads), asked for
   * before each model call and added to `tools`.
   */
  liveTools?: () => readonly Tool[];
  config: TurnConfig;
  clock: Clock;
  /** The session's name, e.g. `chat/default`. */
  session: string;
  /**
   * What was said, and by whom (default the owner; another agent's words are untrusted data).
   * With `messageId` it is already stored, in the session's thread (another agent's message that
   * the inbox answers where it was written): the turn answers that message instead of storing
   * the text again.
   */
  input: { text: string; from?: string; messageId?: string };
  io: TurnIo;
  signal?: AbortSignal;
  /** Usage rows' source: `chat`, `channel`, `heartbeat`, `cron`, … */
  source: string;
  /** Searches by meaning too (memories in the prompt), when the brain has vectors. */
  embedder?: Embedder;
  /**
   * The system prompt for this turn, given the user's text. Default: the workspace files, the
   * time and the memories relevant to the text (agent/prompt.ts).
   */
  systemPrompt?: (text: string) => string | Promise<string>;
  /** One per long-running process: turns then read only the messages new since the last. */
  cache?: SessionCache;
  /** The workspace's skills (agent/skills/): their descriptions in the prompt, use_skill. */
  skills?: SkillCatalog;
  /** USER.md as read now (agent/profile.ts): with it the prompt has the owner's profile. */
  userFile?: (workspace: string) => string | undefined;
  log?: Log;
  /**
   * The permission policy, how long an ask waits, and the tool profiles by driver; absent: every
   * tool call runs.
   */
  permissions?: {
    policy: Policy;
    timeoutMs: number;
    profiles?: ProfilesConfig;
    /**
     * Whether commands can be run cut off from the network (run_command's sandbox is in use);
     * asked only when a tainted turn wants to run one.
     */
    offline?: () => boolean;
  };
  /** Heartbeat, cron, other agents' messages: nobody is asked, so every `ask` is denied. */
  unattended?: boolean;
  /**
   * Who drives the turn (agent/permissions/trust.ts). Default: the owner when the input is the
   * owner's, else another agent.
   */
  driver?: Driver;
  /** Foreign content the turn starts with (a reminder set in a tainted turn): its sources. */
  taint?: readonly string[];
  /**
   * A sub-turn another turn delegated (agent/delegation/): how deep it is, and the owner's words
   * of its caller, which its trust keeps instead of its task (the model's words, not the owner's).
   */
  delegation?: { depth: number; ownerText: string };
  /** After each model call: why the turn must stop (a sub-turn's budget is spent), else undefined. */
  budget?: SubTurnRequest['budget'];
}

export type TurnStop = StopReason | 'max_rounds' | 'breaker' | 'cancelled' | 'budget';

export interface TurnResult {
  reply: string;
  session: string;
  threadId: string;
  messageIds: { user: string; reply: string };
  usage: TokenUsage;
  stopReason: TurnStop;
  cancelled: boolean;
  model?: string;
  endpoint?: string;
  /** Where the foreign content the turn took in came from; absent when none. */
  taint?: readonly string[];
}

/** Said to the user when the no-progress breaker ends a turn. */
export const BREAKER_TEXT =
  'I stopped: I was calling the same tool with the same arguments over and over without getting anywhere.';
export const maxRoundsText = (n: number) =>
  `I stopped after ${n} rounds of tool calls without finishing. Tell me how to go on.`;
const REPEAT_LIMIT = 3;

const zeroUsage = (): TokenUsage => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

/**
 * One turn of a session: the user's message into the brain, the model called with the rebuilt
 * context and the tools until it ends its turn, and the reply (with every tool round) back into the
 * brain. One turn per session at a time, across processes (the session's lease).
 */
export async function runTurn(options: RunTurnOptions): Promise<TurnResult> {
  const { brain, config, io, signal } = options;
  const log = options.log ?? silentLog;
  const from = options.input.from ?? config.owner;
  const driver = driverOf(options);
  const delegated = options.delegation;
  const trust = createTrust(driver, delegated?.ownerText ?? '', options.taint ?? [], !!delegated);
  if (from !== config.owner) trust.taint(`${driver === 'contact' ? 'contact' : 'agent'}:${from}`);
  else {
    trust.taintFrom(options.input.text);
    trust.addOwnerText(withoutForeign(options.input.text));
  }
  const profiles = options.permissions?.profiles;
  // What a turn the owner does not drive may not read: the owner's memories in the prompt.
  const memoriesAllowed =
    driver === 'owner' ||
    driver === 'scheduled' ||
    profiles?.[driver].tools.search_memory === 'allow';
  const session = brain.assistant.session({
    name: options.session,
    agent: config.agent,
    owner: config.owner,
  });
  const lease = await acquireTurnLease(brain, `session:${options.session}`, {
    label: `${options.source} turn`,
    signal,
    log,
  });
  try {
    const user = options.input.messageId
      ? storedInput(brain, options.input.messageId, session.thread_id)
      : (saidAgain(brain, session.thread_id, from, options.input.text) ??
        brain.messages.send({
          from,
          to: config.agent,
          thread: session.thread_id,
          body: options.input.text,
        }));
    log('info', 'turn.start', {
      session: options.session,
      message: user.id,
      source: options.source,
    });
    /** Files sent in this turn: kept with its reply. */
    const sentFiles: PreparedAttachment[] = [];
    const ctx: ToolContext = {
      brain,
      agent: config.agent,
      owner: config.owner,
      threadId: session.thread_id,
      session: options.session,
      turnMessageId: user.id,
      workspace: config.workspace,
      signal: signal ?? new AbortController().signal,
      clock: options.clock,
      taint: () => trust.sources,
      driver,
      depth: delegated?.depth ?? 0,
      turnTools: () => toolsOf(options).map((t) => t.name),
      subTurn: (request) => runSubTurn(options, trust, (delegated?.depth ?? 0) + 1, request),
      ...(io.sendFile
        ? {
            sendFile: async ({
              prepared,
              ...file
            }: OutgoingFile & { prepared: PreparedAttachment }) => {
              // The reply keeps them, and a message carries at most 16 files.
              if (sentFiles.length >= 16)
                throw new BrainError('INVALID_INPUT', 'one reply carries at most 16 files');
              await io.sendFile!(file);
              sentFiles.push(prepared);
            },
          }
        : {}),
    };
    const skills = options.skills && (await options.skills.current());
    const system = options.systemPrompt
      ? await options.systemPrompt(options.input.text)
      : buildSystemPrompt({
          workspace: config.workspace,
          clock: options.clock,
          timeZone: config.timeZone,
          skills: skills && skillsSection(skills, options.skills?.budgetTokens),
          // The owner's profile is the owner's data: shown where the memories are.
          profile:
            memoriesAllowed && options.userFile
              ? profileSection({
                  brain,
                  workspace: config.workspace,
                  owner: config.owner,
                  assistant: config.agent,
                  userFile: options.userFile,
                })
              : undefined,
          memories: memoriesAllowed
            ? foreignMemories(
                trust,
                config,
                await relevantMemories(brain, options.input.text, {
                  ...config.memory,
                  excludeThread: session.thread_id,
                  embedder: options.embedder,
                  timeZone: config.timeZone,
                }),
              )
            : [],
        });
    const usage = zeroUsage();
    /** The last call's usage row, written with the reply (one transaction fewer a turn). */
    let lastUsage: Parameters<Brain['assistant']['recordUsage']>[0] | undefined;
    let overBudget: string | undefined;
    const recordUsage = (r: ModelResponse, source: string, withReply = false) => {
      if (options.budget)
        overBudget ??= options.budget({ model: r.model, endpoint: r.endpoint, usage: r.usage });
      usage.input += r.usage.input;
      usage.output += r.usage.output;
      usage.cacheRead += r.usage.cacheRead;
      usage.cacheWrite += r.usage.cacheWrite;
      const row = {
        source,
        session: options.session,
        model: r.model,
        endpoint: r.endpoint,
        input_tokens: r.usage.input,
        output_tokens: r.usage.output,
        cache_read_tokens: r.usage.cacheRead,
        cache_write_tokens: r.usage.cacheWrite,
        message_id: user.id,
      };
      if (withReply) lastUsage = row;
      else brain.assistant.recordUsage(row);
    };
    const contextOptions = {
      brain,
      cache: options.cache,
      pool: options.pool,
      compactionPool: options.compactionPool ?? options.pool,
      tools: options.tools,
      settings: config.compaction,
      toolContext: ctx,
      system,
      signal,
      log,
      onUsage: (r: ModelResponse) => recordUsage(r, 'compaction'),
    };
    let history = questionLast(await loadContext({ ...contextOptions, force: false }), options);
    trustContext(trust, history);

    const rounds: Round[] = [];
    const turn: ChatMessage[] = [];
    const calls = new Map<string, number>();
    let last: ModelResponse | undefined;
    let reply = '';
    let stop: TurnStop = 'end_turn';
    let retriedTooLong = false;
    let failure: unknown;

    for (;;) {
      let partial = '';
      let response: ModelResponse;
      const schemas = toolSchemas(toolsOf(options));
      try {
        response = await options.pool.complete({
          system,
          messages: [...history, ...turn],
          tools: schemas,
          signal,
          onText: (delta) => {
            partial += delta;
            io.onText(delta);
          },
          onRestart: () => {
            partial = '';
            io.onRestart?.();
          },
        });
      } catch (err) {
        if (signal?.aborted || (err instanceof ModelError && err.kind === 'aborted')) {
          reply = partial;
          stop = 'cancelled';
          break;
        }
        if (err instanceof ModelError && err.kind === 'context_too_long' && !retriedTooLong) {
          retriedTooLong = true;
          log('warn', 'turn.context_too_long', { session: options.session });
          history = questionLast(await loadContext({ ...contextOptions, force: true }), options);
          trustContext(trust, history);
          continue;
        }
        failure = err;
        break;
      }
      last = response;
      const content = response.content.filter(
        (b) => b.type === 'tool_use' || (b.type === 'text' && b.text.length > 0),
      ) as Round['content'];
      const uses = content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
      recordUsage(response, options.source, uses.length === 0);
      if (uses.length === 0) {
        reply = textOf(content);
        stop = response.stopReason;
        break;
      }

      const results: ToolResultBlock[] = [];
      let halt: 'max_rounds' | 'breaker' | 'budget' | undefined =
        rounds.length >= config.maxRounds ? 'max_rounds' : overBudget ? 'budget' : undefined;
      for (const use of uses) {
        if (signal?.aborted) {
          results.push(errorResult(use, 'cancelled: the user stopped the turn'));
          continue;
        }
        if (halt === 'max_rounds') {
          results.push(
            errorResult(use, `not run: the turn reached its limit of ${config.maxRounds} rounds`),
          );
          continue;
        }
        if (halt === 'budget') {
          results.push(errorResult(use, `not run: ${overBudget}`));
          continue;
        }
        const key = `${use.name} ${stableJson(use.input)}`;
        const seen = (calls.get(key) ?? 0) + 1;
        calls.set(key, seen);
        if (halt === 'breaker' || seen >= REPEAT_LIMIT) {
          halt = 'breaker';
          results.push(
            errorResult(use, 'not run: the same call was made three times in this turn'),
          );
          continue;
        }
        const gate = await checkPermission(options, use, ctx, trust);
        if (!gate.allowed) {
          log('info', 'turn.tool_refused', { tool: use.name });
          results.push(errorResult(use, gate.message));
          continue;
        }
        io.onToolCall?.(use.name, use.input);
        log('debug', 'turn.tool', { tool: use.name });
        // Noted before it runs: a turn cut short after this is told about, not run again.
        const effect = toolsOf(options).find((t) => t.name === use.name)?.readOnly === false;
        if (effect) noteSideEffect(brain, options.session, { message: user.id, tool: use.name });
        const result = await runToolCall(
          toolsOf(options),
          use,
          gate.offline ? { ...ctx, network: false } : ctx,
        );
        if (effect) noteSideEffectFinished(brain, options.session, user.id);
        trust.taintFrom(result.content);
        results.push(result);
      }
      rounds.push({ content, results });
      turn.push({ role: 'assistant', content }, { role: 'user', content: results });
      if (signal?.aborted) {
        stop = 'cancelled';
        break;
      }
      if (halt) {
        stop = halt;
        reply =
          halt === 'breaker'
            ? BREAKER_TEXT
            : halt === 'budget'
              ? `I stopped: ${overBudget}.`
              : maxRoundsText(config.maxRounds);
        io.onText(`${partialSeparator(content)}${reply}`);
        log('warn', `turn.${halt}`, { session: options.session, rounds: rounds.length });
        break;
      }
    }

    const cancelled = stop === 'cancelled';
    if (failure !== undefined && rounds.length === 0) throw failure;
    const failedText =
      failure === undefined ? undefined : `(the turn failed: ${(failure as Error).message})`;
    const body = failedText ?? (reply.trim() || (cancelled ? '(cancelled)' : '(no reply)'));
    // The reply, the question it answers marked read in the assistant's inbox and the last call's
    // usage: one transaction.
    const sent = brain.batch(() => {
      if (lastUsage) brain.assistant.recordUsage(lastUsage);
      brain.messages.markRead({ message_id: user.id, agent: config.agent });
      return brain.messages.send(
        {
          from: config.agent,
          to: from,
          thread: session.thread_id,
          reply_to: user.id,
          body,
          metadata: {
            assistant: {
              rounds,
              model: last?.model ?? null,
              endpoint: last?.endpoint ?? null,
              usage,
              stop_reason: stop,
              /** What the last call's context cost: how compaction estimates the next turn's. */
              context_tokens: last ? contextTokens(last.usage) : null,
              ...(cancelled ? { cancelled: true } : {}),
              ...(driver === 'owner' ? {} : { driver }),
              ...(trust.sources.length > 0 ? { taint: trust.sources } : {}),
              ...(failedText ? { error: failedText } : {}),
            },
          },
        },
        sentFiles,
      );
    });
    log('info', 'turn.end', {
      session: options.session,
      reply: sent.id,
      rounds: rounds.length,
      stop,
      input_tokens: usage.input,
      output_tokens: usage.output,
    });
    if (failure !== undefined) throw failure;
    return {
      reply: body,
      session: options.session,
      threadId: session.thread_id,
      messageIds: { user: user.id, reply: sent.id },
      usage,
      stopReason: stop,
      cancelled,
      model: last?.model,
      endpoint: last?.endpoint,
      ...(trust.sources.length > 0 ? { taint: trust.sources } : {}),
    };
  } finally {
    lease.release();
  }
}

/**
 * A sub-turn of this turn (agent/delegation/): in its own session, with only those of the
 * requested tools this turn may use now, the same driver, policy and profiles, the taint and the
 * owner's words this turn has, unattended unless it may ask whoever this turn asks, one level
 * deeper. It stops when `request.signal` aborts (the caller chains it to this turn's).
 */
async function runSubTurn(
  parent: RunTurnOptions,
  trust: MutableTrust,
  depth: number,
  request: SubTurnRequest,
): Promise<SubTurnResult> {
  const wanted = new Set(request.tools);
  const ask = request.asks ? parent.io.askApproval?.bind(parent.io) : undefined;
  return runTurn({
    brain: parent.brain,
    pool: parent.pool,
    ...(parent.compactionPool ? { compactionPool: parent.compactionPool } : {}),
    tools: toolsOf(parent).filter((t) => wanted.has(t.name)),
    config: { ...parent.config, maxRounds: request.maxRounds },
    clock: parent.clock,
    session: request.session,
    input: { text: request.text },
    io: { onText: () => {}, ...(ask ? { askApproval: ask } : {}) },
    signal: request.signal,
    source: request.source,
    ...(parent.embedder ? { embedder: parent.embedder } : {}),
    ...(parent.systemPrompt ? { systemPrompt: parent.systemPrompt } : {}),
    ...(parent.cache ? { cache: parent.cache } : {}),
    ...(parent.log ? { log: parent.log } : {}),
    ...(parent.permissions ? { permissions: parent.permissions } : {}),
    unattended: (parent.unattended ?? false) || !ask,
    driver: trust.driver,
    taint: trust.sources,
    delegation: { depth, ownerText: trust.ownerText },
    budget: request.budget,
  });
}

/**
 * A stored input can have replies after it (two messages from another agent in one thread, the
 * first turn answering both): the context then ends with the assistant, so the question this turn
 * answers is said again at the end, as what it is (not stored again).
 */
function questionLast(history: ChatMessage[], options: RunTurnOptions): ChatMessage[] {
  if (!options.input.messageId || history.at(-1)?.role !== 'assistant') return history;
  const { text, from } = options.input;
  const said =
    from === undefined || from === options.config.owner ? text : untrusted(`agent:${from}`, text);
  return [...history, { role: 'user', content: [{ type: 'text', text: said }] }];
}

/** The turn's input when it is a message already in the session's thread. */
function storedInput(brain: Brain, id: string, threadId: string): { id: string } {
  const message = brain.messages.getMessage(id);
  if (!message) throw new BrainError('NOT_FOUND', `input.messageId: no message ${id}`);
  if (message.thread_id !== threadId)
    throw new BrainError('INVALID_INPUT', `input.messageId: ${id} is not in ${threadId}`);
  return message;
}

/**
 * The policy's word on one call, recorded in the brain: whether it may run (and how), else the
 * error the model reads. A call to an unknown tool or with input its schema refuses is left to
 * runToolCall, which answers it with an error and runs nothing.
 */
async function checkPermission(
  options: RunTurnOptions,
  use: ToolUseBlock,
  ctx: ToolContext,
  trust: MutableTrust,
): Promise<GateResult> {
  if (!options.permissions) return { allowed: true };
  const tool = toolsOf(options).find((t) => t.name === use.name);
  if (!tool || !tool.schema.safeParse(use.input).success) return { allowed: true };
  return gateToolCall({
    brain: options.brain,
    policy: options.permissions.policy,
    tool,
    input: use.input,
    session: options.session,
    turnMessageId: ctx.turnMessageId,
    workspace: ctx.workspace,
    timeoutMs: options.permissions.timeoutMs,
    unattended: options.unattended ?? false,
    trust,
    ...(options.permissions.profiles ? { profiles: options.permissions.profiles } : {}),
    ...(options.permissions.offline ? { offline: options.permissions.offline } : {}),
    ask: options.io.askApproval?.bind(options.io),
    signal: options.signal,
  });
}

function textOf(content: ContentBlock[]): string {
  return content
    .flatMap((b) => (b.type === 'text' ? [b.text] : []))
    .join('')
    .trim();
}

function errorResult(use: ToolUseBlock, content: string): ToolResultBlock {
  return { type: 'tool_result', tool_use_id: use.id, content, is_error: true };
}

/** A blank line between the round's streamed text and the stop message, when there was text. */
function partialSeparator(content: ContentBlock[]): string {
  return content.some((b) => b.type === 'text') ? '\n\n' : '';
}

export function contextTokens(usage: TokenUsage): number {
  return usage.input + usage.cacheRead + usage.cacheWrite + usage.output;
}

/** JSON with keys sorted at every level: the same arguments give the same string. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** The turn's tools as they are now: the fixed ones and the live ones its driver is offered. */
function toolsOf(options: RunTurnOptions): readonly Tool[] {
  const skills = options.skills?.tools() ?? [];
  const all =
    options.liveTools || skills.length > 0
      ? [...options.tools, ...(options.liveTools?.() ?? []), ...skills]
      : options.tools;
  const profiles = options.permissions?.profiles;
  if (!profiles) return all;
  return offeredTools(all, profiles, driverOf(options));
}

/** Who drives the turn: as the caller says, else the owner when the words are the owner's. */
function driverOf(options: RunTurnOptions): Driver {
  if (options.driver) return options.driver;
  const from = options.input.from ?? options.config.owner;
  return from === options.config.owner ? 'owner' : 'agent';
}

/**
 * The memories the prompt shows; one written by anyone but the owner or the assistant taints, and
 * so does one the assistant saved in a tainted turn or one that quotes foreign content (a message
 * of the owner's with a forwarded text in it).
 */
function foreignMemories<M extends { id: string; agent: string; text: string; foreign?: boolean }>(
  trust: MutableTrust,
  config: TurnConfig,
  memories: M[],
): M[] {
  for (const m of memories) {
    if (m.agent !== config.owner && m.agent !== config.agent) trust.taint(`memory:${m.agent}`);
    else if (m.foreign || markedSources(m.text).length > 0) trust.taint(`memory:${m.id}`);
  }
  return memories;
}
