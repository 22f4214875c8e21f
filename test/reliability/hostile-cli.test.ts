import { connectionOf } from '../../src/brain.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBrain, type Brain } from '../../src/index.js';
import { fingerprint } from './fingerprint.js';
import { runCliInProcess } from '../cli-in-process.js';
import { runCli, tempDir, type CliResult } from '../helpers.js';

let dir: string;
let cleanup: () => void;
let db: string;
let reader: Brain;
let seeded: { message: string; thread: string };
beforeAll(async () => {
  ({ dir, cleanup } = tempDir('brain-hostile-cli-'));
  db = join(dir, 'brain.db');
  const brain = await openBrain({ dbPath: db });
  const m = brain.messages.send({
    from: 'helios',
    to: 'nova',
    subject: 'sighting',
    body: 'falcon at dawn',
  });
  seeded = { message: m.id, thread: m.thread_id };
  brain.close();
  reader = await openBrain({ dbPath: db, readonly: true });
  writeFileSync(join(dir, 'notes.txt'), 'root:x:0:0:root:/root:/bin/bash\n');
  writeFileSync(join(dir, 'cut.json'), '{"format": "brain-export", "version": 1, "agents": [');
});
afterAll(() => {
  reader.close();
  cleanup();
});

/**
 * Standard input needs a real process (and those cases are the built CLI's wiring: stdio, exit
 * status); everything else runs the same program in this process, which costs no Node start-up.
 */
const cli = (args: string[], env: Record<string, string> = {}, input?: string) =>
  input === undefined
    ? runCliInProcess(args, { BRAIN_DB: db, ...env })
    : runCli(args, { BRAIN_DB: db, ...env }, input);

function clean(r: CliResult): void {
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stderr).not.toMatch(/INTERNAL/);
}

interface Refused {
  name: string;
  args: () => string[];
  env?: Record<string, string>;
  input?: string;
  code: 1 | 2;
  stderr: RegExp;
}

