import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadAssistantConfig } from '../../../../agent/config.js';
import { buildComponents } from '../../../../agent/service/components.js';
import { silentLog } from '../../../../agent/log.js';
import { systemClock } from '../../../../src/index.js';
import { tempBrain } from '../../../helpers.js';
import { tempDir } from '../../../helpers.js';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function load(discord: unknown, env: Record<string, string> = {}) {
  const { dir, cleanup } = tempDir('brain-discord-config-');
  cleanups.push(cleanup);
  const file = join(dir, 'assistant.json');
  writeFileSync(file, JSON.stringify({ discord }));
  return loadAssistantConfig({ file, env: { HOME: dir, ...env } });
}

describe('the discord config', () => {
  it('is absent unless configured, and takes its token from DISCORD_BOT_TOKEN only', () => {
    expect(load(undefined, { DISCORD_BOT_TOKEN: 't' }).discord).toBeUndefined();
    expect(load({ allowedUserIds: ['123'] }, { DISCORD_BOT_TOKEN: 'tok' }).discord).toEqual({
      allowedUserIds: ['123'],
      token: 'tok',
    });
    expect(load({}).discord).toEqual({ allowedUserIds: [], token: undefined });
  });

  it('refuses an id written as a number, naming the key path', () => {
    expect(() => load({ allowedUserIds: [123] })).toThrow(/discord\.allowedUserIds\.0: /);
    expect(() => load({ guildIds: ['12a'] })).toThrow(/discord\.guildIds\.0: must be a Discord id/);
  });

  it('refuses an unknown key and an apiBase that is not an http(s) URL', () => {
    expect(() => load({ token: 'in the file' })).toThrow(/discord\.token: unknown key/);
    expect(() => load({ apiBase: 'ftp://x' })).toThrow(
      /discord\.apiBase: must be an http\(s\) URL/,
    );
  });
});

describe('brain agent with a discord section', () => {
  it('runs the Discord channel when the config has one, and not otherwise', async () => {
    const t = await tempBrain();
    cleanups.push(() => t.cleanup());
    const deps = { brain: t.brain, clock: systemClock, log: silentLog };
    const names = async (discord: unknown) =>
      (await buildComponents(load(discord, { DISCORD_BOT_TOKEN: 'tok' }), deps)).map((c) => c.name);
    expect(await names({ allowedUserIds: ['123'] })).toContain('discord');
    expect(await names(undefined)).not.toContain('discord');
  });
});
