import { afterEach, describe, expect, it } from 'vitest';
import { startFixture, type UiFixture } from './helpers.js';

let f: UiFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const HTML = '<html><body><script>alert(document.cookie)</script></body></html>';
const SVG = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';

describe('attachments in brain ui', () => {
  it('shows files on the thread page and serves them with safe types and dispositions', async () => {
    f = await startFixture({ seed: false });
    const sent = await f.brain.messages.sendFiles({ from: 'analyst', body: 'files' }, [
      { name: 'chart.png', data: PNG, media_type: 'text/html' },
      { name: 'evil.png', data: Buffer.from(HTML), media_type: 'image/png' },
      { name: 'logo.svg', data: Buffer.from(SVG), media_type: 'image/svg+xml' },
      { name: 'report "final".txt', data: Buffer.from('plain words') },
    ]);
    const files = f.brain.messages.getThreadMessage(sent.id)!.attachments!;
    const page = await (await f.get(`/threads/${sent.thread_id}`)).text();
    for (const file of files) expect(page).toContain(`/attachments/${file.sha256}`);
    // Only the real PNG is an image on the page.
    expect(page.match(/<img /g)).toHaveLength(1);
    expect(page).toContain(`<img src="/attachments/${files[0]!.sha256}"`);

    const get = (i: number) => f!.get(`/attachments/${files[i]!.sha256}`);
    const png = await get(0);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(png.headers.get('content-disposition')).toMatch(/^inline; filename="chart.png"/);
    expect(png.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await png.arrayBuffer()).equals(PNG)).toBe(true);

    // HTML claiming to be a PNG: a download of octet-stream, never text/html.
    const evil = await get(1);
    expect(evil.headers.get('content-type')).toBe('application/octet-stream');
    expect(evil.headers.get('content-disposition')).toMatch(/^attachment; /);
    expect(evil.headers.get('content-security-policy')).toContain('sandbox');
    const svg = await get(2);
    expect(svg.headers.get('content-type')).toBe('application/octet-stream');
    expect(svg.headers.get('content-disposition')).toMatch(/^attachment; /);

    const text = await get(3);
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(text.headers.get('content-disposition')).toBe(
      `attachment; filename="report _final_.txt"; filename*=UTF-8''report%20%22final%22.txt`,
    );
    expect((await f.get('/attachments/abc')).status).toBe(404);
    // The search page (a read-only connection) says which file a hit's words were in.
    const search = await (await f.get('/search?q=plain+words')).text();
    expect(search).toContain('in attachment report &quot;final&quot;.txt:');
    expect((await f.get(`/attachments/${'0'.repeat(64)}`)).status).toBe(404);
  });

  it('serves an image declaring more pixels than a page should decode as a download, not an image', async () => {
    f = await startFixture({ seed: false });
    // A PNG header claiming 100,000 × 100,000 pixels: 40 GB once decoded.
    const header = Buffer.alloc(13);
    header.writeUInt32BE(100_000, 0);
    header.writeUInt32BE(100_000, 4);
    const bomb = Buffer.concat([
      PNG.subarray(0, 8),
      Buffer.from([0, 0, 0, 13]),
      Buffer.from('IHDR'),
      header,
    ]);
    const sent = await f.brain.messages.sendFiles({ from: 'stranger', body: 'a picture' }, [
      { name: 'bomb.png', data: bomb },
    ]);
    const [file] = f.brain.messages.getThreadMessage(sent.id)!.attachments!;
    expect(file!.media_type).toBe('image/png');
    const res = await f.get(`/attachments/${file!.sha256}`);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="bomb.png"/);
  });
});
