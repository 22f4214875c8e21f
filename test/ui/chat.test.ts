import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadAssistantConfig } from '../../agent/config.js';
import { openPageChat, type PageChat, type PageEvent } from '../../agent/page-chat.js';
import { silentLog } from '../../agent/log.js';
import { parseTokens } from '../../mcp/access.js';
import { openBrain } from '../../src/index.js';
import { startUi } from '../../ui/server.js';
import { runCliInProcess } from '../cli-in-process.js';
import { loadedModules, moduleHookArgs } from '../cli/module-hooks.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';
import { ROOT, tempBrain, tempDir } from '../helpers.js';
import { csrfOf, TOKEN } from './helpers.js';

/**
 * The chat page's server side in this process (the browser's part is chat-browser.test.ts): who
 * may chat, the CSRF defence of its writes, and what `brain ui` loads of the assistant.
 */

const OWNER_TOKEN = 'owner-login-token-0123456789';
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function writeConfig(dir: string, baseUrl: string): string {
  const file = join(dir, 'assistant.json');
  writeFileSync(
    file,
    JSON.stringify({
      agent: 'assistant',
      owner: 'ann',
      workspace: dir,
      models: { endpoints: [{ provider: 'anthropic', model: 'claude-fake', baseUrl }] },
    }),
  );
  return file;
}

