import { afterEach, describe, expect, it } from 'vitest';
import { discordFileAllowed } from '../../../../agent/channels/discord/files.js';
import { createRecorder, serveHttp, type HttpFake } from '../../../fakes/http.js';
import { discordFixture, OWNER, OWNER_DM, type DiscordFixture } from './setup.js';

/** Discord attachments: fetched only from Discord's CDN (here the fake's), kept with the message. */

const fixtures: DiscordFixture[] = [];
let elsewhere: HttpFake | undefined;
afterEach(async () => {
  for (const f of fixtures.splice(0)) await f.close();
  await elsewhere?.close();
  elsewhere = undefined;
});

async function started() {
  const f = await discordFixture();
  fixtures.push(f);
  await f.channel.start(f.host);
  return f;
}

const ownerMessages = (f: DiscordFixture) => {
  const session = f.host.brain.assistant.sessions().find((s) => s.name === f.host.ownerSession());
  if (!session) return [];
  return f.host.brain.messages
    .thread({ thread_id: session.thread_id, limit: 100 })
    .messages.filter((m) => m.from === 'ann');
};

describe('Files sent to the assistant on Discord', { timeout: 60_000 }, () => {
  it("keeps a DM's attachment byte for byte with the owner's message and tells the model of it", async () => {
    const f = await started();
    f.anthropic.script.push({ text: 'Read it.' });
    const diff = Buffer.from('--- a/fees.ts\n+++ b/fees.ts\n-const fee = 1;\n+const fee = 2;\n');
    const file = f.discord.addFile(diff, 'fees.diff', { contentType: 'text/x-diff' });
    f.discord.dispatchMessage({
      channelId: OWNER_DM,
      author: OWNER,
      content: 'review this',
      attachments: [file],
    });
    await f.discord.waitForCall(
      (c) => c.method === 'POST' && c.path === `/channels/${OWNER_DM}/messages`,
    );
    const [stored] = ownerMessages(f);
    expect(stored!.body).toMatch(/^review this\n/);
    expect(stored!.attachments).toMatchObject([{ name: 'fees.diff', size: diff.length }]);
    const sha = stored!.attachments![0]!.sha256;
    expect(f.host.brain.messages.attachmentBytes(sha).equals(diff)).toBe(true);
    const request = JSON.stringify(f.anthropic.requests[0]!.body.messages);
    expect(request).toContain('fees.diff');
    expect(request).toContain('+const fee = 2;');
  });

  it('never fetches an attachment whose URL is not on the CDN: a reply, and nothing kept', async () => {
    const f = await started();
    const recorder = createRecorder<string>();
    elsewhere = await serveHttp((req, res) => {
      recorder.record(req.url ?? '');
      res.end('secret');
    });
    const file = f.discord.addFile(Buffer.from('x'), 'a.txt');
    // Another host on the same machine, which a crafted message might name.
    const foreign = { ...file, url: `${elsewhere.url}/attachments/1/a.txt` };
    const sent = f.discord.dispatchMessage({
      channelId: OWNER_DM,
      author: OWNER,
      content: 'look',
      attachments: [foreign],
    });
    const answer = await f.discord.waitForCall(
      (c) => c.method === 'POST' && c.path === `/channels/${OWNER_DM}/messages`,
    );
    expect(answer.body).toMatchObject({ message_reference: { message_id: sent.id } });
    expect(String(answer.body?.content)).toMatch(/could not download a\.txt; nothing was kept/);
    expect(recorder.calls).toEqual([]);
    expect(ownerMessages(f)).toEqual([]);
    expect(f.anthropic.requests).toHaveLength(0);
    // Discord's own CDN over https is allowed; plain http, another port or host, or userinfo are not.
    const api = 'https://discord.com/api';
    expect(discordFileAllowed('https://cdn.discordapp.com/attachments/1/2/a.png', api)).toBe(true);
    for (const url of [
      'http://cdn.discordapp.com/attachments/1/2/a.png',
      'https://cdn.discordapp.com:8443/a.png',
      'https://cdn.discordapp.com.evil.example/a.png',
      'https://user@cdn.discordapp.com/a.png',
      `${elsewhere.url}/a.png`,
    ])
      expect(discordFileAllowed(url, api)).toBe(false);
  });
});
