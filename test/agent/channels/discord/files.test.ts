import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

async function started(options?: Parameters<typeof discordFixture>[0]) {
  const f = await discordFixture(options);
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

  it('send_file posts a workspace file as a message with the file, kept with the reply', async () => {
    const f = await started({ file: { permissions: { tools: { send_file: 'allow' } } } });
    const notes = Buffer.from('# Minutes\n\nFees go up in March.\n');
    writeFileSync(join(f.config.workspace, 'minutes.md'), notes);
    f.anthropic.script.push(
      { toolUses: [{ name: 'send_file', input: { path: 'minutes.md', caption: 'the minutes' } }] },
      { text: 'Sent.' },
    );
    f.discord.dispatchMessage({ channelId: OWNER_DM, author: OWNER, content: 'the minutes?' });
    const upload = await f.discord.waitForCall((c) => c.files !== undefined);
    expect(upload.path).toBe(`/channels/${OWNER_DM}/messages`);
    expect(upload.body).toMatchObject({ content: 'the minutes' });
    expect(upload.files![0]!.name).toBe('minutes.md');
    expect(upload.files![0]!.bytes.equals(notes)).toBe(true);
    await f.discord.waitForCall((c) => c.body?.content === 'Sent.');
    const session = f.host.brain.assistant
      .sessions()
      .find((s) => s.name === f.host.ownerSession())!;
    const reply = f.host.brain.messages
      .thread({ thread_id: session.thread_id, limit: 100 })
      .messages.find((m) => m.from === 'assistant')!;
    expect(reply.attachments).toMatchObject([{ name: 'minutes.md', size: notes.length }]);
  });
});
