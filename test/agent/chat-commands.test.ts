import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runRepl } from '../../agent/chat.js';
import { createAssistant, type Assistant } from '../../agent/assistant.js';
import { startChatComponents } from '../../agent/chat-host.js';
import {
  createSessionModels,
  knownCommand,
  parseCommand,
  runCommand,
  type CommandScope,
} from '../../agent/conversation/commands.js';
import type { Tool } from '../../agent/tools/types.js';
import { systemClock } from '../../src/index.js';
import { serviceFixture, type ServiceFixture } from './service/helpers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function fixture(file: Record<string, unknown> = {}) {
  const f = await serviceFixture({ file });
  cleanups.push(() => f.close());
  const assistant = createAssistant({
    brain: f.t.brain,
    config: f.config,
    clock: systemClock,
    log: f.log,
  });
  return { f, assistant };
}

/** Type lines into the REPL, close its input, and return what it printed. */
async function chat(
  f: ServiceFixture,
  assistant: Assistant,
  lines: string[],
  tools?: (session: string) => readonly Tool[],
) {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = '';
  output.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const ended = runRepl({
    assistant,
    brain: f.t.brain,
    session: 'chat/default',
    streams: { input, output, note: () => {} },
    ...(tools ? { tools } : {}),
  });
  for (const line of lines) input.write(`${line}\n`);
  input.end();
  await ended;
  return printed;
}

describe("brain chat's slash commands", () => {
  it('answers /help, /status, /usage, /model and /stop without calling the model', async () => {
    const { f, assistant } = await fixture();
    f.t.brain.assistant.recordUsage({
      source: 'chat',
      session: 'chat/default',
      model: 'claude-sonnet-4-5-20250929',
      endpoint: 'anthropic:claude-sonnet-4-5@0',
      input_tokens: 1_000_000,
      output_tokens: 0,
    });
    f.t.brain.assistant.recordUsage({
      source: 'channel',
      session: 'telegram/9',
      model: 'claude-sonnet-4-5-20250929',
      endpoint: 'anthropic:claude-sonnet-4-5@0',
      input_tokens: 5,
      output_tokens: 5,
    });
    const printed = await chat(f, assistant, ['/help', '/status', '/usage', '/model', '/stop']);
    expect(f.fake.requests).toHaveLength(0);
    expect(printed).toContain('/new starts a fresh conversation');
    expect(printed).toContain('Session chat/default');
    expect(printed).toContain('Model: claude-fake (anthropic)');
    // Only this session's row: a million input tokens at $3 a million.
    expect(printed).toContain('1 calls, 1000000 in / 0 out');
    expect(printed).toContain('$3.0000');
    expect(printed).toContain('1. claude-fake (anthropic) (in use)');
    expect(printed).toContain('Nothing is running.');
  });

  it('/model NAME sends the session’s next turn to that endpoint', async () => {
    const { f } = await fixture();
    const fake = f.fake.baseUrl;
    // Both endpoints are the fake: the request's model says which one answered.
    const config = {
      ...f.config,
      models: {
        ...f.config.models,
        endpoints: [
          { ...f.config.models.endpoints[0]!, model: 'claude-first', baseUrl: fake },
          { ...f.config.models.endpoints[0]!, model: 'claude-second', baseUrl: fake },
        ],
      },
    };
    const two = createAssistant({ brain: f.t.brain, config, clock: systemClock, log: f.log });
    f.fake.script.push({ text: 'from the second' });
    const printed = await chat(f, two, ['/model claude-second', 'hello']);
    expect(printed).toContain('now uses claude-second');
    expect(printed).toContain('from the second');
    expect(f.fake.requests).toHaveLength(1);
    expect(f.fake.requests[0]!.body.model).toBe('claude-second');

    // Kept in the brain: an assistant made afresh on it (a restart) still uses the choice.
    const restarted = createAssistant({ brain: f.t.brain, config, clock: systemClock, log: f.log });
    f.fake.script.push({ text: 'still the second' });
    expect(await chat(f, restarted, ['hello again'])).toContain('still the second');
    expect(f.fake.requests[1]!.body.model).toBe('claude-second');
  });

  it('/new starts a fresh thread for the session', async () => {
    const { f, assistant } = await fixture();
    const before = f.t.brain.assistant.session({
      name: 'chat/default',
      agent: 'assistant',
      owner: 'ann',
    });
    const printed = await chat(f, assistant, ['/new']);
    const after = f.t.brain.assistant.sessions().find((s) => s.name === 'chat/default')!;
    expect(after.thread_id).not.toBe(before.thread_id);
    expect(printed).toContain(`Fresh start (thread ${after.thread_id})`);
    expect(f.fake.requests).toHaveLength(0);
  });
});

describe("brain chat's tools", () => {
  it('sets a reminder through the reminders component, as the service’s owner turns do', async () => {
    const { f, assistant } = await fixture();
    const components = await startChatComponents({
      brain: f.t.brain,
      config: f.config,
      clock: systemClock,
      log: f.log,
      assistant,
    });
    cleanups.push(() => components.stop());
    f.fake.script.push({
      toolUses: [{ name: 'set_reminder', input: { when: 'in 2 minutes', text: 'tea' } }],
    });
    f.fake.script.push({ text: 'I will remind you.' });
    const printed = await chat(f, assistant, ['remind me in 2 minutes: tea'], components.tools);
    expect(printed).toContain('I will remind you.');
    const tools = (f.fake.requests[0]!.body.tools as Array<{ name: string }>).map((t) => t.name);
    expect(tools).toContain('set_reminder');
    expect(tools).toContain('add_task');
    const reminders = f.t.brain.assistant.reminders({ limit: 10 });
    expect(reminders.map((r) => r.text)).toEqual(['tea']);
  });
});

describe('the conversation module', () => {
  const scope = (f: ServiceFixture, owner: boolean): CommandScope => ({
    brain: f.t.brain,
    config: f.config,
    session: 'telegram/-100',
    owner,
    models: createSessionModels(),
    busy: () => false,
    cancel: () => {},
  });

  it('refuses /model and /usage to a contact and tells them only their own session', async () => {
    const { f } = await fixture();
    const s = scope(f, false);
    expect(runCommand('model', 'claude-fake', s).reply).toBe('Only the owner can do that.');
    expect(s.models.get('telegram/-100')).toBeUndefined();
    expect(runCommand('usage', '', s).reply).toBe('Only the owner can do that.');
    const status = runCommand('status', '', s).reply;
    expect(status).toContain('telegram/-100');
    expect(status).not.toContain('Model');
    expect(runCommand('help', '', s).reply).toContain('/stop');
  });

  it('reads /name, /name@bot and /name args, and nothing else', () => {
    expect(parseCommand('/model  claude-x ')).toEqual({ name: 'model', arg: 'claude-x' });
    expect(parseCommand('/stop@my_bot')).toEqual({ name: 'stop', arg: '', bot: 'my_bot' });
    expect(parseCommand('please /stop')).toBeUndefined();
    expect(parseCommand('/etc/passwd is a file')).toBeUndefined();
    // The terminal and Discord take only the commands they know: the rest is for the model.
    expect(knownCommand('/tmp is full, why?')).toBeUndefined();
    expect(knownCommand('/usage')).toEqual({ name: 'usage', arg: '' });
  });
});
