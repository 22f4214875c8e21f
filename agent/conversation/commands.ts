import { estimateCost, type Brain } from '../../src/index.js';
import type { AssistantConfig } from '../config.js';
import type { ArrivalTurn, ServiceHost, SessionModels } from '../contracts.js';
import { taskSession } from './sessions.js';

/**
 * The conversation's slash commands, the same on every channel (terminal, Telegram, Discord):
 * the channel finds the command, this module decides and answers, and the model never sees it
 * (a command costs no call). Who may do what follows who speaks: the owner may change the owner's
 * state (`/model`, `/usage`); anyone else in a chat may ask for `/help`, `/status`, and `/new` or
 * `/stop` of the session they speak in, which is their own.
 */

export const COMMAND_NAMES = ['help', 'new', 'stop', 'status', 'model', 'usage'] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

export const HELP_TEXT = [
  '/new starts a fresh conversation (the old one stays searchable)',
  '/stop cancels what I am doing; /stop task/N stops a task running in the background',
  '/status says what I am doing: model, session, context, queued work',
  '/model lists the models; /model NAME uses NAME in this conversation',
  '/usage shows this conversation’s tokens and cost',
  'Anything else you write is for me to answer.',
].join('\n');

/** A line that is a command: `/name`, `/name@bot` or `/name args`; undefined for anything else. */
export function parseCommand(
  text: string,
): { name: string; arg: string; bot?: string } | undefined {
  const m = /^\/([a-z]+)(?:@(\w+))?(?:\s+([\s\S]*))?$/i.exec(text.trim());
  if (!m) return undefined;
  return { name: m[1]!.toLowerCase(), arg: (m[3] ?? '').trim(), ...(m[2] ? { bot: m[2] } : {}) };
}

/**
 * A line that names one of the commands: what the terminal and Discord take as a command, so that
 * "/tmp is full, why?" still reaches the model. (Telegram takes any `/word`, its convention.)
 */
export function knownCommand(text: string): { name: string; arg: string } | undefined {
  const command = parseCommand(text);
  return command && (COMMAND_NAMES as readonly string[]).includes(command.name)
    ? command
    : undefined;
}

/**
 * `/model` choices, kept in the brain when one is given (`model:<session>` in the scheduler's
 * state), so that a choice outlives a restart and holds in `brain chat` and `brain agent` alike.
 */
export function createSessionModels(brain?: Brain): SessionModels {
  const chosen = new Map<string, number>();
  const key = (session: string) => `model:${session}`;
  return {
    get(session) {
      if (!brain) return chosen.get(session);
      const stored = brain.assistant.schedulerState(key(session)) as
        { endpoint?: unknown } | undefined;
      return typeof stored?.endpoint === 'number' ? stored.endpoint : undefined;
    },
    set(session, endpoint) {
      if (brain)
        brain.assistant.setSchedulerState(key(session), endpoint === undefined ? {} : { endpoint });
      else if (endpoint === undefined) chosen.delete(session);
      else chosen.set(session, endpoint);
    },
  };
}

/** What a command may look at and change, given by the channel it was typed in. */
export interface CommandScope {
  brain: Brain;
  config: AssistantConfig;
  /** The session the command was typed in. */
  session: string;
  /** The owner typed it: only then may it change or read the owner's state. */
  owner: boolean;
  models: SessionModels;
  /** Whether a turn of the session runs or waits. */
  busy(): boolean;
  /** Cancel the session's running and queued turns. */
  cancel(): void;
  /**
   * Stop a background task (its session `task/<id>`): true when it was queued or running. Absent
   * where no task runs in the background (`brain chat`).
   */
  cancelTask?(session: string): boolean;
  /** Turns waiting in the lane, and approvals waiting for an answer, when the channel knows. */
  queued?(): number;
  approvalsWaiting?(): number;
}

export interface CommandResult {
  /** What to tell the speaker; empty when the channel says it its own way (`/stop`'s "Stopped."). */
  reply: string;
  /** `/stop` or `/new` cancelled a running turn. */
  cancelled: boolean;
}

const OWNER_ONLY = 'Only the owner can do that.';

/** Run a command; an unknown name answers with the help. */
/**
 * A command typed in a chat of the service (Telegram, Discord), in the session its arrival turn
 * names: the owner's own only when the owner drives it. `models` is the channel's own when the
 * host keeps none (a test's host); `approvalsWaiting` counts the channel's open prompts.
 */
export function runChatCommand(
  host: ServiceHost,
  turn: ArrivalTurn,
  command: { name: string; arg: string },
  channel: { models: SessionModels; approvalsWaiting(): number },
): CommandResult {
  const { session } = turn;
  return runCommand(command.name, command.arg, {
    brain: host.brain,
    config: host.config(),
    session,
    owner: turn.driver === 'owner',
    models: host.sessionModels ?? channel.models,
    busy: () => host.busy(session),
    cancel: () => void host.cancelSession(session),
    cancelTask(task) {
      const busy = host.busy(task);
      host.cancelSession(task);
      return busy;
    },
    ...(host.queuedTurns ? { queued: host.queuedTurns } : {}),
    approvalsWaiting: channel.approvalsWaiting,
  });
}

export function runCommand(name: string, arg: string, scope: CommandScope): CommandResult {
  const { brain, config, session } = scope;
  const done = (reply: string, cancelled = false): CommandResult => ({ reply, cancelled });
  switch (name) {
    case 'new': {
      const cancelled = scope.busy();
      if (cancelled) scope.cancel();
      const fresh = brain.assistant.newSession({
        name: session,
        agent: config.agent,
        owner: config.owner,
      });
      return done(
        `Fresh start (thread ${fresh.thread_id}); the old conversation stays searchable.`,
        cancelled,
      );
    }
    case 'stop': {
      if (arg.startsWith('task/')) return done(stopTask(scope, arg));
      if (!scope.busy()) return done('Nothing is running.');
      scope.cancel();
      return done('', true);
    }
    case 'status':
      return done(status(scope));
    case 'model':
      return scope.owner ? done(model(scope, arg)) : done(OWNER_ONLY);
    case 'usage':
      return scope.owner ? done(usage(scope)) : done(OWNER_ONLY);
    default:
      return done(HELP_TEXT);
  }
}