/** `brain ui` on 127.0.0.1:0 with the chat, its model the fake; logins as asked. */
async function startChatUi(options: { tokens?: boolean; ownerToken?: string } = {}) {
  const temp = await tempBrain();
  const fake: FakeAnthropic = await startFakeAnthropic();
  const reader = await temp.reopen({ readonly: true });
  const writer = await temp.reopen();
  const config = loadAssistantConfig({
    file: writeConfig(temp.dir, fake.baseUrl),
    env: { ANTHROPIC_API_KEY: 'sk-test', XDG_CONFIG_HOME: join(temp.dir, 'cfg') },
  });
  let opened: PageChat | undefined;
  const ui = await startUi({
    host: '127.0.0.1',
    port: 0,
    reader,
    writer,
    ...(options.tokens ? { tokens: parseTokens(`${TOKEN} helios\n`) } : {}),
    chat: {
      owner: config.owner,
      token: options.ownerToken,
      open: async () => (opened = await openPageChat({ brain: writer, config, log: silentLog })),
    },
  });
  cleanups.push(
    () => temp.cleanup(),
    () => fake.close(),
    () => ui.close(),
  );
  const base = ui.url.replace(/\/$/, '');
  const get = (path: string, init?: RequestInit) =>
    fetch(base + path, { redirect: 'manual', ...init });
  return {
    fake,
    base,
    get,
    reader,
    writer: temp.brain,
    dir: temp.dir,
    chat: () => opened!,
    post: (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
      get(path, {
        method: 'POST',
        headers: { ...FORM, Origin: base, Accept: 'application/json', ...headers },
        body: new URLSearchParams(fields).toString(),
      }),
    login: async (token: string) => {
      const res = await get('/login', {
        method: 'POST',
        headers: { ...FORM, Origin: base },
        body: new URLSearchParams({ token }).toString(),
      });
      return res.headers.get('set-cookie')?.split(';')[0];
    },
  };
}

/** The next event of a session that ends a turn. */
function turnEnd(chat: PageChat, session: string): Promise<PageEvent> {
  return new Promise((resolve) => {
    const stop = chat.subscribe(session, (event) => {
      if (event.type === 'done' || event.type === 'failed' || event.type === 'stopped') {
        stop();
        resolve(event);
      }
    });
  });
}

describe('the chat page (server side)', () => {
  it('starts no turn for a message without the CSRF token or from another origin', async () => {
    const s = await startChatUi();
    const csrf = csrfOf(await (await s.get('/chat')).text());
    const said = { text: 'delete everything', session: 'default' };
    const refused = [
      await s.post('/chat', { ...said, csrf }, { Origin: 'http://evil.example' }),
      await s.post('/chat', { ...said, csrf }, { Origin: '' }),
      await s.post('/chat', said),
      await s.post('/chat', { ...said, csrf: `${csrf.slice(1)}x` }),
    ];
    expect(refused.map((r) => r.status)).toEqual([403, 403, 403, 403]);
    expect(s.fake.requests).toHaveLength(0);
    expect(s.reader.assistant.sessions()).toEqual([]);

    // A slash command is the conversation's: answered at once, no model call.
    const status = await s.post('/chat', { text: '/status', session: 'default', csrf });
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ kind: 'command', command: 'status' });
    // Without script the form posts and the page comes back with the answer.
    const form = await s.post('/chat', { text: '/help', session: 'default', csrf }, { Accept: '' });
    expect(form.status).toBe(303);
    expect(form.headers.get('location')).toMatch(/^\/chat\?session=default&notice=%2Fnew/);
    expect(s.fake.requests).toHaveLength(0);

    s.fake.script.push({ text: 'Done as asked.' });
    const ended = turnEnd(s.chat(), 'chat/default');
    const ok = await s.post('/chat', { text: 'say something', session: 'default', csrf });
    expect(ok.status).toBe(202);
    await expect(ended).resolves.toEqual({ type: 'done', reply: 'Done as asked.' });
    expect(s.fake.requests).toHaveLength(1);
    expect(s.reader.assistant.sessions().map((x) => x.name)).toEqual(['chat/default']);
  });

  it('refuses a bad session name, an empty message and a second turn while one runs', async () => {
    const s = await startChatUi();
    const csrf = csrfOf(await (await s.get('/chat')).text());
    expect((await s.get('/chat?session=../x')).status).toBe(400);
    const empty = await s.post('/chat', { text: '   ', session: 'default', csrf });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ error: 'text: must not be empty' });
    let release!: () => void;
    s.fake.script.push({ text: ['one ', 'two'], hold: new Promise((r) => (release = r)) });
    const ended = turnEnd(s.chat(), 'chat/work');
    expect((await s.post('/chat', { text: 'first', session: 'work', csrf })).status).toBe(202);
    const second = await s.post('/chat', { text: 'second', session: 'work', csrf });
    expect(second.status).toBe(409);
    release();
    await expect(ended).resolves.toEqual({ type: 'done', reply: 'one two' });
    expect(s.fake.requests).toHaveLength(1);
  });

  it("lets only the owner's login chat; an agent's token may browse but not chat", async () => {
    const s = await startChatUi({ tokens: true, ownerToken: OWNER_TOKEN });
    // A login is asked for on loopback too once the owner's token is set.
    expect((await s.get('/chat')).status).toBe(303);
    expect(await s.login('not-a-token-of-anyone')).toBeUndefined();

    const agent = (await s.login(TOKEN))!;
    // A pending approval gives the assistant page a form: the agent's own CSRF token.
    s.writer.assistant.recordApproval({
      tool: 'run_command',
      args: { command: 'ls' },
      summary: 'ls',
      decision: 'pending',
    });
    const browse = await s.get('/assistant', { headers: { Cookie: agent } });
    expect(browse.status).toBe(200);
    const text = await browse.text();
    expect(text).not.toContain('href="/chat"');
    const csrf = csrfOf(text);
    expect((await s.get('/chat', { headers: { Cookie: agent } })).status).toBe(403);
    expect((await s.get('/chat/stream', { headers: { Cookie: agent } })).status).toBe(403);
    const post = await s.post(
      '/chat',
      { text: 'hello', session: 'default', csrf },
      { Cookie: agent },
    );
    expect(post.status).toBe(403);
    expect(s.fake.requests).toHaveLength(0);

    const owner = (await s.login(OWNER_TOKEN))!;
    const page = await s.get('/chat', { headers: { Cookie: owner } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<h1>Chat</h1>');
  });

  it("answers the chat turn's question when it is approved on the assistant page", async () => {
    const s = await startChatUi();
    mkdirSync(join(s.dir, 'build'));
    writeFileSync(join(s.dir, 'build', 'out.js'), 'built');
    const csrf = csrfOf(await (await s.get('/chat')).text());
    s.fake.script.push(
      { toolUses: [{ name: 'run_command', input: { command: 'rm -rf build' } }] },
      { text: 'Deleted.' },
    );
    const asked = new Promise<void>((resolve) => {
      const stop = s.chat().subscribe('chat/default', (event) => {
        if (event.type === 'approval') resolve(stop());
      });
    });
    const ended = turnEnd(s.chat(), 'chat/default');
    await s.post('/chat', { text: 'delete build/', session: 'default', csrf });
    await asked;
    const [pending] = s.reader.assistant.approvals({ pending: true, limit: 1 });
    const res = await s.get(`/approvals/${pending!.id}`, {
      method: 'POST',
      headers: { ...FORM, Origin: s.base },
      body: new URLSearchParams({ csrf, decision: 'approved' }).toString(),
    });
    expect(res.status).toBe(303);
    await expect(ended).resolves.toEqual({ type: 'done', reply: 'Deleted.' });
    expect(existsSync(join(s.dir, 'build', 'out.js'))).toBe(false);
    expect(s.reader.assistant.getApproval(pending!.id)).toMatchObject({
      decision: 'approved',
      reason: 'approved by the owner',
    });
  });
});

