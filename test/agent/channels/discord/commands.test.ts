import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedCall } from '../../../fakes/discord.js';
import {
  discordFixture,
  FRIEND,
  FRIEND_DM,
  OWNER,
  OWNER_DM,
  type DiscordFixture,
} from './setup.js';

/** Discord's slash commands come from the one conversation module (agent/service/commands.ts). */

const fixtures: DiscordFixture[] = [];
afterEach(async () => {
  for (const f of fixtures.splice(0)) await f.close();
});

const postedTo = (f: DiscordFixture, channelId: string) =>
  f.discord.calls
    .filter((c) => c.method === 'POST' && c.path === `/channels/${channelId}/messages`)
    .map((c) => (c.body as { content: string }).content);
const countPosts = (channelId: string, n: number) => (f: DiscordFixture) => (c: RecordedCall) =>
  c.method === 'POST' &&
  c.path === `/channels/${channelId}/messages` &&
  postedTo(f, channelId).length >= n;

describe('Discord slash commands', { timeout: 60_000 }, () => {
  it('answers /status and /model for the owner, refuses /model to a contact, and calls no model', async () => {
    const f = await discordFixture();
    fixtures.push(f);
    await f.channel.start(f.host);
    f.discord.dispatchMessage({ channelId: OWNER_DM, author: OWNER, content: '/status' });
    await f.discord.waitForCall(countPosts(OWNER_DM, 1)(f));
    f.discord.dispatchMessage({ channelId: OWNER_DM, author: OWNER, content: '/model' });
    await f.discord.waitForCall(countPosts(OWNER_DM, 2)(f));
    f.discord.dispatchMessage({ channelId: FRIEND_DM, author: FRIEND, content: '/model 1' });
    await f.discord.waitForCall(countPosts(FRIEND_DM, 1)(f));
    const [status, models] = postedTo(f, OWNER_DM);
    expect(status).toMatch(/^Session chat\/default/);
    expect(status).toContain('Idle.');
    expect(models).toContain('(in use)');
    expect(postedTo(f, FRIEND_DM)).toEqual(['Only the owner can do that.']);
    expect(f.anthropic.requests).toHaveLength(0);
  });
});
