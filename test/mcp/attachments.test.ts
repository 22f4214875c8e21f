import Database from 'better-sqlite3';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  StdioClientTransport,
  getDefaultEnvironment,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, runCli, tempBrain, type TempBrain } from '../helpers.js';
import {
  call,
  callRaw,
  connectClient,
  connectInMemory,
  textOf,
  type Connected,
} from './helpers.js';

let t: TempBrain;
let root: string;
let analyst: Connected;
let reviewer: Connected;

beforeEach(async () => {
  t = await tempBrain();
  root = join(t.dir, 'work');
  mkdirSync(root);
  analyst = await connectInMemory(t.brain, { agent: 'analyst', attachRoots: [root] });
  reviewer = await connectInMemory(t.brain, { agent: 'reviewer' });
});
afterEach(async () => {
  await analyst.close();
  await reviewer.close();
  t.cleanup();
});

function rows(table: string): number {
  const db = new Database(t.path, { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('attachments over MCP', () => {
  it('a report attached by path is found by another agent through its words, and read back', async () => {
    writeFileSync(join(root, 'fees.md'), '# Fees\nThe quokka surcharge rose by 4 percent.\n');
    const sent = await call(analyst.client, 'send_message', {
      to: 'reviewer',
      body: 'analysis attached',
      attachments: [
        { path: join(root, 'fees.md') },
        { name: 'raw.csv', data: Buffer.from('k,v\nwombat,1\n').toString('base64') },
      ],
    });
    // The recipient's inbox shows the files with the message.
    const inbox = await callRaw(reviewer.client, 'read_inbox', {});
    expect(textOf(inbox)).toContain('attachment: fees.md (text/markdown');
    const found = await callRaw(reviewer.client, 'search', { query: 'quokka surcharge' });
    const hit = (found.structuredContent as { hits: Array<{ id: string; attachment?: string }> })
      .hits[0];
    expect(hit?.id).toBe(sent.id);
    expect(hit?.attachment).toBe('fees.md');
    expect(textOf(found)).toContain('in attachment fees.md');

    const thread = await callRaw(reviewer.client, 'get_thread', { thread_id: sent.thread_id });
    const files = (
      thread.structuredContent as {
        messages: Array<{ attachments: Array<{ name: string; sha256: string }> }>;
      }
    ).messages[0]!.attachments;
    expect(files.map((f) => f.name)).toEqual(['fees.md', 'raw.csv']);
    expect(textOf(thread)).toContain(`attachment: fees.md (text/markdown`);

    expect(textOf(thread)).toContain(`brain://attachment/${files[1]!.sha256}`);
    const read = await reviewer.client.readResource({
      uri: `brain://attachment/${files[1]!.sha256.slice(0, 12)}`,
    });
    const [text, blob] = read.contents as Array<{
      text?: string;
      blob?: string;
      mimeType?: string;
    }>;
    expect(text?.text).toContain('wombat');
    expect(Buffer.from(blob!.blob!, 'base64').toString()).toBe('k,v\nwombat,1\n');
    expect(blob?.mimeType).toBe('text/csv');

    // Knowledge learned from the message names its files in its provenance.
    const memory = t.brain.knowledge.remember({
      agent: 'reviewer',
      content: 'the quokka surcharge rose',
      source_message_id: sent.id,
    });
    const provenance = await callRaw(reviewer.client, 'find_provenance', { id: memory.id });
    expect(textOf(provenance)).toContain('attachment: fees.md (text/markdown');
    const source = (
      provenance.structuredContent as { message: { attachments: Array<{ name: string }> } }
    ).message;
    expect(source.attachments.map((f) => f.name)).toEqual(['fees.md', 'raw.csv']);
  });

  it('refuses paths outside the roots, symlinks out of them, and paths on a server without roots, storing nothing', async () => {
    writeFileSync(join(t.dir, 'secret.txt'), 'the owner keeps this');
    symlinkSync(join(t.dir, 'secret.txt'), join(root, 'innocent.txt'));
    for (const path of [
      join(t.dir, 'secret.txt'),
      join(root, 'innocent.txt'),
      join(root, '..', 'secret.txt'),
    ]) {
      const r = await callRaw(analyst.client, 'send_message', {
        body: 'x',
        attachments: [{ path }],
      });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/outside the folders this server may read/);
    }
    const none = await callRaw(reviewer.client, 'send_message', {
      body: 'x',
      attachments: [{ path: join(root, 'innocent.txt') }],
    });
    expect(textOf(none)).toMatch(/BRAIN_ATTACH_ROOTS/);
    const both = await callRaw(analyst.client, 'send_message', {
      body: 'x',
      attachments: [{ path: join(root, 'innocent.txt'), data: 'AA==', name: 'a' }],
    });
    expect(textOf(both)).toMatch(/either path or data/);
    const big = await callRaw(analyst.client, 'send_message', {
      body: 'x',
      attachments: [
        { name: 'big.bin', data: Buffer.alloc(2 * 1024 * 1024 + 3).toString('base64') },
      ],
    });
    expect(textOf(big)).toMatch(
      /files sent inline take at most 2097152 bytes \(give a path instead\)/,
    );
    expect(rows('messages')).toBe(0);
    expect(rows('attachment_blobs')).toBe(0);
  });

  it('brain mcp (the built server) reads paths under BRAIN_ATTACH_ROOTS, and brain search finds the report', async () => {
    writeFileSync(join(root, 'audit.txt'), 'The narwhal reconciliation found three gaps.\n');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--agent', 'auditor', '--db', t.path],
      env: { ...getDefaultEnvironment(), BRAIN_EMBEDDER: 'none', BRAIN_ATTACH_ROOTS: root },
      stderr: 'pipe',
    });
    const client = await connectClient(transport);
    try {
      const sent = await call(client, 'send_message', {
        body: 'audit done',
        attachments: [{ path: join(root, 'audit.txt') }],
      });
      const outside = await callRaw(client, 'send_message', {
        body: 'x',
        attachments: [{ path: t.path }],
      });
      expect(textOf(outside)).toMatch(/outside the folders/);
      const found = await runCli([
        '--db',
        t.path,
        '--agent',
        'reader',
        'search',
        'narwhal reconciliation',
      ]);
      expect(found.stdout).toContain(sent.id);
      expect(found.stdout).toContain('in attachment audit.txt:');
    } finally {
      await client.close();
    }
  });
});
