import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadAssistantConfig } from '../../../agent/config.js';
import { tempDir } from '../../helpers.js';

let cleanup: () => void = () => {};
afterEach(() => cleanup());

function load(body: Record<string, unknown>, env: Record<string, string> = {}) {
  const t = tempDir('brain-sched-config-');
  cleanup = t.cleanup;
  const file = join(t.dir, 'assistant.json');
  writeFileSync(file, JSON.stringify(body));
  return () => loadAssistantConfig({ file, env });
}

const job = { name: 'brief', schedule: '0 8 * * *', message: 'Brief me' };
const mailbox = {
  name: 'inbox',
  host: 'imap.example.com',
  user: 'ann',
  passwordEnv: 'IMAP_PASSWORD',
  schedule: '*/10 * * * *',
};

describe('the scheduler’s config keys', () => {
  it('applies the defaults and takes email passwords from the named environment variables', () => {
    const config = load({ cron: [job], email: [mailbox] }, { IMAP_PASSWORD: 'pw' })();
    expect(config.scheduler).toMatchObject({
      heartbeat: undefined,
      catchUpMinutes: 60,
      reminders: { checkEverySeconds: 30 },
      cron: [{ ...job, session: 'isolated', enabled: true }],
      email: [{ ...mailbox, port: 993, tls: true, folder: 'INBOX', maxMessages: 20 }],
      emailPasswords: { inbox: 'pw' },
    });
    expect(load({ heartbeat: {} })().scheduler.heartbeat).toEqual({
      everyMinutes: 30,
      enabled: true,
    });
  });

  it.each([
    [{ cron: [{ ...job, schedule: 'every day' }] }, 'cron.0.schedule: must be a cron expression'],
    [{ cron: [job, job] }, 'cron.1.name: duplicate name "brief"'],
    [{ cron: [{ ...job, deliverTo: 'sms:1' }] }, 'cron.0.deliverTo: must be "telegram:<chat_id>"'],
    [{ cron: [{ ...job, timezone: 'Mars/Olympus' }] }, 'cron.0.timezone: must be an IANA'],
    [
      { heartbeat: { activeHours: { start: '8', end: '22:00' } } },
      'heartbeat.activeHours.start: must be a time HH:MM',
    ],
    [{ heartbeat: { everyMinutes: 0 } }, 'heartbeat.everyMinutes'],
    [
      { email: [{ ...mailbox, passwordEnv: 'my password' }] },
      'email.0.passwordEnv: must be an environment variable name',
    ],
    [{ email: [{ ...mailbox, password: 'x' }] }, 'email.0.password: unknown key'],
    [{ catchUpMinutes: -1 }, 'catchUpMinutes'],
  ])('refuses %j naming the key path', (body, message) => {
    expect(load(body)).toThrow(message);
  });
});
