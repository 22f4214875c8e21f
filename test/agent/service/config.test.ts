import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadAssistantConfig } from '../../../agent/config.js';
import { tempDir } from '../../helpers.js';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function load(file: Record<string, unknown>) {
  const { dir, cleanup } = tempDir('brain-service-config-');
  cleanups.push(cleanup);
  const path = join(dir, 'assistant.json');
  writeFileSync(path, JSON.stringify(file));
  return () => loadAssistantConfig({ file: path, env: {} });
}

describe("brain agent's config keys", () => {
  it('keeps owner as a plain agent name valid, with no channel identities', () => {
    const config = load({ owner: 'ada' })();
    expect(config.owner).toBe('ada');
    expect(config.ownerIdentities).toEqual({});
  });

  it('reads owner as {name, telegram, discord}, a Telegram id as number or string', () => {
    expect(
      load({ owner: { name: 'ada', telegram: 42, discord: '123456789012345678' } })(),
    ).toMatchObject({
      owner: 'ada',
      ownerIdentities: { telegram: '42', discord: '123456789012345678' },
    });
    expect(load({ owner: { telegram: '42' } })().ownerIdentities).toEqual({ telegram: '42' });
  });

  it('names the key path of a bad owner identity, lane limit or relay flag', () => {
    expect(load({ owner: { name: 'ada', discord: 12 } })).toThrow(/owner\.discord: /);
    expect(load({ owner: { telegram: 'me' } })).toThrow(
      /owner\.telegram: must be a Telegram user id/,
    );
    expect(load({ owner: { nickname: 'x' } })).toThrow(/owner\.nickname: unknown key/);
    expect(load({ lane: { maxConcurrent: 0 } })).toThrow(/lane\.maxConcurrent: /);
    expect(load({ relayToOwner: 'yes' })).toThrow(/relayToOwner: /);
  });

  it('defaults the lane to two sessions at once and relays off', () => {
    const config = load({})();
    expect(config.lane).toEqual({ maxConcurrent: 2 });
    expect(config.relayToOwner).toBe(false);
  });
});
