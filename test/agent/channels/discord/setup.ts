import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAssistant } from '../../../../agent/chat.js';
import { loadAssistantConfig, type AssistantConfig } from '../../../../agent/config.js';
import {
  createDiscordChannel,
  type DiscordChannel,
} from '../../../../agent/channels/discord/channel.js';
import { streamLog, type Log } from '../../../../agent/log.js';
import type { QueuedTurn, ServiceHost, TurnRequest } from '../../../../agent/service/types.js';
import { systemClock } from '../../../../src/index.js';
import { tempBrain, type TempBrain } from '../../../helpers.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../fakes/anthropic-server.js';
import { startFakeDiscord, type FakeDiscord, type FakeGuild } from '../../fakes/discord-server.js';

export const OWNER = { id: '100000000000000001', username: 'ann' };
export const FRIEND = { id: '100000000000000002', username: 'bob' };
export const STRANGER = { id: '100000000000000003', username: 'eve' };
export const OWNER_DM = '300000000000000001';
export const FRIEND_DM = '300000000000000002';
export const STRANGER_DM = '300000000000000003';
export const GUILD = '400000000000000001';
export const GUILD_CHANNEL = '400000000000000011';

export interface DiscordFixture {
  t: TempBrain;
  anthropic: FakeAnthropic;
  discord: FakeDiscord;
  config: AssistantConfig;
  host: ServiceHost & { requests: TurnRequest[] };
  channel: DiscordChannel;
  /** Every log line, at every level. */
  logLines: string[];
  close(): Promise<void>;
}

/**
 * The channel against the loopback Discord and the real assistant on the fake Anthropic API.
 * The host is a small stand-in for agent/service's (each request runs as one `assistant.turn`):
 * it implements the same contract, agent/service/types.ts.
 */
export async function discordFixture(
  options: { guilds?: FakeGuild[]; discord?: Record<string, unknown> } = {},
): Promise<DiscordFixture> {
  const t = tempBrain();
  const anthropic = await startFakeAnthropic();
  const discord = await startFakeDiscord({
    guilds: options.guilds ?? [{ id: GUILD, channelIds: [GUILD_CHANNEL] }],
  });
  const workspace = join(t.dir, 'ws');
  mkdirSync(join(workspace, 'build'), { recursive: true });
  writeFileSync(join(workspace, 'build', 'out.js'), 'built');
  const file = join(t.dir, 'assistant.json');
  writeFileSync(
    file,
    JSON.stringify({
      agent: 'assistant',
      owner: 'ann',
      workspace,
      models: {
        endpoints: [{ provider: 'anthropic', model: 'claude-fake', baseUrl: anthropic.baseUrl }],
      },
      discord: {
        allowedUserIds: [OWNER.id, FRIEND.id],
        apiBase: discord.apiBase,
        ...options.discord,
      },
    }),
  );
  const config = loadAssistantConfig({
    file,
    env: { ANTHROPIC_API_KEY: 'sk-test', DISCORD_BOT_TOKEN: discord.token, HOME: t.dir },
  });
  const logLines: string[] = [];
  const log: Log = streamLog((line) => logLines.push(line), 'debug');
  const assistant = createAssistant({ brain: t.brain, config, clock: systemClock, log });
  const requests: TurnRequest[] = [];
  const host: DiscordFixture['host'] = {
    brain: t.brain,
    clock: systemClock,
    log,
    requests,
    config: () => config,
    enqueue(request): QueuedTurn {
      requests.push(request);
      const abort = new AbortController();
      const done = assistant.turn(request.session, request.text, request.io, {
        signal: abort.signal,
        source: request.source,
        unattended: request.unattended,
      });
      return { done, cancel: (reason) => abort.abort(new Error(reason ?? 'cancelled')) };
    },
    cancelSession: () => false,
    busy: () => false,
    ownerSession: () => 'owner',
    isOwner: ({ channel, userId }) => channel === 'discord' && userId === OWNER.id,
    noteOwnerTarget: () => {},
    deliver: async () => false,
  };
  const channel = createDiscordChannel({ config: config.discord! });
  return {
    t,
    anthropic,
    discord,
    config,
    host,
    channel,
    logLines,
    async close() {
      await channel.stop();
      await discord.close();
      await anthropic.close();
      t.cleanup();
    },
  };
}
