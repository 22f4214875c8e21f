import { systemClock, type Brain, type CronRunRecord } from '../../src/index.js';
import type { AssistantConfig } from '../config.js';
import type { ChannelTarget, ServiceHost } from '../contracts.js';
import { streamLog, type Log } from '../log.js';
import { sendOnlyChannels } from '../channels/senders.js';
import { createServiceHost } from '../service/host.js';
import { createCronComponent, type CronRunResult } from './cron.js';
import { createHeartbeat, type HeartbeatOutcome } from './heartbeat.js';

/**
 * `brain heartbeat` and `brain cron run`: one scheduled turn now, in this process, delivered
 * through the configured channels' send APIs (agent/channels/senders.ts) with no poller running.
 * What was delivered is returned with where it went; what no channel took counts as not
 * delivered.
 */

/** One text sent or tried: where it went (`to`), or null when nothing took it. */
export interface Delivery {
  text: string;
  to: string | null;
  /** Where it was meant to go, said for a person. */
  where: string;
}

export interface RunNowOptions {
  brain: Brain;
  config: AssistantConfig;
  /** Default: warnings and errors on stderr. */
  log?: Log;
}

export async function runHeartbeat(
  options: RunNowOptions & { force?: boolean },
): Promise<HeartbeatOutcome & { deliveries: Delivery[] }> {
  return withHost(options, async (host, deliveries) => {
    const beat = createHeartbeat();
    await beat.start(host);
    try {
      return { ...(await beat.tick({ force: options.force ?? false })), deliveries: deliveries() };
    } finally {
      await beat.stop();
    }
  });
}

export async function runCron(
  options: RunNowOptions & { job: string },
): Promise<{ result: CronRunResult; deliveries: Delivery[] }> {
  return withHost(options, async (host, deliveries) => ({
    result: await createCronComponent().runNow(options.job, host),
    deliveries: deliveries(),
  }));
}

export type { CronRunRecord, CronRunResult, HeartbeatOutcome };

async function withHost<T>(
  options: RunNowOptions,
  run: (host: ServiceHost, deliveries: () => Delivery[]) => Promise<T>,
): Promise<T> {
  const { brain, config } = options;
  const log =
    options.log ?? streamLog((line) => void process.stderr.write(`brain: ${line}`), 'warn');
  const real = createServiceHost({ brain, config, clock: systemClock, log });
  real.setComponents(await sendOnlyChannels(config, log));
  const out: Delivery[] = [];
  const host: ServiceHost = {
    ...real,
    async deliver(text: string, target?: ChannelTarget) {
      const to = target ?? ownerTarget(brain, config.agent);
      const sent = await real.deliver(text, target);
      const where = to ? `${to.channel}:${to.chatId}` : 'nowhere: no deliverTo, no owner chat yet';
      out.push({ text, to: sent && to ? `${to.channel}:${to.chatId}` : null, where });
      return sent;
    },
  };
  try {
    return await run(host, () => [...out]);
  } finally {
    await real.close();
  }
}

function ownerTarget(brain: Brain, agent: string): ChannelTarget | undefined {
  const row = brain.assistant.ownerTarget(agent);
  return row ? { channel: row.channel, chatId: row.chat_id } : undefined;
}
