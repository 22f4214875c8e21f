import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBrain } from '../../src/index.js';
import { runCli, tempDir } from '../helpers.js';
import { browserMissing, launchBrowser, spawnUi, type UiProcess } from './browser.js';
import { seedBrain, type Seeded } from './seed.js';

const missing = browserMissing();

/** A real PNG of the given size (grey pixels), small enough to build here. */
function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth; colour type 0 (grey), no interlace
  const rows = Buffer.alloc((width + 1) * height, 0x80);
  for (let y = 0; y < height; y++) rows[y * (width + 1)] = 0; // filter: none
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

if (missing) {
  describe('brain ui in a real browser', () => {
    it(`did not run: ${missing}`, () => {
      expect(missing).toBeTruthy();
    });
  });
} else {
  describe('brain ui in a real browser (system chromium, headless)', () => {
    const tmp = tempDir('brain-ui-browser-');
    const dbPath = join(tmp.dir, 'brain.db');
    const shots = join(tmp.dir, 'screenshots');
    let seeded: Seeded;
    let ui: UiProcess;
    let browser: Browser;
    let page: Page;
    const dialogs: string[] = [];
    const pageErrors: string[] = [];

    beforeAll(async () => {
      mkdirSync(shots);
      const brain = await openBrain({ dbPath });
      seeded = seedBrain(brain);
      brain.close();
      ui = await spawnUi(dbPath);
      browser = await launchBrowser();
      page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
      page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      page.on('pageerror', (e) => pageErrors.push(e.message));
    });

    afterAll(async () => {
      await browser?.close();
      await ui?.stop();
      if (keepShots) console.log(`brain ui browser test: screenshots in ${shots}`);
    });

    // Screenshots only for people who keep them: a full-page PNG per visit is most of this
    // file's time, and without BRAIN_KEEP_SCREENSHOTS the folder is removed unread.
    const keepShots = Boolean(process.env.BRAIN_KEEP_SCREENSHOTS);
    const visit = async (path: string, shot: string) => {
      const res = await page.goto(ui.url + path);
      expect(res?.status(), path).toBe(200);
      if (keepShots) await page.screenshot({ path: join(shots, `${shot}.png`), fullPage: true });
    };
    const pwned = () => page.evaluate('window.__pwned');

    it('loads every page of a seeded brain', async () => {
      const pages: Array<[string, string, string]> = [
        ['/', 'start', 'What is going on'],
        ['/agents', 'agents', 'Agents'],
        ['/threads', 'threads', 'Threads'],
        [`/threads/${seeded.thread}`, 'thread', 'Deploy of the search service'],
        ['/inbox/nova', 'inbox', 'Inbox of nova'],
        [`/provenance/${seeded.stm}`, 'provenance-stm', 'Provenance of a memory'],
        ['/assistant', 'assistant', 'Assistant'],
      ];
      for (const [path, shot, heading] of pages) {
        await visit(path, shot);
        await expect(page.locator('h1').textContent()).resolves.toBe(heading);
      }
      expect(pageErrors).toEqual([]);
    });

    it('shows hostile content as text and runs none of it', async () => {
      await visit(`/threads/${seeded.hostileThread}`, 'hostile-thread');
      await expect(page.locator('.message .body').first().textContent()).resolves.toContain(
        '<script>window.__pwned = 1</script>',
      );
      await expect(page.locator('.message .body img').count()).resolves.toBe(0);
      await expect(page.locator('a[href^="javascript:"]').count()).resolves.toBe(0);
      await visit('/agents', 'hostile-agents');
      await visit('/search?q=pwned', 'hostile-search');
      expect(await pwned()).toBeUndefined();
      expect(dialogs).toEqual([]);
    });

    it('searches from the box and shows which retriever found each hit', async () => {
      await visit('/search', 'search-empty');
      await page.getByLabel('Words').fill('WAL files');
      await page.getByRole('button', { name: 'Search', exact: true }).last().click();
      await page.waitForURL(/\/search\?q=WAL/);
      const hits = page.locator('.hit');
      expect(await hits.count()).toBeGreaterThan(0);
      await expect(hits.first().locator('.retriever').textContent()).resolves.toMatch(/^fts #1$/);
      await page.screenshot({ path: join(shots, 'search.png'), fullPage: true });
    });

    it('opens a provenance graph and follows a node to another atom', async () => {
      await visit(`/provenance/${seeded.atoms[1]}`, 'provenance-graph');
      const graph = page.locator('figure.graph svg[role="img"]');
      await expect(graph.isVisible()).resolves.toBe(true);
      const box = await graph.boundingBox();
      expect(box!.width).toBeGreaterThan(300);
      await page.locator(`figure.graph a[href="/provenance/${seeded.atoms[0]}"]`).click();
      await page.waitForURL(new RegExp(`/provenance/${seeded.atoms[0]}$`));
      await expect(page.locator('h1').textContent()).resolves.toBe('Provenance of an atom');
    });

    it('approves a pending approval with its button', async () => {
      await visit('/assistant', 'assistant-before');
      await page
        .getByRole('button', { name: new RegExp(`^Approve request ${seeded.approval}`) })
        .click();
      await page.waitForURL(/\/assistant\?done=/);
      await expect(page.locator('.notice').textContent()).resolves.toContain(
        `Request ${seeded.approval} approved.`,
      );
      const reader = await openBrain({ dbPath, readonly: true });
      try {
        expect(reader.assistant.getApproval(seeded.approval)).toMatchObject({
          decision: 'approved',
          decided_by: 'owner',
        });
      } finally {
        reader.close();
      }
    });

    it('shows a message sent by another process without a reload', async () => {
      await visit(`/threads/${seeded.thread}`, 'thread-before-live');
      await page.evaluate('window.__sameDocument = true');
      const sent = await runCli([
        '--db',
        dbPath,
        '--agent',
        'atlas',
        'send',
        '--to',
        'nova',
        '--thread',
        seeded.thread,
        '--body',
        'hello from another process',
      ]);
      expect(sent.code, sent.stderr).toBe(0);
      await page
        .locator('#messages')
        .getByText('hello from another process')
        .waitFor({ timeout: 10_000 });
      expect(await page.evaluate('window.__sameDocument')).toBe(true);
      await visit('/', 'start-after-live');
      const other = await runCli([
        '--db',
        dbPath,
        '--agent',
        'nova',
        'send',
        '--to',
        'helios',
        '--body',
        'a new thread',
      ]);
      expect(other.code, other.stderr).toBe(0);
      await page.locator('#live').getByText('New message from nova').waitFor({ timeout: 10_000 });
    });

    it('shows a read, an ack and a memory written by other processes without a reload', async () => {
      const writer = await openBrain({ dbPath });
      const sent = writer.messages.send({
        from: 'atlas',
        to: 'nova',
        thread: seeded.thread,
        body: 'please acknowledge this one',
      });
      writer.close();
      await visit(`/threads/${seeded.thread}`, 'thread-before-receipts');
      await page.evaluate('window.__sameDocument = true');
      const item = page.locator(`[id="${sent.id}"]`);
      await item.locator('.receipts').getByText('unread').waitFor({ timeout: 10_000 });
      const cli = (...args: string[]) => runCli(['--db', dbPath, '--agent', 'nova', ...args]);
      const acked = await cli('ack', sent.id, '--body', 'done by another process');
      expect(acked.code, acked.stderr).toBe(0);
      await item.locator('.acks').getByText('done by another process').waitFor({ timeout: 10_000 });
      await expect(item.locator('.receipts').textContent()).resolves.toMatch(/nova:\s*read/);
      const remembered = await cli('remember', 'learned live from the ack', '--source', sent.id);
      expect(remembered.code, remembered.stderr).toBe(0);
      await item.locator('.learned').getByText('learned live from the ack').waitFor({
        timeout: 10_000,
      });
      await page.screenshot({ path: join(shots, 'thread-after-receipts.png'), fullPage: true });
      expect(await page.evaluate('window.__sameDocument')).toBe(true);
    });

    it('updates the counts on the agents and start pages without a reload', async () => {
      const counts = () => page.locator('#agent-nova + p.meta').textContent();
      await visit('/agents', 'agents-before-live');
      await page.evaluate('window.__sameDocument = true');
      const received = Number(/(\d+) received/.exec((await counts())!)![1]);
      const sent = await runCli([
        '--db',
        dbPath,
        '--agent',
        'atlas',
        'send',
        '--to',
        'nova',
        '--body',
        'count me',
      ]);
      expect(sent.code, sent.stderr).toBe(0);
      await page
        .locator('#agent-nova + p.meta')
        .getByText(`${received + 1} received`)
        .waitFor({ timeout: 10_000 });
      await visit('/', 'start-before-read');
      await page.evaluate('window.__sameDocument = true');
      const unread = page.locator('#start-agents a[href="/inbox/nova"].badge');
      const before = Number(/\d+/.exec((await unread.textContent())!)![0]);
      expect(before).toBeGreaterThan(0);
      const read = await runCli(['--db', dbPath, '--agent', 'nova', 'read', '--limit', '1']);
      expect(read.code, read.stderr).toBe(0);
      await page
        .locator('#start-agents')
        .getByText(`${before - 1} unread`)
        .waitFor({ timeout: 10_000 });
      expect(await page.evaluate('window.__sameDocument')).toBe(true);
    });

    it("updates an inbox and a message's provenance without a reload", async () => {
      await visit('/inbox/nova', 'inbox-before-live');
      await page.evaluate('window.__sameDocument = true');
      const heading = page.locator('#inbox-unread h2');
      const unread = Number(/\((\d+)\)/.exec((await heading.textContent())!)![1]);
      const sent = await runCli([
        '--db',
        dbPath,
        '--agent',
        'atlas',
        'send',
        '--to',
        'nova',
        '--body',
        'inbox, live',
        '--json',
      ]);
      expect(sent.code, sent.stderr).toBe(0);
      await page
        .locator('#inbox-unread')
        .getByText(`Unread (${unread + 1})`)
        .waitFor({ timeout: 10_000 });
      await page
        .locator('#inbox-unread')
        .getByText('inbox, live')
        .first()
        .waitFor({ timeout: 10_000 });

      const id = (JSON.parse(sent.stdout) as { id: string }).id;
      await visit(`/provenance/${id}`, 'provenance-before-live');
      await page.evaluate('window.__sameDocument = true');
      const learned = await runCli([
        '--db',
        dbPath,
        '--agent',
        'nova',
        'remember',
        'learned while the page was open',
        '--source',
        id,
      ]);
      expect(learned.code, learned.stderr).toBe(0);
      await page
        .locator('#learned')
        .getByText('learned while the page was open')
        .waitFor({ timeout: 10_000 });
      expect(await page.evaluate('window.__sameDocument')).toBe(true);
    });

    it('is usable on a phone-sized screen and by keyboard', async () => {
      await page.setViewportSize({ width: 375, height: 700 });
      await visit(`/threads/${seeded.thread}`, 'thread-phone');
      const width = await page.evaluate('document.documentElement.scrollWidth');
      expect(width).toBeLessThanOrEqual(375);
      await page.keyboard.press('Tab');
      await expect(
        page.evaluate('document.activeElement && document.activeElement.textContent'),
      ).resolves.toBe('Skip to content');
      await page.setViewportSize({ width: 1000, height: 800 });
    });

    it('shows an image inline, downloads other files, and never renders an HTML attachment', async () => {
      const brain = await openBrain({ dbPath });
      const sent = await brain.messages.sendFiles(
        { from: 'atlas', to: 'nova', subject: 'Files', body: 'the chart, the fees, a page' },
        [
          { name: 'chart.png', data: png(3, 2) },
          { name: 'fees.csv', data: Buffer.from('month,fee\nJuly,4\n') },
          {
            name: 'page.html',
            data: Buffer.from(
              '<html><body><p>hello</p><script>localStorage.setItem("pwned", "1"); window.__pwned = 1;' +
                ' document.body.append(Object.assign(document.createElement("div"), { id: "pwned" }));</script></body></html>',
            ),
          },
        ],
      );
      brain.close();
      await visit(`/threads/${sent.thread_id}`, 'thread-attachments');
      // A function, not a string: the page's CSP (no 'unsafe-eval') refuses a string predicate.
      await expect
        .poll(
          () =>
            page.locator('.attachments img').evaluate((i) => (i as { complete: boolean }).complete),
          { timeout: 10_000 },
        )
        .toBe(true);
      expect(
        await page
          .locator('.attachments img')
          .evaluate((i) => (i as { naturalWidth: number }).naturalWidth),
      ).toBe(3);

      const csv = page.locator('.attachments a', { hasText: 'fees.csv' });
      const headers = (
        await page.request.get(ui.url + (await csv.getAttribute('href'))!)
      ).headers();
      expect(headers['content-disposition']).toMatch(/^attachment; filename="fees.csv"/);
      const [download] = await Promise.all([page.waitForEvent('download'), csv.click()]);
      expect(download.suggestedFilename()).toBe('fees.csv');

      const htmlUrl =
        ui.url +
        (await page.locator('.attachments a', { hasText: 'page.html' }).getAttribute('href'))!;
      const opened = await browser.newPage();
      const [saved] = await Promise.all([
        opened.waitForEvent('download'),
        opened.goto(htmlUrl).catch((e: Error) => e),
      ]);
      expect(saved.suggestedFilename()).toBe('page.html');
      await opened.close();
      // Nothing of the script's, in the ui's origin or any document of it.
      await visit(`/threads/${sent.thread_id}`, 'thread-attachments-after');
      expect(await page.evaluate('localStorage.getItem("pwned")')).toBeNull();
      expect(await pwned()).toBeUndefined();
      await expect(page.locator('#pwned').count()).resolves.toBe(0);
      expect(pageErrors).toEqual([]);
    });

    afterAll(() => {
      if (!process.env.BRAIN_KEEP_SCREENSHOTS) tmp.cleanup();
    });
  });
}
