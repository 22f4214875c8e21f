import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadAssistantConfig } from '../../../../agent/config.js';
import { tempDir } from '../../../helpers.js';

let dir: ReturnType<typeof tempDir> | undefined;
afterEach(() => dir?.cleanup());

function load(telegram: unknown, env: Record<string, string> = {}) {
  dir = tempDir();
  const file = join(dir.dir, 'assistant.json');
  writeFileSync(file, JSON.stringify({ telegram }));
  return loadAssistantConfig({ file, env: { HOME: dir.dir, ...env } });
}

describe('the telegram config key', () => {
  it('takes the token from TELEGRAM_BOT_TOKEN and applies the defaults', () => {
    expect(load({}, { TELEGRAM_BOT_TOKEN: '1:abc' }).telegram).toEqual({
      allowedChatIds: [],
      groups: { enabled: true, requireMention: true },
      token: '1:abc',
    });
    expect(load({ allowedChatIds: [5, -100] }).telegram).toMatchObject({
      allowedChatIds: [5, -100],
      token: undefined,
    });
  });

  it('names the key path of a wrong value, and refuses a token written in the file', () => {
    expect(() => load({ allowedChatIds: ['5'] })).toThrow(/telegram\.allowedChatIds\.0: /);
    expect(() => load({ apiRoot: 'ftp://x' })).toThrow(
      /telegram\.apiRoot: must be an http\(s\) URL/,
    );
    expect(() => load({ token: '1:abc' })).toThrow(/telegram\.token: unknown key/);
    expect(() => load({ groups: { mention: true } })).toThrow(
      /telegram\.groups\.mention: unknown key/,
    );
  });
});
