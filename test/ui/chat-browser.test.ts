import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../agent/models/types.js';
import { openBrain } from '../../src/index.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';
import { tempDir } from '../helpers.js';
import { browserMissing, launchBrowser, spawnUi, type UiProcess } from './browser.js';

/**
 * The chat page in a real browser: the built `brain ui` as its own process, listening beyond
 * loopback (so a login is asked), with an assistant config whose model is the Anthropic fake.
 */

const missing = browserMissing();

if (missing) {
  describe('the chat page in a real browser', () => {
    it(`did not run: ${missing}`, () => {
      expect(missing).toBeTruthy();
    });
  });
} else {
  describe(
    'the chat page in a real browser (system chromium, headless)',
    { timeout: 60_000 },
    () => {
      const tmp = tempDir('brain-ui-chat-');
      const dbPath = join(tmp.dir, 'brain.db');
      const workspace = join(tmp.dir, 'ws');
      const built = join(workspace, 'build', 'out.js');
      let fake: FakeAnthropic;
      let ui: UiProcess;
      let base: string;
      let token: string;
      let browser: Browser;
      let page: Page;
      const pageErrors: string[] = [];

      beforeAll(async () => {
        fake = await startFakeAnthropic();
        mkdirSync(join(workspace, 'build'), { recursive: true });
        writeFileSync(built, 'built');
        const config = join(tmp.dir, 'assistant.json');
        writeFileSync(
          config,
          JSON.stringify({
            agent: 'assistant',
            owner: 'ann',
            workspace,
            models: {
              endpoints: [{ provider: 'anthropic', model: 'claude-fake', baseUrl: fake.baseUrl }],
            },
          }),
        );
        (await openBrain({ dbPath })).close();
        ui = await spawnUi(dbPath, ['--host', '0.0.0.0'], {
          BRAIN_ASSISTANT_CONFIG: config,
          XDG_CONFIG_HOME: join(tmp.dir, 'cfg'),
          ANTHROPIC_API_KEY: 'sk-test',
        });
        base = ui.url.replace('0.0.0.0', '127.0.0.1');
        for (let i = 0; i < 100 && !/login token for this run: \S+/.test(ui.stderr()); i++)
          await new Promise((resolve) => setTimeout(resolve, 20));
        token = /login token for this run: (\S+)/.exec(ui.stderr())![1]!;
        browser = await launchBrowser();
        page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
        page.on('pageerror', (e) => pageErrors.push(e.message));
      });

      afterAll(async () => {
        await browser?.close();
        await ui?.stop();
        await fake?.close();
        tmp.cleanup();
      });

      const history = () => page.locator('#chat-history');
      const sendMessage = async (text: string) => {
        await page.getByLabel('Message').fill(text);
        await page.getByRole('button', { name: 'Send' }).click();
      };
      const toolResult = (i: number) =>
        (fake.requests[i]!.body.messages as ChatMessage[]).at(-1)!.content[0] as {
          content: string;
          is_error?: boolean;
        };

      it('asks for the login beyond loopback: no cookie and a wrong token are refused', async () => {
        const form = { 'Content-Type': 'application/x-www-form-urlencoded', Origin: base };
        const bare = await fetch(`${base}/chat`, { redirect: 'manual' });
        expect(bare.status).toBe(303);
        expect(bare.headers.get('location')).toBe('/login');
        expect((await fetch(`${base}/chat/stream`)).status).toBe(401);
        const post = await fetch(`${base}/chat`, {
          method: 'POST',
          headers: form,
          body: new URLSearchParams({ text: 'run something', session: 'default' }).toString(),
        });
        expect(post.status).toBe(401);
        expect(fake.requests).toHaveLength(0);

        await page.goto(`${base}/chat`);
        await page.waitForURL(/\/login$/);
        await page.getByLabel('Token').fill(`${token}x`);
        await page.getByRole('button', { name: 'Log in' }).click();
        await expect(page.getByRole('alert').textContent()).resolves.toBe(
          'That token is not known.',
        );
        await page.getByLabel('Token').fill(token);
        await page.getByRole('button', { name: 'Log in' }).click();
        await page.waitForURL(`${base}/`);
        await page.getByRole('link', { name: 'Chat', exact: true }).click();
        await page.waitForURL(/\/chat$/);
        await page.locator('#chat[data-connected="yes"]').waitFor();
        expect(ui.stderr()).not.toMatch(/run something/);
      });

      it('sends a message and shows the reply, as text', async () => {
        fake.script.push({ text: 'Hello <img src=x onerror="window.__pwned=1"> there.' });
        await sendMessage('hi');
        await history().getByText('Hello <img src=x').waitFor();
        await expect(history().locator('.chat-msg.mine').last().textContent()).resolves.toContain(
          'hi',
        );
        expect(await history().locator('img').count()).toBe(0);
        expect(await page.evaluate('window.__pwned')).toBeUndefined();
        expect(JSON.stringify(fake.requests.at(-1)!.body.messages)).toContain('hi');
        // A slash command is answered on the page without a model call.
        const calls = fake.requests.length;
        await sendMessage('/status');
        await page.locator('#chat-command').getByText('Session chat/default').waitFor();
        expect(fake.requests).toHaveLength(calls);
      });

      it('streams the reply: the first words show before the rest is written', async () => {
        let release!: () => void;
        const hold = new Promise<void>((resolve) => (release = resolve));
        fake.script.push({ text: ['The first words, ', 'then the rest.'], hold });
        await sendMessage('tell me slowly');
        const streaming = page.locator('#chat-turn .streaming');
        await streaming.getByText('The first words,').waitFor();
        await expect(streaming.textContent()).resolves.not.toContain('then the rest');
        release();
        await history().getByText('The first words, then the rest.').waitFor();
      });

      it('runs a command approved on the page', async () => {
        fake.script.push(
          { toolUses: [{ name: 'run_command', input: { command: 'rm -rf build' } }] },
          { text: 'Deleted build/.' },
        );
        const before = fake.requests.length;
        await sendMessage('delete build/');
        const question = page.locator('.chat-approval');
        await question.getByText('rm -rf build').waitFor();
        expect(existsSync(built)).toBe(true);
        await question.getByRole('button', { name: 'Approve' }).click();
        await history().getByText('Deleted build/.').waitFor();
        expect(existsSync(built)).toBe(false);
        expect(toolResult(before + 1).is_error).toBeUndefined();
        expect(await question.count()).toBe(0);
      });

      it('runs nothing denied on the page', async () => {
        mkdirSync(join(workspace, 'build'), { recursive: true });
        writeFileSync(built, 'built again');
        fake.script.push(
          { toolUses: [{ name: 'run_command', input: { command: 'rm -rf build' } }] },
          { text: 'I left build/ alone.' },
        );
        const before = fake.requests.length;
        await sendMessage('delete build/ again');
        const question = page.locator('.chat-approval');
        await question.getByRole('button', { name: 'Deny' }).click();
        await history().getByText('I left build/ alone.').waitFor();
        expect(existsSync(built)).toBe(true);
        expect(toolResult(before + 1)).toMatchObject({ is_error: true });
        expect(toolResult(before + 1).content).toMatch(/denied by the owner/);
        expect(pageErrors).toEqual([]);
      });
    },
  );
}
