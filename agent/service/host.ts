import type { Brain, Clock, Embedder } from '../../src/index.js';
import { createAssistant, type Assistant } from '../assistant.js';
import { OWNER_SESSION } from '../conversation/sessions.js';
import type { AssistantConfig } from '../config.js';
import type { Log } from '../log.js';
import type { Driver } from '../permissions/trust.js';
import type { TurnResult } from '../loop.js';
import type { Tool } from '../tools/types.js';
import { createSessionModels } from '../conversation/commands.js';
import { createLane, type Lane } from './lane.js';
import { TurnCancelledError } from '../contracts.js';
import type {
  Channel,
  ChannelTarget,
  QueuedTurn,
  ServiceComponent,
  ServiceHost,
  TurnOrigin,
  TurnRequest,
} from '../contracts.js';

/**
 * The host `brain agent` gives its components (agent/service/types.ts): the running config, the
 * one lane every turn goes through, the owner's identities and session, and delivery to the
 * owner through whichever channel component can reach them.
 *
 * How a test builds one (see test/agent/service/helpers.ts, `serviceFixture()`, which does this):
 *
 *   const t = tempBrain();                                   // test/helpers.ts
 *   const fake = await startFakeAnthropic();                 // test/fakes/anthropic.ts
 *   const config = { ...loadAssistantConfig({ file, env }) } // models.endpoints[0].baseUrl = fake.baseUrl,
 *                                                            // env ANTHROPIC_API_KEY: 'sk-test'
 *   const host = createServiceHost({ brain: t.brain, config, clock: systemClock, log });
 *   host.setComponents([myChannel]);                          // what deliver() and tools come from
 *   await myChannel.start(host);
 *   const turn = host.enqueue({ session: 'telegram/1', text: 'hi', source: 'channel',
 *                               priority: 'owner', unattended: false, io: { onText() {} } });
 *   const result = await turn.done;                           // the real loop against the fake model
 *   await host.close();                                       // cancels what is left; brain stays open
 *
 * By default the host makes the real assistant (`createAssistant`) from the config; each turn
 * gets the components' `tools(session, origin)` (origin from the request: `turnOrigin`); a test
 * may pass `assistant` to make its own.
 */

/** What the host needs of the assistant: a turn of a session (agent/chat.ts `Assistant`). */
export type AssistantLike = Pick<Assistant, 'turn'>;

export interface ServiceHostOptions {
  brain: Brain;
  config: AssistantConfig;
  clock: Clock;
  log: Log;
  embedder?: Embedder;
  /** Makes the assistant for a config; called again on each reconfiguration. Default: `createAssistant`. */
  assistant?: (config: AssistantConfig) => AssistantLike;
  components?: readonly ServiceComponent[];
}

export interface RunningServiceHost extends ServiceHost {
  readonly lane: Lane;
  /** The components whose channels deliver and whose tools the model gets. */
  setComponents(components: readonly ServiceComponent[]): void;
  components(): readonly ServiceComponent[];
  /** Replace the running config (live reload): the lane's limit and the assistant follow it. */
  setConfig(config: AssistantConfig): void;
  /** Every component's tools for a turn of a session. */
  componentTools(session: string, origin: TurnOrigin): readonly Tool[];
  /** Cancel queued turns, cancel running ones after `graceMs`, and wait until none runs. */
  close(options?: { graceMs?: number }): Promise<void>;
}

const isChannel = (c: ServiceComponent): c is Channel =>
  typeof (c as Partial<Channel>).notify === 'function' &&
  typeof (c as Partial<Channel>).channel === 'string';

/** Who drives a turn, when the request does not say: the scheduler, the owner, or another agent. */
export function driverOf(request: TurnRequest): Driver {
  if (request.driver) return request.driver;
  if (request.priority === 'scheduled') return 'scheduled';
  return request.from === undefined ? 'owner' : 'agent';
}

/** Who drives a turn: the owner unless someone else's words are its text (`from`, `foreignText`). */
export function turnOrigin(request: TurnRequest): TurnOrigin {
  const driver = driverOf(request);
  return {
    owner:
      (driver === 'owner' || driver === 'scheduled') &&
      request.from === undefined &&
      request.foreignText !== true,
    driver,
    priority: request.priority,
    source: request.source,
    unattended: request.unattended,
  };
}

