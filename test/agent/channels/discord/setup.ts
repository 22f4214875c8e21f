import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AssistantConfig } from '../../../../agent/config.js';
import {
  createDiscordChannel,
  type DiscordChannel,
} from '../../../../agent/channels/discord/channel.js';
import type { RunningServiceHost } from '../../../../agent/service/host.js';
import type { TurnRequest } from '../../../../agent/contracts.js';
import type { TempBrain } from '../../../helpers.js';
import type { FakeAnthropic } from '../../../fakes/anthropic.js';
import { startFakeDiscord, type FakeDiscord, type FakeGuild } from '../../../fakes/discord.js';
import { serviceFixture } from '../../service/helpers.js';

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
  host: RunningServiceHost;
  /** Every turn the channel asked of the host, in order. */
  requests: TurnRequest[];
  channel: DiscordChannel;
  /** Every log line as `level event {fields}`, at every level. */
  logLines(): string[];
  close(): Promise<void>;
}

/**
 * The channel against the loopback Discord (the real discord.js over REST and the gateway), inside
 * the real service host (agent/service/host.ts) whose assistant talks to the fake Anthropic API.
 * The owner is `ann`, on Discord OWNER; OWNER and FRIEND are allowed, STRANGER is not.
 */
export async function discordFixture(
  options: {
    guilds?: FakeGuild[];
    discord?: Record<string, unknown>;
    streamEveryMs?: number;
    /** More keys of the assistant's config file. */
    file?: Record<string, unknown>;
  } = {},
): Promise<DiscordFixture> {
  const discord = await startFakeDiscord({
    guilds: options.guilds ?? [{ id: GUILD, channelIds: [GUILD_CHANNEL] }],
  });
  const s = await serviceFixture({
    file: {
      owner: { name: 'ann', discord: OWNER.id },
      discord: {
        allowedUserIds: [OWNER.id, FRIEND.id],
        apiBase: discord.apiBase,
        ...options.discord,
      },
      ...options.file,
    },
  });
  const workspace = s.config.workspace;
  mkdirSync(join(workspace, 'build'), { recursive: true });
  writeFileSync(join(workspace, 'build', 'out.js'), 'built');
  // The token comes from the environment in `brain agent`; here, straight from the fake.
  const channel = createDiscordChannel({
    config: { ...s.config.discord!, token: discord.token },
    ...(options.streamEveryMs === undefined ? {} : { streamEveryMs: options.streamEveryMs }),
  });
  s.host.setComponents([channel]);
  const requests: TurnRequest[] = [];
  const enqueue = s.host.enqueue.bind(s.host);
  s.host.enqueue = (request) => {
    requests.push(request);
    return enqueue(request);
  };
  return {
    t: s.t,
    anthropic: s.fake,
    discord,
    config: s.config,
    host: s.host,
    requests,
    channel,
    logLines: () => s.logs.map((l) => `${l.level} ${l.event} ${JSON.stringify(l.fields)}`),
    async close() {
      await channel.stop();
      await s.close();
      await discord.close();
    },
  };
}