const REFUSED: Refused[] = [
  {
    name: 'an empty body',
    args: () => ['send', '--agent', 'helios', '--body', ''],
    code: 2,
    stderr: /body: must not be empty/,
  },
  {
    name: 'no body',
    args: () => ['send', '--agent', 'helios'],
    code: 2,
    stderr: /body: is required/,
  },
  { name: 'no agent', args: () => ['send', '--body', 'x'], code: 2, stderr: /agent: is required/ },
  {
    name: 'an SQL agent',
    args: () => ['send', '--agent', "'; DROP TABLE agents; --", '--body', 'x'],
    code: 2,
    stderr: /--agent \/ BRAIN_AGENT: must be letters/,
  },
  {
    name: 'an RLO agent',
    args: () => ['poll', '--agent', 'a\u202Eb'],
    code: 2,
    stderr: /--agent \/ BRAIN_AGENT: must be letters/,
  },
  {
    name: 'an agent with spaces from the environment',
    args: () => ['poll'],
    env: { BRAIN_AGENT: 'x y' },
    code: 2,
    stderr: /--agent \/ BRAIN_AGENT/,
  },
  {
    name: 'a path as recipient',
    args: () => ['send', '--agent', 'a', '--to', '../../etc', '--body', 'x'],
    code: 2,
    stderr: /to: must be letters/,
  },
  {
    name: 'an SQL priority',
    args: () => ['send', '--agent', 'a', '--body', 'x', '--priority', 'DROP'],
    code: 2,
    stderr: /priority: must be one of info, normal, action, urgent/,
  },
  {
    name: 'an SQL thread id',
    args: () => ['send', '--agent', 'a', '--body', 'x', '--thread', "thr_'; --"],
    code: 2,
    stderr: /thread: must be a thread id/,
  },
  {
    name: 'a path as reply id',
    args: () => ['send', '--agent', 'a', '--body', 'x', '--reply-to', 'syn_../../x'],
    code: 2,
    stderr: /reply_to: must be a message id/,
  },
  {
    name: 'metadata that is an array',
    args: () => ['send', '--agent', 'a', '--body', 'x', '--metadata', '[1,2]'],
    code: 2,
    stderr: /metadata: must be a JSON object/,
  },
  {
    name: 'truncated metadata',
    args: () => ['send', '--agent', 'a', '--body', 'x', '--metadata', '{"a":'],
    code: 2,
    stderr: /metadata: must be a JSON object/,
  },
  {
    name: 'a body over the limit',
    args: () => ['send', '--agent', 'a', '--body', 'x'.repeat(100_000)],
    env: { BRAIN_MAX_BODY_BYTES: '1000' },
    code: 2,
    stderr: /body: is 100000 bytes; the limit is 1000/,
  },
  {
    name: '10 MB on standard input',
    args: () => ['send', '--agent', 'a', '--body', '-'],
    input: 'y'.repeat(10 * 1024 * 1024),
    code: 2,
    stderr: /body: is 10485760 bytes; the limit is 1048576 \(BRAIN_MAX_BODY_BYTES\)/,
  },
  {
    name: 'a NUL byte on standard input',
    args: () => ['send', '--agent', 'a', '--body', '-'],
    input: 'a\u0000b',
    code: 2,
    stderr: /body: must not contain NUL characters/,
  },
  {
    name: 'an invalid body limit',
    args: () => ['poll', '--agent', 'a'],
    env: { BRAIN_MAX_BODY_BYTES: 'lots' },
    code: 2,
    stderr: /BRAIN_MAX_BODY_BYTES/,
  },
  {
    name: 'an invalid durability',
    args: () => ['poll', '--agent', 'a'],
    env: { BRAIN_DURABILITY: 'fast' },
    code: 2,
    stderr: /BRAIN_DURABILITY: must be one of normal, full/,
  },
  ...['-1', 'abc', '1e999', '0', '2.5'].map((limit): Refused => ({
    name: `inbox --limit ${limit}`,
    args: () => ['inbox', '--agent', 'nova', '--limit', limit],
    code: 2,
    stderr: /limit: /,
  })),
  {
    name: 'an empty query',
    args: () => ['search', ''],
    code: 2,
    stderr: /query: must not be empty/,
  },
  {
    name: 'a query of spaces',
    args: () => ['search', '   '],
    code: 2,
    stderr: /query: must not be empty/,
  },
  {
    name: 'a word for a date that names no time',
    args: () => ['search', 'falcon', '--since', 'whenever'],
    code: 2,
    stderr: /since: /,
  },
  {
    name: 'an unknown type',
    args: () => ['search', 'falcon', '--types', 'users'],
    code: 2,
    stderr: /types\.0: must be one of message, stm, atom/,
  },
  {
    name: 'a path as thread id',
    args: () => ['thread', 'thr_../../etc/passwd'],
    code: 2,
    stderr: /thread_id: must be a thread id/,
  },
  {
    name: 'an SQL message id',
    args: () => ['ack', "syn_'; DROP TABLE acks; --", '--agent', 'nova'],
    code: 2,
    stderr: /message_id: must be a message id/,
  },
  {
    name: 'an unknown message id',
    args: () => ['ack', 'syn_000000000000', '--agent', 'nova'],
    code: 1,
    stderr: /NOT_FOUND: message_id: no message syn_000000000000/,
  },
  {
    name: 'archiving a non-thread',
    args: () => ['archive', 'stm_000000000000'],
    code: 2,
    stderr: /thread_id: must be a thread id/,
  },
  {
    name: 'an empty memory',
    args: () => ['remember', '', '--agent', 'nova'],
    code: 2,
    stderr: /content: must not be empty/,
  },
  {
    name: 'importance 9',
    args: () => ['remember', 'x', '--agent', 'nova', '--importance', '9'],
    code: 2,
    stderr: /importance: must be between 1.0 and 3.0/,
  },
  {
    name: 'an expiry of "never"',
    args: () => ['remember', 'x', '--agent', 'nova', '--expires', 'never'],
    code: 2,
    stderr: /expires_at: must be an ISO 8601 date/,
  },
  {
    name: 'an atom without an action',
    args: () => ['atom', '--agent', 'nova', '--subject', 'x', '--outcome', 'y'],
    code: 2,
    stderr: /action: /,
  },
  {
    name: 'a link between malformed atoms',
    args: () => ['link', 'atm_x', 'atm_y'],
    code: 2,
    stderr: /from: must be an atom id/,
  },
  {
    name: 'provenance of a path',
    args: () => ['provenance', '../../etc/passwd'],
    code: 2,
    stderr: /id: must be a message, STM or atom id/,
  },
  {
    name: 'import of a password file',
    args: () => ['import', '/etc/passwd'],
    code: 2,
    stderr:
      /^brain: INVALID_INPUT: file: \/etc\/passwd is not valid JSON: it has an unexpected character/,
  },
  {
    name: 'import of a text file',
    args: () => ['import', join(dir, 'notes.txt')],
    code: 2,
    stderr: /notes\.txt is not valid JSON/,
  },
  {
    name: 'import of /dev/zero',
    args: () => ['import', '/dev/zero'],
    code: 2,
    stderr: /file: \/dev\/zero is not a regular file/,
  },
  {
    name: 'import of a missing file',
    args: () => ['import', join(dir, 'nope.json')],
    code: 1,
    stderr: /NOT_FOUND: file: cannot read .*nope\.json: no such file/,
  },
  {
    name: 'import of a truncated file',
    args: () => ['import', join(dir, 'cut.json')],
    code: 2,
    stderr: /cut\.json is not valid JSON: it ends too early/,
  },
  {
    name: 'migrate with nothing to migrate',
    args: () => ['migrate'],
    code: 2,
    stderr: /give --synapse FILE and\/or --cortex PATH/,
  },
  {
    name: 'migrate of a text file',
    args: () => ['migrate', '--synapse', join(dir, 'notes.txt')],
    code: 2,
    stderr: /synapse: .*notes\.txt is not valid JSON/,
  },
  {
    name: 'migrate of /dev/null',
    args: () => ['migrate', '--cortex', '/dev/null'],
    code: 2,
    stderr: /cortex: \/dev\/null is not a regular file/,
  },
  {
    name: 'a device as the database',
    args: () => ['poll', '--agent', 'x', '--db', '/dev/null'],
    code: 2,
    stderr: /--db: \/dev\/null is not a regular file/,
  },
  {
    name: 'a folder as the database',
    args: () => ['poll', '--agent', 'x', '--db', dir],
    code: 2,
    stderr: /--db: .* is a directory/,
  },
  {
    name: 'a text file as the database',
    args: () => ['poll', '--agent', 'x', '--db', join(dir, 'notes.txt')],
    code: 1,
    stderr: /NOT_A_BRAIN: .*notes\.txt is not a brain database/,
  },
  {
    name: 'a backup over an existing file',
    args: () => ['backup', join(dir, 'notes.txt')],
    code: 1,
    stderr: /CONFLICT: file: .*notes\.txt already exists/,
  },
  {
    name: 'a backup onto the database',
    args: () => ['backup', db],
    code: 2,
    stderr: /file: .* is the database itself/,
  },
  {
    name: 'an unknown command',
    args: () => ['drop-tables'],
    code: 2,
    stderr: /unknown command 'drop-tables'/,
  },
  {
    name: 'an unknown option',
    args: () => ['send', '--agent', 'a', '--body', 'x', '--sql', 'DROP'],
    code: 2,
    stderr: /unknown option '--sql'/,
  },
];

