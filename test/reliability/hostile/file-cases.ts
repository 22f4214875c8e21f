/**
 * Hostile files for import and migrate: truncated, malformed, mis-shaped, mis-referenced, and
 * paths that point where they should not. Every case states its outcome.
 */
import { symlinkSync, writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import {
  readJsonFile,
  type Brain,
  type ExportDocument,
  type LegacyReport,
} from '../../../src/index.js';

export type FileExpectation =
  | { reject: 'INVALID_INPUT' | 'NOT_FOUND'; message: RegExp }
  | { accept: (result: unknown, brain: Brain) => void };

export interface FileCase {
  category: string;
  name: string;
  /** Files to write (relative to the case's folder) before running. */
  files?: Record<string, string>;
  run: (brain: Brain, dir: string) => unknown;
  expect: FileExpectation;
}

type Json = Record<string, unknown>;
const clone = <T>(v: T): T => structuredClone(v);
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Evenly spaced cuts of a text, never the whole of it. */
function cuts(text: string, count: number): number[] {
  const out = new Set<number>();
  for (let i = 0; i < count; i++) out.add(Math.floor(((text.length - 2) * i) / count));
  return [...out];
}

// ---------------------------------------------------------------------------------------------
// brain import

const FIELDS: Record<string, Record<string, unknown>> = {
  agents: {
    name: 42,
    display_name: 42,
    capabilities: 'all',
    created_at: 'yesterday',
    last_seen_at: 0,
  },
  threads: {
    id: 'thr_x',
    subject: 42,
    status: 'deleted',
    tags: 'a,b',
    created_by: 'bad name',
    created_at: '2026-01-01',
    last_message_at: null,
    message_count: -1,
  },
  messages: {
    id: 'syn_1',
    thread_id: 'thr_1',
    from: '',
    to: 42,
    reply_to: 'syn_zzz',
    priority: 'DROP',
    subject: 42,
    body: 'a\u0000b',
    metadata: [1],
    created_at: '2026-01-01T00:00:00Z',
    receipts: {},
    acks: 'none',
  },
  stm: {
    id: 'stm_1',
    agent: '',
    content: 'x\uD800',
    categories: 'a',
    importance: 5,
    source_message_id: 'syn_1',
    created_at: 1,
    expires_at: 'soon',
    access_count: -1,
    last_accessed_at: 'x',
  },
  atoms: {
    id: 'atm_1',
    agent: 'a b',
    subject: null,
    action: 42,
    outcome: [],
    consequences: {},
    confidence: 2,
    source_message_id: 'x',
    created_at: '',
  },
  atom_links: { from: 'atm_1', to: 'x', type: 'hates', strength: -1, created_at: 'now' },
};

export function importCases(doc: ExportDocument, text: string): FileCase[] {
  const cases: FileCase[] = [];
  const base = doc as unknown as Json;
  const mutate = (name: string, path: string, change: (d: Json) => void) => {
    const d = clone(base);
    change(d);
    cases.push({
      category: 'import: malformed documents',
      name,
      run: (b) => b.transfer.import(d),
      expect: { reject: 'INVALID_INPUT', message: new RegExp(`^import: (.*; )?${esc(path)}: `) },
    });
  };

  for (const key of Object.keys(base)) mutate(`without "${key}"`, key, (d) => delete d[key]);
  mutate('of another format', 'format', (d) => (d.format = 'synapse'));
  mutate('of a newer version', 'version', (d) => (d.version = 3));
  mutate('with a "__proto__" key', 'input', (d) =>
    Object.defineProperty(d, '__proto__', { value: { polluted: true }, enumerable: true }),
  );
  mutate('with an unknown section', 'input', (d) => (d.users = []));
  for (const section of Object.keys(FIELDS)) {
    for (const wrong of [{}, 'rows', null, 42])
      mutate(`whose ${section} is ${JSON.stringify(wrong)}`, section, (d) => (d[section] = wrong));
    for (const [field, bad] of Object.entries(FIELDS[section]!)) {
      mutate(`whose ${section}.0 lacks ${field}`, `${section}.0.${field}`, (d) => {
        delete (d[section] as Json[])[0]![field];
      });
      mutate(
        `whose ${section}.0.${field} is ${JSON.stringify(bad)}`,
        `${section}.0.${field}`,
        (d) => {
          (d[section] as Json[])[0]![field] = bad;
        },
      );
    }
    mutate(`whose ${section}.0 has an unknown field`, `${section}.0`, (d) => {
      (d[section] as Json[])[0]!.evil = "'; DROP TABLE messages; --";
    });
    mutate(`whose ${section}.0 is not an object`, `${section}.0`, (d) => {
      (d[section] as unknown[])[0] = 'row';
    });
  }

  // Well-formed, but pointing at things the file does not hold: refused whole, naming the row.
  const refs: Array<[string, (d: ExportDocument) => void, RegExp]> = [
    [
      'a message from an agent not in the file',
      (d) => (d.messages[0]!.from = 'ghost'),
      /names agent ghost, which is not in the file/,
    ],
    [
      'a message to an agent not in the file',
      (d) => (d.messages[0]!.to = 'ghost'),
      /names agent ghost/,
    ],
    [
      'a receipt of an agent not in the file',
      (d) => (d.messages[0]!.receipts = [{ agent: 'ghost', read_at: null }]),
      /names agent ghost/,
    ],
    [
      'a message in a thread not in the file',
      (d) => (d.messages[0]!.thread_id = 'thr_00000000-0000-4000-8000-000000000000'),
      /refers to thr_00000000-0000-4000-8000-000000000000, which is not in the file/,
    ],
    [
      'a reply to a message not in the file',
      (d) => (d.messages[0]!.reply_to = 'syn_000000000000'),
      /refers to syn_000000000000, which is not in the file/,
    ],
    [
      'a memory whose source is not in the file',
      (d) => (d.stm[0]!.source_message_id = 'syn_000000000000'),
      /STM entry .* refers to syn_000000000000/,
    ],
    [
      'a link to an atom not in the file',
      (d) => (d.atom_links[0]!.to = 'atm_000000000000'),
      /refers to atm_000000000000/,
    ],
    [
      'a thread created by an agent not in the file',
      (d) => (d.threads[0]!.created_by = 'ghost'),
      /names agent ghost/,
    ],
  ];
  for (const [name, change, message] of refs) {
    const d = clone(doc);
    change(d);
    cases.push({
      category: 'import: dangling references',
      name,
      run: (b) => b.transfer.import(d),
      expect: { reject: 'INVALID_INPUT', message },
    });
  }

  // Truncated files: the JSON is refused by position, quoting nothing.
  for (const at of cuts(text, 40)) {
    cases.push({
      category: 'import: truncated files',
      name: `cut after ${at} of ${text.length} characters`,
      files: { 'cut.json': text.slice(0, at) },
      run: (b, dir) => b.transfer.import(readForImport(`${dir}/cut.json`)),
      expect: { reject: 'INVALID_INPUT', message: /^file: .*cut\.json is not valid JSON: / },
    });
  }

  // Correct results: the same document twice adds nothing the second time.
  cases.push({
    category: 'import: repeats',
    name: 'the same document twice adds nothing the second time',
    run: (b) => [b.transfer.import(clone(doc)), b.transfer.import(clone(doc))],
    expect: {
      accept: (r) => {
        const [, second] = r as Array<{ imported: Record<string, number> }>;
        expect(Object.values(second!.imported).every((n) => n === 0)).toBe(true);
      },
    },
  });
  return cases;
}

/** What `brain import FILE` does before importing. */
const readForImport = (path: string) => readJsonFile(path, 'file');

// ---------------------------------------------------------------------------------------------
// brain migrate --synapse / --cortex

const GOOD = {
  id: 'ok-1',
  from: 'ada',
  to: 'bob',
  body: 'fine',
  timestamp: '2025-01-01T00:00:00Z',
};

const BAD_SYNAPSE_RECORDS: Array<[string, unknown, RegExp]> = [
  ['null', null, /^not an object$/],
  ['a number', 7, /^not an object$/],
  ['a string', 'hello', /^not an object$/],
  ['an array', [GOOD], /^not an object$/],
  ['no sender', { ...GOOD, id: 'b1', from: undefined }, /^no sender/],
  [
    'an SQL sender',
    { ...GOOD, id: 'b2', from: "'; DROP TABLE agents; --" },
    /is not a valid agent name$/,
  ],
  ['a path as sender', { ...GOOD, id: 'b3', from: '../../root' }, /is not a valid agent name$/],
  ['two recipients', { ...GOOD, id: 'b4', to: ['a', 'b'] }, /several recipients/],
  ['a recipient object', { ...GOOD, id: 'b5', to: { name: 'x' } }, /neither a name nor empty/],
  ['no body', { ...GOOD, id: 'b6', body: undefined }, /^no body$/],
  ['a blank body', { ...GOOD, id: 'b7', body: '   ' }, /^no body$/],
  [
    'a NUL in the body',
    { ...GOOD, id: 'b8', body: 'a\u0000b' },
    /NUL characters or invalid Unicode/,
  ],
  [
    'a lone surrogate in the body',
    { ...GOOD, id: 'b9', body: 'a\uD800' },
    /NUL characters or invalid Unicode/,
  ],
  ['no timestamp', { ...GOOD, id: 'b10', timestamp: undefined }, /^no valid timestamp$/],
  [
    'a word for a timestamp',
    { ...GOOD, id: 'b11', timestamp: 'yesterday' },
    /^no valid timestamp$/,
  ],
  [
    'a year-30000 timestamp',
    { ...GOOD, id: 'b12', timestamp: 1e15 * 1000 },
    /^no valid timestamp$/,
  ],
  ['a negative timestamp', { ...GOOD, id: 'b13', timestamp: -86400 }, /^no valid timestamp$/],
  ['an SQL priority', { ...GOOD, id: 'b14', priority: 'DROP TABLE' }, /^unknown priority/],
];

const BAD_CORTEX_RECORDS: Array<[string, unknown, RegExp]> = [
  ['null', null, /^not an object$/],
  ['no content', { id: 'c1', created_at: '2025-01-01' }, /^no content$/],
  [
    'a NUL in the content',
    { id: 'c2', content: 'a\u0000', created_at: '2025-01-01' },
    /NUL characters/,
  ],
  [
    'content over 100000 characters',
    { id: 'c3', content: 'x'.repeat(100_001), created_at: '2025-01-01' },
    /longer than 100000/,
  ],
  ['no time', { id: 'c4', content: 'x' }, /^no valid created_at$/],
  [
    'importance 9',
    { id: 'c5', content: 'x', created_at: '2025-01-01', importance: 9 },
    /not between 1.0 and 3.0/,
  ],
  [
    'importance "high"',
    { id: 'c6', content: 'x', created_at: '2025-01-01', importance: 'high' },
    /not between 1.0 and 3.0/,
  ],
  [
    'an unreadable expiry',
    { id: 'c7', content: 'x', created_at: '2025-01-01', expires_at: 'never' },
    /expires_at is not a valid time/,
  ],
  [
    'an SQL agent',
    { id: 'c8', content: 'x', created_at: '2025-01-01', agent: "x'; --" },
    /is not a valid agent name/,
  ],
];

export function migrateCases(): FileCase[] {
  const cases: FileCase[] = [];
  const synapse = JSON.stringify(
    { messages: [GOOD, { ...GOOD, id: 'ok-2', body: 'also fine' }] },
    null,
    2,
  );
  for (const at of cuts(synapse, 25)) {
    cases.push({
      category: 'migrate: truncated files',
      name: `synapse.json cut after ${at} characters`,
      files: { 'synapse.json': synapse.slice(0, at) },
      run: (b, dir) => b.transfer.migrateSynapse(`${dir}/synapse.json`),
      expect: { reject: 'INVALID_INPUT', message: /^synapse: .*synapse\.json is not valid JSON: / },
    });
  }
  for (const top of [
    '7',
    '"messages"',
    'null',
    'true',
    '{}',
    '{"messages": "all"}',
    '{"messages": {}}',
  ]) {
    cases.push({
      category: 'migrate: mis-shaped files',
      name: `a synapse.json of ${top}`,
      files: { 'synapse.json': top },
      run: (b, dir) => b.transfer.migrateSynapse(`${dir}/synapse.json`),
      expect: { reject: 'INVALID_INPUT', message: /^synapse: .*has no "messages" array$/ },
    });
  }
  for (const [what, record, reason] of BAD_SYNAPSE_RECORDS) {
    cases.push({
      category: 'migrate: bad records',
      name: `a SYNAPSE record that is ${what} is skipped, the rest imported`,
      files: { 'synapse.json': JSON.stringify({ messages: [GOOD, record] }) },
      run: (b, dir) => b.transfer.migrateSynapse(`${dir}/synapse.json`),
      expect: {
        accept: (r) => {
          const report = r as LegacyReport;
          expect(report.imported + report.existing).toBe(1);
          expect(report.skipped).toHaveLength(1);
          expect(report.skipped[0]!.index).toBe(1);
          expect(report.skipped[0]!.reason).toMatch(reason);
        },
      },
    });
  }
  const cortex = JSON.stringify([{ id: 'k1', content: 'fine', created_at: '2025-01-01' }], null, 2);
  for (const at of cuts(cortex, 10)) {
    cases.push({
      category: 'migrate: truncated files',
      name: `a Cortex file cut after ${at} characters`,
      files: { 'stm.json': cortex.slice(0, at) },
      run: (b, dir) => b.transfer.migrateCortex(`${dir}/stm.json`),
      expect: { reject: 'INVALID_INPUT', message: /^cortex: .*stm\.json is not valid JSON: / },
    });
    cases.push({
      category: 'migrate: truncated files',
      name: `a Cortex folder with a file cut after ${at} characters skips it`,
      files: { 'dir/good.json': cortex, 'dir/cut.json': cortex.slice(0, at) },
      run: (b, dir) => b.transfer.migrateCortex(`${dir}/dir`),
      expect: {
        accept: (r) => {
          const report = r as LegacyReport;
          expect(report.imported + report.existing).toBe(1);
          expect(report.skipped).toEqual([
            expect.objectContaining({
              index: -1,
              reason: expect.stringMatching(/cut\.json is not valid JSON/),
            }),
          ]);
        },
      },
    });
  }
  for (const [what, record, reason] of BAD_CORTEX_RECORDS) {
    cases.push({
      category: 'migrate: bad records',
      name: `a Cortex entry with ${what} is skipped`,
      files: {
        'stm.json': JSON.stringify([
          { id: 'k1', content: 'fine', created_at: '2025-01-01' },
          record,
        ]),
      },
      run: (b, dir) => b.transfer.migrateCortex(`${dir}/stm.json`),
      expect: {
        accept: (r) => {
          const report = r as LegacyReport;
          expect(report.skipped.map((s) => s.reason)).toEqual([expect.stringMatching(reason)]);
        },
      },
    });
  }
  cases.push({
    category: 'migrate: bad records',
    name: 'a Cortex default agent that is not a name is refused',
    files: { 'stm.json': cortex },
    run: (b, dir) => b.transfer.migrateCortex(`${dir}/stm.json`, '../../etc'),
    expect: { reject: 'INVALID_INPUT', message: /^cortex_agent: must be letters/ },
  });
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Paths that point where they should not.

export function pathCases(): FileCase[] {
  const cases: FileCase[] = [];
  const readers: Array<[string, (b: Brain, p: string) => unknown, string]> = [
    ['import', (_b, p) => readForImport(p), 'file'],
    ['migrate --synapse', (b, p) => b.transfer.migrateSynapse(p), 'synapse'],
    ['migrate --cortex', (b, p) => b.transfer.migrateCortex(p), 'cortex'],
  ];
  for (const [verb, read, what] of readers) {
    const secretFiles: Array<[string, string]> = [
      ['/etc/passwd', 'root'],
      ['../../../../../../../../etc/passwd', 'root'],
      ['/proc/self/environ', 'PATH='],
      ['/proc/self/cmdline', 'node'],
    ];
    for (const [path, secret] of secretFiles) {
      cases.push({
        category: 'paths',
        name: `${verb} ${path} is refused without quoting it`,
        run: (b) => {
          try {
            return read(b, path);
          } catch (err) {
            expect((err as Error).message).not.toContain(secret);
            throw err;
          }
        },
        expect: {
          reject: 'INVALID_INPUT',
          message: new RegExp(`^${what}: .* is not valid JSON: `),
        },
      });
    }
    for (const device of ['/dev/zero', '/dev/urandom', '/dev/null']) {
      cases.push({
        category: 'paths',
        name: `${verb} ${device} is refused (it would be read forever)`,
        run: (b) => read(b, device),
        expect: {
          reject: 'INVALID_INPUT',
          message: new RegExp(`^${what}: ${device} is not a regular file$`),
        },
      });
    }
    cases.push({
      category: 'paths',
      name: `${verb} of a path that climbs to nowhere is not found`,
      run: (b) => read(b, '/nonexistent/../../nowhere/x.json'),
      expect: { reject: 'NOT_FOUND', message: new RegExp(`^${what}: `) },
    });
    cases.push({
      category: 'paths',
      name: `${verb} of an empty path is refused`,
      run: (b) => read(b, ''),
      expect: {
        reject: verb === 'import' ? 'NOT_FOUND' : 'INVALID_INPUT',
        message: new RegExp(`^${what}: `),
      },
    });
  }
  cases.push({
    category: 'paths',
    name: 'import of a folder is refused',
    run: () => readForImport('/etc'),
    expect: { reject: 'INVALID_INPUT', message: /^file: \/etc is a directory, not a file$/ },
  });
  cases.push({
    category: 'paths',
    name: 'a Cortex folder does not follow links out of itself',
    files: {
      'dir/good.json': JSON.stringify([{ id: 'k9', content: 'inside', created_at: '2025-01-01' }]),
    },
    run: (b, dir) => {
      symlinkSync('/etc/passwd', `${dir}/dir/passwd.json`);
      writeFileSync(`${dir}/outside.json`, '[{"content": "outside", "created_at": "2025-01-01"}]');
      symlinkSync(`${dir}/outside.json`, `${dir}/dir/up.json`);
      return b.transfer.migrateCortex(`${dir}/dir`);
    },
    expect: {
      accept: (r) => {
        const report = r as LegacyReport;
        expect(report.read).toBe(1);
        expect(report.skipped).toEqual([]);
      },
    },
  });
  return cases;
}