export function createServiceHost(options: ServiceHostOptions): RunningServiceHost {
  const { brain, clock, log } = options;
  let config = options.config;
  let components: readonly ServiceComponent[] = options.components ?? [];
  let closed = false;

  const componentTools = (session: string, origin: TurnOrigin): readonly Tool[] =>
    components.flatMap((c) => (c.tools ? [...c.tools(session, origin)] : []));
  // Kept in the brain: a `/model` choice outlives reconfigurations and restarts.
  const sessionModels = createSessionModels(brain);
  const makeAssistant =
    options.assistant ??
    ((cfg: AssistantConfig) =>
      createAssistant({
        brain,
        config: cfg,
        clock,
        log,
        embedder: options.embedder,
        sessionModels,
      }));
  let assistant = makeAssistant(config);

  const run = async (request: TurnRequest, signal: AbortSignal): Promise<TurnResult> => {
    const started = clock().getTime();
    const origin = turnOrigin(request);
    log('info', 'lane.start', {
      session: request.session,
      source: request.source,
      priority: request.priority,
    });
    try {
      const result = await (request.run?.(signal) ??
        assistant.turn(request.session, request.text, request.io, {
          signal,
          source: request.source,
          unattended: request.unattended,
          ...(request.from === undefined ? {} : { from: request.from }),
          ...(request.messageId === undefined ? {} : { messageId: request.messageId }),
          tools: () => componentTools(request.session, origin),
          driver: origin.driver,
          ...(request.taint?.length ? { taint: request.taint } : {}),
        }));
      log('info', 'lane.done', {
        session: request.session,
        stop: result.stopReason,
        ms: clock().getTime() - started,
      });
      return result;
    } catch (err) {
      if (signal.aborted) {
        log('info', 'lane.cancelled', { session: request.session });
        throw signal.reason instanceof Error
          ? signal.reason
          : new TurnCancelledError(request.session);
      }
      log('warn', 'lane.failed', {
        session: request.session,
        code: (err as { code?: string }).code ?? 'ERROR',
        error: (err as Error).message,
      });
      throw err;
    }
  };

  const lane = createLane({ maxConcurrent: config.lane.maxConcurrent, run });
  let lastTarget: string | undefined;

  const host: RunningServiceHost = {
    brain,
    clock,
    log,
    lane,
    sessionModels,
    queuedTurns: () => lane.queued,
    config: () => config,
    enqueue(request): QueuedTurn {
      if (closed) {
        const done = Promise.reject(
          new TurnCancelledError(request.session, 'the service is stopping'),
        );
        done.catch(() => {});
        return { done, cancel() {} };
      }
      log('debug', 'turn.queued', { session: request.session, priority: request.priority });
      return lane.enqueue(request);
    },
    cancelSession: (session) => lane.cancelSession(session),
    busy: (session) => lane.busy(session),
    ownerSession: () => OWNER_SESSION,
    isOwner({ channel, userId }) {
      const id = (config.ownerIdentities as Record<string, string | undefined>)[channel];
      return id !== undefined && id === String(userId);
    },
    noteOwnerTarget(target) {
      const key = `${target.channel}:${target.chatId}`;
      if (key === lastTarget) return;
      try {
        brain.assistant.setOwnerTarget({
          agent: config.agent,
          channel: target.channel,
          chat_id: target.chatId,
        });
        lastTarget = key;
      } catch (err) {
        log('warn', 'owner_target.not_saved', { error: (err as Error).message });
      }
    },
    async deliver(text, target) {
      const to = target ?? storedTarget();
      if (!to) {
        log('warn', 'deliver.no_target', { chars: text.length });
        return false;
      }
      const channel = components.find((c) => isChannel(c) && c.channel === to.channel) as
        Channel | undefined;
      if (!channel) {
        log('warn', 'deliver.no_channel', { channel: to.channel });
        return false;
      }
      try {
        await channel.notify(to.chatId, text);
        log('info', 'deliver.sent', { channel: to.channel, chars: text.length });
        return true;
      } catch (err) {
        log('warn', 'deliver.failed', { channel: to.channel, error: (err as Error).message });
        return false;
      }
    },
    setComponents(list) {
      components = list;
    },
    components: () => components,
    channels: () => components.filter(isChannel),
    setConfig(next) {
      config = next;
      lane.setMaxConcurrent(next.lane.maxConcurrent);
      assistant = makeAssistant(next);
    },
    componentTools,
    async close(closeOptions = {}) {
      closed = true;
      lane.cancelAll('the service is stopping');
      if (lane.running === 0) return;
      const grace = closeOptions.graceMs ?? 0;
      let timer: ReturnType<typeof setTimeout> | undefined;
      if (grace > 0) {
        await Promise.race([
          lane.idle(),
          new Promise<void>((resolve) => (timer = setTimeout(resolve, grace))),
        ]);
        clearTimeout(timer);
      }
      lane.cancelAll('the service is stopping', { running: true });
      await lane.idle();
    },
  };

  function storedTarget(): ChannelTarget | undefined {
    const row = brain.assistant.ownerTarget(config.agent);
    return row ? { channel: row.channel, chatId: row.chat_id } : undefined;
  }

  return host;
}
