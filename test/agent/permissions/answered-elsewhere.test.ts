import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openChat } from '../../../agent/chat-run.js';
import { loadAssistantConfig } from '../../../agent/config.js';
import { silentLog } from '../../../agent/log.js';
import type { ChatMessage } from '../../../agent/models/types.js';
import { openBrain, type Brain } from '../../../src/index.js';
import { startUi } from '../../../ui/server.js';
import { startFakeAnthropic } from '../../fakes/anthropic.js';
import { tempDir } from '../../helpers.js';
import { spawnUi } from '../../ui/browser.js';
import { csrfOf } from '../../ui/helpers.js';

/**
 * A question asked by one process (`brain chat`'s terminal conversation, here in this process)
 * and answered on brain ui's assistant page: the turn takes the answer recorded in the brain,
 * and an answer after the question timed out is refused and changes nothing.
 */

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const c of cleanups.splice(0).reverse()) await c();
});

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const COPY = { name: 'run_command', input: { command: 'cp README.md copy.md' } };

async function setup() {
  const { dir, cleanup } = tempDir('brain-answered-');
  cleanups.push(cleanup);
  const fake = await startFakeAnthropic();
  cleanups.push(() => fake.close());
  const workspace = join(dir, 'ws');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'README.md'), 'hello');
  const file = join(dir, 'assistant.json');
  writeFileSync(
    file,
    JSON.stringify({
      agent: 'assistant',
      owner: 'ann',
      workspace,
      models: {
        endpoints: [{ provider: 'anthropic', model: 'claude-fake', baseUrl: fake.baseUrl }],
      },
    }),
  );
  const config = loadAssistantConfig({
    file,
    env: { ANTHROPIC_API_KEY: 'sk-test', XDG_CONFIG_HOME: join(dir, 'cfg') },
  });
  const dbPath = join(dir, 'brain.db');
  const brain: Brain = await openBrain({ dbPath });
  cleanups.push(() => brain.close());
  const chat = await openChat({ brain, config, log: silentLog });
  cleanups.push(() => chat.close());
  return { dir, dbPath, workspace, fake, brain, chat };
}

/** Resolves once the stream has written text matching `re`. */
function written(stream: PassThrough, re: RegExp): Promise<string> {
  let text = '';
  return new Promise((resolve) => {
    const onData = (d: Buffer) => {
      text += d.toString();
      if (re.test(text)) {
        stream.off('data', onData);
        resolve(text);
      }
    };
    stream.on('data', onData);
  });
}

const post = (base: string, path: string, fields: Record<string, string>) =>
  fetch(base + path, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...FORM, Origin: base },
    body: new URLSearchParams(fields).toString(),
  });

describe('a question answered on brain ui by another process', { timeout: 60_000 }, () => {
  it("runs the command of brain chat's turn when the owner approves it on the page of a running brain ui", async () => {
    const s = await setup();
    s.fake.script.push({ toolUses: [COPY] }, { text: 'Copied.' });
    // The terminal: the owner is asked there and does not answer.
    const input = Object.assign(new PassThrough(), { isTTY: true });
    const output = new PassThrough();
    const notes: string[] = [];
    const asked = written(output, /Allow this call\?/);
    const replied = written(output, /Copied\./);
    const repl = s.chat.repl({ input, output, note: (line) => void notes.push(line) });
    input.write('copy the readme\n');
    await asked;
    expect(existsSync(join(s.workspace, 'copy.md'))).toBe(false);

    const ui = await spawnUi(s.dbPath, [], { XDG_CONFIG_HOME: join(s.dir, 'cfg') });
    cleanups.push(() => ui.stop());
    const page = await (await fetch(`${ui.url}/assistant`)).text();
    const id = /id="approval-(\d+)"/.exec(page)![1]!;
    const res = await post(ui.url, `/approvals/${id}`, {
      csrf: csrfOf(page),
      decision: 'approved',
    });
    expect(res.status).toBe(303);

    await replied;
    expect(existsSync(join(s.workspace, 'copy.md'))).toBe(true);
    const result = (s.fake.requests[1]!.body.messages as ChatMessage[]).at(-1)!.content[0] as {
      is_error?: boolean;
    };
    expect(result.is_error).toBeUndefined();
    expect(s.brain.assistant.getApproval(Number(id))).toMatchObject({
      decision: 'approved',
      decided_by: 'owner',
      reason: 'decided in brain ui',
    });
    expect(notes.join('\n')).toContain('(approved elsewhere (decided in brain ui))');
    input.end();
    await repl;
  });

  it('refuses an approval given on the page after the question timed out: nothing runs, the row keeps the timeout', async () => {
    const s = await setup();
    s.fake.script.push({ toolUses: [COPY] }, { text: 'I could not copy it.' });
    const reader = await openBrain({ dbPath: s.dbPath, readonly: true });
    const writer = await openBrain({ dbPath: s.dbPath });
    cleanups.push(
      () => reader.close(),
      () => writer.close(),
    );
    const ui = await startUi({ host: '127.0.0.1', port: 0, reader, writer });
    cleanups.push(() => ui.close());
    const base = ui.url.replace(/\/$/, '');

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let resolveAsked!: (id: number) => void;
    const asked = new Promise<number>((r) => (resolveAsked = r));
    const turn = s.chat.assistant.turn('chat/default', 'copy the readme', {
      onText: () => {},
      askApproval: (request) => {
        resolveAsked(request.recordId!);
        return new Promise(() => {});
      },
    });
    const id = await asked;
    // The owner opens the page while the question waits, and answers after its timeout.
    const csrf = csrfOf(await (await fetch(`${base}/assistant`)).text());
    await vi.advanceTimersByTimeAsync(120_000);
    await turn;
    vi.useRealTimers();
    expect(s.brain.assistant.getApproval(id)?.decision).toBe('timeout');

    const res = await post(base, `/approvals/${id}`, { csrf, decision: 'approved' });
    expect(res.status).toBe(409);
    const timedOutAt = s.brain.assistant.getApproval(id)!.decided_at!;
    expect(await res.text()).toContain(
      `this question is no longer waiting: it timed out at ${timedOutAt}`,
    );
    expect(existsSync(join(s.workspace, 'copy.md'))).toBe(false);
    expect(s.brain.assistant.getApproval(id)).toMatchObject({
      decision: 'timeout',
      reason: 'no answer within 120 s',
    });
  });
});