describe('hostile input to the CLI', () => {
  describe.concurrent(
    'refused: a clear message naming the field, the right exit code, nothing changed',
    () => {
      for (const c of REFUSED) {
        it(c.name, async () => {
          const before = fingerprint(connectionOf(reader));
          const r = await cli(c.args(), c.env, c.input);
          clean(r);
          expect(r.code, r.stderr).toBe(c.code);
          expect(r.stderr).toMatch(c.stderr);
          expect(r.stderr).not.toContain('root:x');
          expect(r.stdout).toBe('');
          expect(fingerprint(connectionOf(reader))).toBe(before);
        });
      }
    },
  );

  describe('answered: FTS syntax in a query is only words', () => {
    for (const query of [
      '"',
      'NEAR(falcon',
      '-falcon',
      '*',
      'falcon*',
      '^falcon',
      'subject:falcon',
      '(falcon',
      "'; DROP TABLE messages; --falcon",
    ]) {
      it(`search ${JSON.stringify(query)}`, async () => {
        const r = await cli(['search', query, '--json']);
        clean(r);
        expect(r.code, r.stderr).toBe(0);
        const result = JSON.parse(r.stdout) as { hits: Array<{ id: string }>; notices: string[] };
        if (/falcon/.test(query)) expect(result.hits.map((h) => h.id)).toContain(seeded.message);
        else {
          expect(result.hits).toEqual([]);
          expect(result.notices).toEqual(['the query has no words to search for']);
        }
      });
    }
  });

  describe('accepted: hostile text is stored exactly', () => {
    const texts = [
      'الصقر يطير ‮override‬ zero\u200Bwidth 👩‍👩‍👧‍👦 🇳🇱 e\u0301',
      "'; DROP TABLE messages; -- $(rm -rf /) {{7*7}} <script>",
      'line one\nline two\r\n\ttabbed \u0007 bell',
    ];
    texts.forEach((text, i) => {
      it(`a message ${JSON.stringify(text).slice(0, 30)}… round-trips through send and read`, async () => {
        const token = `clitok${i}z`;
        const body = `${text} ${token}`;
        const sent = await cli(
          ['send', '--agent', 'helios', '--to', `r${i}`, '--body', '-', '--json'],
          {},
          body,
        );
        clean(sent);
        expect(sent.code, sent.stderr).toBe(0);
        const read = await cli(['read', '--agent', `r${i}`, '--json']);
        expect(JSON.parse(read.stdout).messages.map((m: { body: string }) => m.body)).toEqual([
          body,
        ]);
        const found = await cli(['search', token, '--json']);
        expect(JSON.parse(found.stdout).hits[0].id).toBe(JSON.parse(sent.stdout).id);
      });
    });

    it('a text file given as the database is left as it was', () => {
      expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe(
        'root:x:0:0:root:/root:/bin/bash\n',
      );
    });
  });
});
