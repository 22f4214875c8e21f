import { afterEach, describe, expect, it } from 'vitest';
import { extractText } from '../../../src/attachments/extract.js';
import { tempBrain, type TempBrain } from '../../helpers.js';
import { tinyPdf } from './pdf.js';

let t: TempBrain | undefined;
afterEach(() => t?.cleanup());

describe('reading hostile files for their text', () => {
  it('a PDF whose reading passes the time limit is sent, kept whole, found by its name only, and its thread says why', async () => {
    // A limit no worker can meet stands for a PDF crafted to keep pdf.js busy for minutes.
    t = await tempBrain({ attachmentTextTimeoutMs: 1 });
    const pdf = tinyPdf('quarterly marmalade forecast');
    const sent = await t.brain.messages.sendFiles({ from: 'stranger', body: 'look at this' }, [
      { name: 'slowpoke.pdf', data: pdf },
      { name: 'notes.txt', data: Buffer.from('the wombat ledger balances') },
    ]);
    const [file, notes] = t.brain.messages.thread({ thread_id: sent.thread_id }).messages[0]!
      .attachments!;
    expect(file).toMatchObject({ name: 'slowpoke.pdf', text_skipped: 'timeout' });
    expect(notes).not.toHaveProperty('text_skipped');
    const stored = t.brain.messages.getAttachment(file!.sha256)!;
    expect(stored).toMatchObject({ text: null, text_skipped: 'timeout' });
    expect(t.brain.messages.attachmentBytes(file!.sha256).equals(pdf)).toBe(true);
    const search = (query: string) =>
      t!.brain.search.search({ query, types: ['message'] }).hits.map((h) => h.id);
    expect(search('marmalade forecast')).toEqual([]);
    expect(search('slowpoke')).toEqual([sent.id]);
    expect(search('wombat ledger')).toEqual([sent.id]);

    // An export carries why, and an import keeps it.
    const other = await tempBrain();
    try {
      other.brain.transfer.import(JSON.parse(JSON.stringify(t.brain.transfer.export())));
      expect(other.brain.messages.getAttachment(file!.sha256)).toMatchObject({
        text: null,
        text_skipped: 'timeout',
      });
    } finally {
      other.cleanup();
    }
  });

  it('HTML nested past the stack is kept without text, and the send goes through', async () => {
    t = await tempBrain();
    const nested = '<div>'.repeat(20_000) + 'zebra' + '</div>'.repeat(20_000);
    const sent = await t.brain.messages.sendFiles({ from: 'stranger', body: 'a page' }, [
      { name: 'deep.html', data: Buffer.from(nested) },
    ]);
    const [file] = t.brain.messages.thread({ thread_id: sent.thread_id }).messages[0]!.attachments!;
    expect(file).toMatchObject({ name: 'deep.html', media_type: 'text/html' });
    expect(t.brain.messages.getAttachment(file!.sha256)).toMatchObject({ text: null });
  });

  it('a reader that outgrows its heap ends with "memory", not the caller', async () => {
    // Wide enough that html-to-text's tree of it passes a 16 MiB heap.
    const wide = '<table>' + '<tr><td>a</td><td>b</td></tr>'.repeat(200_000) + '</table>';
    const read = await extractText(Buffer.from(wide), 'text/html', 20_000, 16);
    expect(read).toEqual({ text: undefined, skipped: 'memory' });
  });
});
