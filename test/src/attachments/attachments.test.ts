import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerIndexText } from '../../../src/db/index-text.js';
import { attachmentsFolder, INLINE_MAX_BYTES, openBrain } from '../../../src/index.js';
import { tempBrain, type TempBrain } from '../../helpers.js';
import { tinyPdf } from './pdf.js';

let t: TempBrain;
beforeEach(async () => {
  t = await tempBrain();
});
afterEach(() => t.cleanup());

const REPORT = `# Fee analysis\n\nThe settlement latency of the zanzibar gateway doubled after the upgrade.\n`;

function raw(path: string): Database.Database {
  const db = new Database(path, { readonly: true });
  registerIndexText(db);
  return db;
}

function count(path: string, sql: string): number {
  const db = raw(path);
  try {
    return (db.prepare(sql).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

function folderFiles(dbPath: string): string[] {
  const root = attachmentsFolder(dbPath);
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);
}

describe('attachments', () => {
  it('a report attached by one agent is found by another through words inside it, and the hit names the file', async () => {
    const sent = await t.brain.messages.sendFiles(
      { from: 'analyst', to: 'reviewer', body: 'Here is the analysis.' },
      [{ name: 'report.md', data: Buffer.from(REPORT), media_type: 'text/html' }],
    );
    // Matched again by the compiled extension, and without it in a temporary index.
    for (const other of [await t.reopen(), await t.reopen({ rankFunction: false })]) {
      const hits = other.search.search({ query: 'zanzibar gateway latency', types: ['message'] });
      expect(hits.hits[0]?.id).toBe(sent.id);
      expect(hits.hits[0]?.attachment).toBe('report.md');
      expect(hits.hits[0]?.snippet).toContain('[zanzibar]');
      // Words of the body alone: found, and not said to come from the file.
      const own = other.search.search({ query: 'analysis here', types: ['message'] });
      expect(own.hits[0]?.id).toBe(sent.id);
      expect(own.hits[0]?.attachment).toBeUndefined();
    }
    const other = await t.reopen();
    // The type is sniffed from the bytes (Markdown by its name), not taken from the claim.
    const history = other.messages.thread({ thread_id: sent.thread_id });
    expect(history.messages[0]?.attachments).toEqual([
      expect.objectContaining({
        name: 'report.md',
        media_type: 'text/markdown',
        size: REPORT.length,
      }),
    ]);
    // The index agrees with its content (rank 1: against the text the view gives, files included).
    const db = new Database(t.path);
    registerIndexText(db);
    expect(() =>
      db
        .prepare(`INSERT INTO messages_fts (messages_fts, rank) VALUES ('integrity-check', 1)`)
        .run(),
    ).not.toThrow();
    db.close();
  });

  it('reads the text of a PDF and of HTML', async () => {
    await t.brain.messages.sendFiles({ from: 'a', body: 'two files' }, [
      { name: 'q3.pdf', data: tinyPdf('quarterly marmalade forecast') },
      {
        name: 'page.html',
        data: Buffer.from(
          '<html><body><p>hedgehog <b>census</b></p><script>x()</script></body></html>',
        ),
      },
    ]);
    const pdf = t.brain.search.search({ query: 'marmalade forecast', types: ['message'] });
    expect(pdf.hits[0]?.attachment).toBe('q3.pdf');
    const html = t.brain.search.search({ query: 'hedgehog census', types: ['message'] });
    expect(html.hits[0]?.attachment).toBe('page.html');
    const stored = t.brain.messages.getAttachment(
      t.brain.messages.thread({ thread_id: pdf.hits[0]!.thread_id! }).messages[0]!.attachments![0]!
        .sha256,
    );
    expect(stored?.media_type).toBe('application/pdf');
  });

  it('stores the same bytes once, in the folder beside the brain when large', async () => {
    const big = Buffer.alloc(INLINE_MAX_BYTES + 10, 7);
    await t.brain.messages.sendFiles({ from: 'a', body: 'one' }, [{ name: 'x.bin', data: big }]);
    await t.brain.messages.sendFiles({ from: 'b', body: 'two' }, [
      { name: 'y.bin', data: big },
      { name: 'small.txt', data: Buffer.from('tiny') },
      { name: 'again.txt', data: Buffer.from('tiny') },
    ]);
    expect(count(t.path, `SELECT count(*) AS n FROM attachment_blobs`)).toBe(2);
    expect(count(t.path, `SELECT count(*) AS n FROM message_attachments`)).toBe(4);
    expect(count(t.path, `SELECT count(*) AS n FROM attachment_blobs WHERE data IS NULL`)).toBe(1);
    expect(folderFiles(t.path)).toHaveLength(1);
    const info = t.brain.messages.getAttachment(folderFiles(t.path)[0]!.slice(0, 12))!;
    expect(info.inline).toBe(false);
    expect(info.messages).toHaveLength(2);
    expect(t.brain.messages.attachmentBytes(info.sha256).equals(big)).toBe(true);
  });

  it('refuses a 20 MB file with a clear error and stores nothing', async () => {
    const huge = Buffer.alloc(20 * 1024 * 1024, 1);
    await expect(
      t.brain.messages.sendFiles({ from: 'a', body: 'too big' }, [
        { name: 'huge.bin', data: huge },
      ]),
    ).rejects.toThrow(
      /attachments\.0 \(huge\.bin\): is 20971520 bytes; the limit is 10485760 \(BRAIN_MAX_ATTACHMENT_BYTES\)/,
    );
    expect(count(t.path, `SELECT count(*) AS n FROM messages`)).toBe(0);
    expect(count(t.path, `SELECT count(*) AS n FROM attachment_blobs`)).toBe(0);
    expect(existsSync(attachmentsFolder(t.path))).toBe(false);
  });

  it("refuses files past the brain's total, naming the setting", async () => {
    const small = await tempBrain({ maxAttachmentsTotalBytes: 1000 });
    try {
      await small.brain.messages.sendFiles({ from: 'a', body: 'ok' }, [
        { name: 'a.txt', data: Buffer.alloc(600, 97) },
      ]);
      // The same bytes again cost nothing.
      await small.brain.messages.sendFiles({ from: 'a', body: 'ok' }, [
        { name: 'b.txt', data: Buffer.alloc(600, 97) },
      ]);
      await expect(
        small.brain.messages.sendFiles({ from: 'a', body: 'no' }, [
          { name: 'c.txt', data: Buffer.alloc(600, 98) },
        ]),
      ).rejects.toThrow(/BRAIN_MAX_ATTACHMENTS_TOTAL_BYTES/);
      expect(count(small.path, `SELECT count(*) AS n FROM messages`)).toBe(2);
    } finally {
      small.cleanup();
    }
  });

  it('a send that fails stores no attachment row', async () => {
    const first = t.brain.messages.send({ from: 'a', body: 'start' });
    t.brain.messages.setThreadStatus(first.thread_id, 'closed');
    await expect(
      t.brain.messages.sendFiles({ from: 'a', body: 'late', thread: first.thread_id }, [
        { name: 'r.txt', data: Buffer.from('words') },
      ]),
    ).rejects.toThrow(/closed/);
    expect(count(t.path, `SELECT count(*) AS n FROM attachment_blobs`)).toBe(0);
    expect(count(t.path, `SELECT count(*) AS n FROM message_attachments`)).toBe(0);
  });

  it('reads files by path only under the roots, refusing escapes, FIFOs and a server without roots', () => {
    const root = join(t.dir, 'root');
    mkdirSync(root);
    writeFileSync(join(root, 'ok.txt'), 'inside');
    writeFileSync(join(t.dir, 'secret.txt'), 'outside');
    symlinkSync(join(t.dir, 'secret.txt'), join(root, 'link.txt'));
    execFileSync('mkfifo', [join(root, 'pipe')]);
    const read = (p: string, roots?: string[]) => t.brain.messages.readAttachmentFile(p, { roots });
    expect(read(join(root, 'ok.txt'), [root]).data.toString()).toBe('inside');
    expect(() => read(join(t.dir, 'secret.txt'), [root])).toThrow(/outside the folders/);
    expect(() => read(join(root, 'link.txt'), [root])).toThrow(/outside the folders/);
    expect(() => read(join(root, '..', 'secret.txt'), [root])).toThrow(/outside the folders/);
    expect(() => read(join(root, 'pipe'), [root])).toThrow(/not a regular file/);
    expect(() => read(join(root, 'ok.txt'), [])).toThrow(/BRAIN_ATTACH_ROOTS/);
  });

  it('export → import keeps every byte, the large file in the folder included', async () => {
    const big = Buffer.alloc(INLINE_MAX_BYTES * 2);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31 + 7) & 0xff;
    const small = Buffer.from('zanzibar settlement figures\n');
    const sent = await t.brain.messages.sendFiles({ from: 'a', body: 'files' }, [
      { name: 'big.bin', data: big },
      { name: 'notes.txt', data: small },
    ]);
    const doc = JSON.parse(JSON.stringify(t.brain.transfer.export()));
    const other = await tempBrain();
    try {
      other.brain.transfer.import(doc);
      const files = other.brain.messages.getThreadMessage(sent.id)!.attachments!;
      expect(files.map((f) => f.name)).toEqual(['big.bin', 'notes.txt']);
      expect(other.brain.messages.attachmentBytes(files[0]!.sha256).equals(big)).toBe(true);
      expect(other.brain.messages.attachmentBytes(files[1]!.sha256).equals(small)).toBe(true);
      expect(folderFiles(other.path)).toEqual([files[0]!.sha256]);
      expect(other.brain.search.search({ query: 'zanzibar settlement' }).hits[0]?.attachment).toBe(
        'notes.txt',
      );
      // A file whose bytes were changed in the export is refused, and nothing is imported.
      const third = await tempBrain();
      try {
        const bad = JSON.parse(JSON.stringify(doc));
        bad.messages[0].attachments[1].data = Buffer.from('tampered').toString('base64');
        expect(() => third.brain.transfer.import(bad)).toThrow(/do not match its sha256/);
        expect(count(third.path, `SELECT count(*) AS n FROM messages`)).toBe(0);
        // A type the export claims is not taken: the bytes are sniffed again.
        const lying = JSON.parse(JSON.stringify(doc));
        lying.messages[0].attachments[1].media_type = 'image/png';
        third.brain.transfer.import(lying);
        expect(third.brain.messages.getAttachment(files[1]!.sha256)?.media_type).toBe('text/plain');
      } finally {
        third.cleanup();
      }
    } finally {
      other.cleanup();
    }
  });

  it('a backup carries the files kept in the folder', async () => {
    const big = Buffer.alloc(INLINE_MAX_BYTES + 1, 3);
    const sent = await t.brain.messages.sendFiles({ from: 'a', body: 'backup me' }, [
      { name: 'big.bin', data: big },
    ]);
    const file = join(t.dir, 'copy', 'backup.db');
    const result = await t.brain.upkeep.backup(file);
    expect(result.files).toBe(1);
    const restored = await openBrain({ dbPath: file, create: false });
    try {
      const [info] = restored.messages.getThreadMessage(sent.id)!.attachments!;
      expect(restored.messages.attachmentBytes(info!.sha256).equals(big)).toBe(true);
    } finally {
      restored.close();
    }
  });

  it('brain doctor reports a missing file and files nothing refers to, and a repair removes old ones', async () => {
    const big = Buffer.alloc(INLINE_MAX_BYTES + 1, 5);
    await t.brain.messages.sendFiles({ from: 'a', body: 'kept' }, [{ name: 'k.bin', data: big }]);
    expect((await t.brain.upkeep.doctor()).ok).toBe(true);
    // A file written by a send that then failed: nothing refers to it.
    const orphan = join(attachmentsFolder(t.path), 'ab', 'ab'.padEnd(64, '0'));
    mkdirSync(dirname(orphan), { recursive: true });
    writeFileSync(orphan, 'left over');
    const found = await t.brain.upkeep.doctor();
    expect(found.checks.find((c) => c.name === 'attachments')!.problems).toEqual([
      '1 file(s) nothing refers to (a repair removes those an hour old)',
    ]);
    // An hour later a repair removes it, and keeps the file a message names.
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
    utimesSync(orphan, old, old);
    const repaired = await t.brain.upkeep.doctor({
      repair: true,
      backup_path: join(t.dir, 'b.db'),
    });
    expect(repaired.ok).toBe(true);
    expect(existsSync(orphan)).toBe(false);
    expect(folderFiles(t.path)).toHaveLength(1);
    rmSync(join(attachmentsFolder(t.path), folderFiles(t.path)[0]!.slice(0, 2)), {
      recursive: true,
    });
    const missing = await t.brain.upkeep.doctor();
    expect(missing.checks.find((c) => c.name === 'attachments')!.problems[0]).toMatch(
      /^file [0-9a-f]{64} is missing/,
    );
  });
});
