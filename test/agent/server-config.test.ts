import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadAssistantConfig } from '../../agent/config.js';
import { tempDir } from '../helpers.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('brain-server-config-')));
afterEach(() => cleanup());

function load(file: Record<string, unknown>, env: Record<string, string> = {}) {
  const path = join(dir, 'assistant.json');
  writeFileSync(path, JSON.stringify(file));
  return loadAssistantConfig({ file: path, env: { HOME: dir, ...env } });
}

describe('retention, webhooks and hooks in the config', () => {
  it('reads them with their defaults and the secrets from the environment', () => {
    const config = load(
      {
        retention: { archiveAfterDays: 30, tags: { keep: { archiveAfterDays: null } } },
        webhooks: {
          ci: { url: 'http://127.0.0.1:9/h', secretEnv: 'CI_SECRET', events: ['message'] },
        },
        hooks: { alerts: { secret: 'x'.repeat(16), prompt: 'An alert.', port: 7400 } },
      },
      { CI_SECRET: 's'.repeat(20) },
    );
    expect(config.retention).toEqual({
      archiveAfterDays: 30,
      tags: { keep: { archiveAfterDays: null } },
    });
    expect(config.webhooks).toEqual([
      {
        name: 'ci',
        url: 'http://127.0.0.1:9/h',
        secret: 's'.repeat(20),
        events: ['message'],
        agents: undefined,
        includeBodies: false,
        maxAttempts: 8,
      },
    ]);
    expect(config.hooks).toMatchObject([
      { name: 'alerts', host: '127.0.0.1', session: 'hook/alerts', perMinute: 6 },
    ]);
    const none = load({});
    expect([none.retention, none.webhooks, none.hooks]).toEqual([undefined, [], []]);
  });

  it('names the key path of what is wrong, and never prints a secret', () => {
    const bad = (file: Record<string, unknown>, env: Record<string, string> = {}) => {
      try {
        load(file, env);
      } catch (err) {
        return (err as Error).message;
      }
      throw new Error('loaded');
    };
    expect(bad({ retention: { archiveAfterDays: 0 } })).toMatch(
      /retention\.archiveAfterDays: must be more than 0/,
    );
    expect(bad({ retention: { archiveAfterDay: 3 } })).toMatch(/archiveAfterDay/);
    expect(
      bad({
        webhooks: {
          ci: { url: 'file:///etc/passwd', secret: 'y'.repeat(16), events: ['message'] },
        },
      }),
    ).toMatch(/webhooks\.ci\.url: must be an http\(s\) URL/);
    expect(bad({ webhooks: { ci: { url: 'http://h/', events: ['message'] } } })).toMatch(
      /webhooks\.ci: give exactly one of secret or secretEnv/,
    );
    expect(
      bad({ webhooks: { ci: { url: 'http://h/', secretEnv: 'NOPE', events: ['message'] } } }),
    ).toMatch(/webhooks\.ci\.secretEnv: NOPE must be set/);
    const short = bad({ hooks: { a: { secret: 'short-secret', prompt: 'p', port: 1 } } });
    expect(short).toMatch(/hooks\.a\.secret: must be at least 16 characters/);
    expect(short).not.toContain('short-secret');
  });
});
