import { connectionOf } from '../../src/brain.js';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrainError, type ExportDocument } from '../../src/index.js';
import { fingerprint } from './fingerprint.js';
import { importCases, migrateCases, pathCases, type FileCase } from './hostile/file-cases.js';
import { tempBrain, type TempBrain } from '../helpers.js';

let t: TempBrain;
let doc: ExportDocument;
let text: string;

/** A small but complete export: every section has a row. */
async function sampleExport(): Promise<ExportDocument> {
  const source = await tempBrain();
  const b = source.brain;
  const m = b.messages.send({
    from: 'ada',
    to: 'bob',
    subject: 'plan',
    body: 'the plan',
    tags: ['x'],
  });
  b.messages.send({ from: 'bob', body: 'agreed', reply_to: m.id });
  b.messages.ack({ message_id: m.id, agent: 'bob', body: 'ok' });
  b.knowledge.remember({
    agent: 'bob',
    content: 'the plan holds',
    categories: ['plans'],
    source_message_id: m.id,
  });
  const a1 = b.knowledge.createAtom({
    agent: 'ada',
    subject: 'plan',
    action: 'made',
    outcome: 'agreed',
    source_message_id: m.id,
  });
  const a2 = b.knowledge.createAtom({
    agent: 'bob',
    subject: 'work',
    action: 'started',
    outcome: 'done',
  });
  b.knowledge.link({ from: a1.id, to: a2.id, type: 'causes' });
  const exported = b.transfer.export();
  source.cleanup();
  return exported;
}

beforeAll(async () => {
  t = await tempBrain();
  t.brain.messages.send({ from: 'helios', to: 'nova', body: 'already here' });
  doc = await sampleExport();
  text = `${JSON.stringify(doc, null, 2)}\n`;
});
afterAll(() => t.cleanup());

const sample = await sampleExport();
const cases: FileCase[] = [
  ...importCases(sample, `${JSON.stringify(sample, null, 2)}\n`),
  ...migrateCases(),
  ...pathCases(),
];

describe('hostile files for import and migrate', () => {
  it(`has a large corpus (${cases.length} cases)`, () => {
    expect(doc.messages.length).toBe(2);
    expect(text.length).toBeGreaterThan(1000);
    expect(cases.length).toBeGreaterThanOrEqual(200);
  });

  cases.forEach((c, i) => {
    it(`${c.category}: ${c.name}`, () => {
      const dir = mkdtempSync(join(t.dir, `case-${i}-`));
      for (const [name, content] of Object.entries(c.files ?? {})) {
        mkdirSync(dirname(join(dir, name)), { recursive: true });
        writeFileSync(join(dir, name), content);
      }
      const expectation = c.expect;
      if ('accept' in expectation) {
        expectation.accept(c.run(t.brain, dir), t.brain);
        return;
      }
      const before = fingerprint(connectionOf(t.brain));
      let caught: unknown;
      try {
        c.run(t.brain, dir);
      } catch (err) {
        caught = err;
      }
      expect(caught, 'the call succeeded').toBeInstanceOf(BrainError);
      expect((caught as BrainError).code).toBe(expectation.reject);
      expect((caught as BrainError).message).toMatch(expectation.message);
      expect((caught as BrainError).message.length).toBeLessThan(600);
      expect(fingerprint(connectionOf(t.brain))).toBe(before);
    });
  });
});