describe('brain ui and the assistant (the command)', () => {
  it('refuses a BRAIN_UI_TOKEN too short to be a login: exit 2, the variable named', async () => {
    const { dir, cleanup } = tempDir('brain-ui-chat-cli-');
    cleanups.push(cleanup);
    (await openBrain({ dbPath: join(dir, 'brain.db') })).close();
    const r = await runCliInProcess(['--db', join(dir, 'brain.db'), 'ui', '--port', '0'], {
      BRAIN_ASSISTANT_CONFIG: writeConfig(dir, 'http://127.0.0.1:9'),
      BRAIN_UI_TOKEN: 'tiny-secret',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^brain: INVALID_INPUT: BRAIN_UI_TOKEN: too short/);
    expect(r.stderr).not.toContain('tiny-secret');
  });

  it("loads none of the assistant without its config, and the assistant's loop only once the chat is used", async () => {
    const { dir, cleanup } = tempDir('brain-ui-modules-');
    cleanups.push(cleanup);
    const dbPath = join(dir, 'brain.db');
    (await openBrain({ dbPath })).close();
    const agentCode = (urls: string[]) => urls.filter((u) => u.includes('/dist/agent/'));
    const bare = await startWithHook(dir, dbPath, {});
    expect((await fetch(bare.url)).status).toBe(200);
    expect(agentCode(await bare.stop())).toEqual([]);

    const config = writeConfig(dir, 'http://127.0.0.1:9');
    const withConfig = await startWithHook(dir, dbPath, {
      BRAIN_ASSISTANT_CONFIG: config,
      ANTHROPIC_API_KEY: 'sk-test',
    });
    expect((await fetch(withConfig.url)).status).toBe(200);
    const before = agentCode(withConfig.urls());
    expect(before.some((u) => u.endsWith('/dist/agent/config.js'))).toBe(true);
    expect(before.filter((u) => u.endsWith('/dist/agent/loop.js'))).toEqual([]);
    const chat = await fetch(`${withConfig.url}chat`);
    expect({ status: chat.status, body: chat.status === 200 ? '' : await chat.text() }).toEqual({
      status: 200,
      body: '',
    });
    const after = agentCode(await withConfig.stop());
    expect(after.some((u) => u.endsWith('/dist/agent/loop.js'))).toBe(true);
  });
});

/** `brain ui` (tsc's build, module by module) with a module hook; its URL and what it loaded. */
function startWithHook(
  dir: string,
  dbPath: string,
  env: Record<string, string>,
): Promise<{ url: string; urls(): string[]; stop(): Promise<string[]> }> {
  const cli = join(ROOT, 'dist', 'cli', 'main.js');
  const child = spawn(
    process.execPath,
    [...moduleHookArgs(dir), cli, '--db', dbPath, 'ui', '--port', '0'],
    {
      env: {
        ...process.env,
        BRAIN_EMBEDDER: 'none',
        NO_COLOR: '1',
        XDG_CONFIG_HOME: join(dir, 'cfg'),
        BRAIN_ASSISTANT_CONFIG: '',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /brain ui: (http:\/\/\S+)/.exec(stderr);
      if (m)
        resolve({
          url: m[1]!,
          urls: () => loadedModules(stderr),
          stop: () =>
            new Promise((done) => {
              child.once('exit', () => done(loadedModules(stderr)));
              child.kill('SIGTERM');
            }),
        });
    });
    child.once('exit', (code) => reject(new Error(`brain ui exited ${code}: ${stderr}`)));
  });
}