/** The endpoint a session's turns use: the one `/model` chose, else the pool's first. */
export function endpointLabel(config: AssistantConfig, index: number | undefined): string {
  if (index === undefined) {
    const first = config.models.endpoints[0];
    return first ? `${first.model} (${first.provider})` : 'none';
  }
  const e = config.models.endpoints[index];
  return e ? `${e.model} (${e.provider}, chosen with /model)` : 'none';
}

function status(scope: CommandScope): string {
  const { brain, config, session } = scope;
  const current = brain.assistant.sessions().find((s) => s.name === session);
  const lines = [
    `Session ${session}${current ? ` (thread ${current.thread_id})` : ' (no messages yet)'}`,
    scope.busy() ? 'Working on a turn.' : 'Idle.',
  ];
  // A contact sees their own session's state; the model, the lane and the owner's approvals are
  // the owner's to know.
  if (!scope.owner) return lines.join('\n');
  lines.push(`Model: ${endpointLabel(config, scope.models.get(session))}.`);
  const context = current ? contextUse(brain, current.thread_id, config.agent) : undefined;
  if (context !== undefined)
    lines.push(
      `Context: ${context} tokens of ${config.compaction.thresholdTokens} before compaction.`,
    );
  const queued = scope.queued?.() ?? 0;
  if (queued > 0) lines.push(`Queued turns: ${queued}.`);
  const waiting = scope.approvalsWaiting?.() ?? 0;
  if (waiting > 0) lines.push(`Approvals waiting: ${waiting}.`);
  lines.push(...runningTasks(brain));
  return lines.join('\n');
}

/** `/stop task/N`: the owner stops a task running in the background (agent/delegation/). */
function stopTask(scope: CommandScope, arg: string): string {
  if (!scope.owner) return OWNER_ONLY;
  const id = /^task\/(\d{1,12})$/.exec(arg)?.[1];
  if (id === undefined) return '/stop task/N stops task N; /status lists the tasks running.';
  const session = taskSession(Number(id));
  if (!scope.cancelTask?.(session)) return `${session} is not running in the background here.`;
  return `Stopping ${session}; you will be told when it has stopped.`;
}

/** Delegated tasks under way, in any session and process: one line each. */
function runningTasks(brain: Brain): string[] {
  const tasks = brain.assistant.delegations({ running: true, limit: 10 });
  if (tasks.length === 0) return [];
  return [
    `Tasks running: ${tasks.length}${tasks.length === 10 ? ' or more' : ''}.`,
    ...tasks.map((t) => {
      const task = t.task.length > 80 ? `${t.task.slice(0, 79)}…` : t.task;
      return `  ${taskSession(t.id)} (from ${t.session}, since ${t.started_at}${t.wait ? '' : ', in the background'}): ${task.replace(/\s+/g, ' ')}`;
    }),
  ];
}

/** The context size the session's last reply reported (agent/loop.ts `context_tokens`). */
function contextUse(brain: Brain, threadId: string, agent: string): number | undefined {
  const summary = brain.assistant.latestSummary(threadId);
  const records = brain.assistant.sessionMessages({
    thread_id: threadId,
    after: summary?.covers_through,
  });
  for (let i = records.length - 1; i >= 0; i--) {
    const m = records[i]!;
    const reported = (m.metadata.assistant as { context_tokens?: unknown } | undefined)
      ?.context_tokens;
    if (m.from === agent && typeof reported === 'number') return reported;
  }
  return undefined;
}

function model(scope: CommandScope, arg: string): string {
  const { config, session } = scope;
  const endpoints = config.models.endpoints;
  const chosen = scope.models.get(session);
  if (arg === '') {
    const lines = endpoints.map((e, i) => {
      const mark = (chosen ?? 0) === i ? ' (in use)' : '';
      return `${i + 1}. ${e.model} (${e.provider})${mark}`;
    });
    return [...lines, '/model NAME or /model NUMBER picks one; /model default goes back.'].join(
      '\n',
    );
  }
  if (arg === 'default') {
    scope.models.set(session, undefined);
    return `Back to the configured order: ${endpointLabel(config, undefined)}.`;
  }
  const byNumber = /^\d+$/.test(arg) ? Number(arg) - 1 : -1;
  const index = endpoints[byNumber] ? byNumber : endpoints.findIndex((e) => e.model === arg);
  if (index < 0) return `No configured model is called ${arg}; /model lists them.`;
  scope.models.set(session, index);
  const e = endpoints[index]!;
  return `This conversation now uses ${e.model} (${e.provider}) until /model default or a restart.`;
}

function usage(scope: CommandScope): string {
  const rows = scope.brain.assistant.usage({ by: 'model', session: scope.session });
  if (rows.length === 0) return `No model calls in ${scope.session} yet.`;
  const lines = rows.map((r) => {
    const cost = estimateCost(r.models);
    const price = cost === null ? 'cost unknown' : `$${cost.toFixed(4)}`;
    return `${r.key}: ${r.calls} calls, ${r.input_tokens} in / ${r.output_tokens} out (cache ${r.cache_read_tokens} read, ${r.cache_write_tokens} written), ${price}`;
  });
  return [`Usage of ${scope.session}:`, ...lines].join('\n');
}
