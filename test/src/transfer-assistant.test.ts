import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectionOf } from '../../src/brain.js';
import { tableTreatment } from '../../src/transfer/assistant-format.js';
import { wordEmbedder } from '../embedders.js';
import { useEveryFeature } from '../full-brain.js';
import { fixedClock, tempBrain, type TempBrain } from '../helpers.js';

let clock: ReturnType<typeof fixedClock>;
let t: TempBrain;
const others: TempBrain[] = [];
beforeEach(async () => {
  clock = fixedClock();
  t = await tempBrain({ clock });
});
afterEach(() => {
  for (const o of others.splice(0)) o.cleanup();
  t.cleanup();
});

async function emptyBrain(): Promise<TempBrain> {
  const o = await tempBrain({ clock });
  others.push(o);
  return o;
}

const WHO = { name: 'chat/work', agent: 'assistant', owner: 'ann' };

describe('export is a backup', () => {
  it('covers every table: each one holding data is exported, the others say why not', async () => {
    useEveryFeature(t.brain, clock);
    await t.brain.embed.embedQueued(wordEmbedder(['gate', 'plan'])); // the vector tables exist too
    const db = connectionOf(t.brain);
    const tables = db
      .prepare(
        `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`,
      )
      .pluck()
      .all() as string[];
    expect(tables).toContain('vec_index');
    for (const table of tables) {
      const treatment = tableTreatment(table);
      expect(treatment, `${table} is neither exported nor explained`).toBeDefined();
      // The fixture uses every feature: each exported table has rows to carry.
      if (treatment!.kind === 'exported')
        expect(db.prepare(`SELECT count(*) FROM ${table}`).pluck().get(), table).toBeGreaterThan(0);
    }
  });

  it('export → import into an empty brain → export is identical, the assistant included', async () => {
    const made = useEveryFeature(t.brain, clock);
    const first = t.brain.transfer.export();
    expect(first.version).toBe(2);
    expect(first.stm.map((s) => s.occurred_at)).toContain('2025-12-24T00:00:00.000Z');
    expect(first.atoms.map((a) => a.occurred_at)).toContain('2025-12-30T10:00:00.000Z');
    expect(first.reminders.map((r) => r.tainted_by)).toContain('tool:web_fetch');
    expect(first.tasks.map((r) => r.tainted_by)).toContain('agent:nova');
    expect(first.cron_runs.map((r) => r.outcome).sort()).toEqual([
      'error',
      'ok',
      'running',
      'skipped',
    ]);

    const other = await emptyBrain();
    const result = other.brain.transfer.import(JSON.parse(JSON.stringify(first)));
    expect(result.imported).toEqual({
      agents: 5,
      threads: 4,
      messages: 7,
      stm: 2,
      atoms: 2,
      atom_links: 1,
      sessions: 2,
      reminders: 4,
      tasks: 2,
      cron_runs: 4,
      approvals: 3,
      approval_rules: 1,
      pairings: 2,
      owner_targets: 1,
      model_usage: 2,
      scheduler_state: 2,
    });
    expect(other.brain.transfer.export()).toEqual(first);

    // The same brain through its own API: same ids, same states, same numbers.
    expect(other.brain.assistant.sessions()).toEqual(t.brain.assistant.sessions());
    expect(other.brain.assistant.reminders({ all: true })).toEqual(
      t.brain.assistant.reminders({ all: true }),
    );
    expect(other.brain.assistant.tasks({ status: 'all' })).toEqual(
      t.brain.assistant.tasks({ status: 'all' }),
    );
    expect(other.brain.assistant.cronRuns()).toEqual(t.brain.assistant.cronRuns());
    expect(other.brain.assistant.approvals({ limit: 100 })).toEqual(
      t.brain.assistant.approvals({ limit: 100 }),
    );
    expect(other.brain.assistant.approvalRules()).toEqual(t.brain.assistant.approvalRules());
    expect(other.brain.assistant.pairings()).toEqual(t.brain.assistant.pairings());
    expect(other.brain.assistant.ownerTarget('assistant')).toEqual(
      t.brain.assistant.ownerTarget('assistant'),
    );
    expect(other.brain.assistant.usage({ by: 'source' })).toEqual(
      t.brain.assistant.usage({ by: 'source' }),
    );
    expect(other.brain.assistant.schedulerState('heartbeat:last')).toEqual({
      at: '2026-01-01T00:00:00.000Z',
      text: 'all quiet',
    });
    expect(other.brain.assistant.isPaired({ channel: 'telegram', user_id: '8' })).toBe(true);

    // The session continues its thread, with its history; no second thread is started.
    const resumed = other.brain.assistant.session(WHO);
    expect(resumed.thread_id).toBe(made.session.thread_id);
    expect(resumed.threads).toBe(2);
    expect(other.brain.assistant.sessionOfThread(made.firstThread)?.name).toBe('chat/work');
    expect(other.brain.assistant.latestSummary(made.session.thread_id)?.stm.content).toBe(
      'summary: ann planned',
    );
    // Leases belong to the processes of the brain they were taken in.
    expect(other.brain.assistant.getLease('session:chat/work')).toBeUndefined();
  });

  it('imports again without doubling anything', async () => {
    useEveryFeature(t.brain, clock);
    const doc = t.brain.transfer.export();
    const other = await emptyBrain();
    other.brain.transfer.import(doc);
    const again = other.brain.transfer.import(doc);
    expect(Object.values(again.imported).every((n) => n === 0)).toBe(true);
    expect(again.existing).toMatchObject({ sessions: 2, reminders: 4, model_usage: 2 });
    expect(other.brain.transfer.export()).toEqual(doc);
  });

  it('into a brain in use: keeps what is there, adds what is new under free ids, doubles nothing', async () => {
    const made = useEveryFeature(t.brain, clock);
    const doc = t.brain.transfer.export();

    const other = await emptyBrain();
    const own = other.brain.assistant.session(WHO);
    other.brain.messages.send({
      from: 'ann',
      to: 'assistant',
      body: 'mine',
      thread: own.thread_id,
    });
    const mine = other.brain.assistant.addReminder({ text: 'water plants', due_at: '2026-01-09' });
    other.brain.assistant.addApprovalRule({ tool: 'run_command', pattern: 'exactly git log' });
    other.brain.assistant.setOwnerTarget({ agent: 'assistant', channel: 'discord', chat_id: '9' });
    other.brain.assistant.setSchedulerState('heartbeat:last', 'here');

    const result = other.brain.transfer.import(doc);
    expect(result.existing).toMatchObject({
      sessions: 1,
      approval_rules: 1,
      owner_targets: 1,
      scheduler_state: 1,
    });
    expect(result.imported).toMatchObject({ sessions: 1, reminders: 4, approval_rules: 0 });

    // The session here keeps its thread; the file's threads of it join its history.
    const session = other.brain.assistant.session(WHO);
    expect(session.thread_id).toBe(own.thread_id);
    expect(session.threads).toBe(3);
    expect(other.brain.assistant.sessionOfThread(made.session.thread_id)?.name).toBe('chat/work');
    // Reminder 1 was taken here: the file's reminder 1 came in under a new id.
    const texts = other.brain.assistant.reminders({ all: true }).map((r) => [r.id, r.text]);
    expect(texts).toContainEqual([mine.id, 'water plants']);
    expect(texts.filter(([, text]) => text === 'stand up')).toHaveLength(1);
    expect(other.brain.assistant.ownerTarget('assistant')?.channel).toBe('discord');
    expect(other.brain.assistant.schedulerState('heartbeat:last')).toBe('here');

    const twice = other.brain.transfer.import(doc);
    expect(Object.values(twice.imported).every((n) => n === 0)).toBe(true);
    expect(other.brain.assistant.reminders({ all: true })).toHaveLength(5);
  });

  it('refuses, whole, a new session whose thread is another session’s here', async () => {
    useEveryFeature(t.brain, clock);
    const doc = t.brain.transfer.export();
    const other = await emptyBrain();
    other.brain.transfer.import(doc);
    const renamed = JSON.parse(JSON.stringify(doc));
    renamed.sessions[0].name = 'chat/renamed';
    renamed.reminders.push({ ...renamed.reminders[0], id: 99, text: 'new here' });
    expect(() => other.brain.transfer.import(renamed)).toThrow(
      /^import: session chat\/renamed: its thread thr_\S+ is the thread of session chat\/work here$/,
    );
    expect(other.brain.assistant.sessions().map((s) => s.name)).toEqual([
      'chat/work',
      'inbox/nova',
    ]);
    expect(other.brain.assistant.getReminder(99)).toBeUndefined();
  });

  it('still reads a version 1 export, which holds no assistant state', async () => {
    useEveryFeature(t.brain, clock);
    const doc = t.brain.transfer.export();
    const v1 = {
      format: doc.format,
      version: 1,
      agents: doc.agents,
      threads: doc.threads,
      messages: doc.messages,
      stm: doc.stm,
      atoms: doc.atoms,
      atom_links: doc.atom_links,
    };
    const other = await emptyBrain();
    expect(other.brain.transfer.import(v1).imported).toMatchObject({ messages: 7, sessions: 0 });
    expect(other.brain.transfer.export().messages).toEqual(doc.messages);
  });

  it('rejects a bad assistant row whole, naming the field, and changes nothing', async () => {
    useEveryFeature(t.brain, clock);
    const doc = JSON.parse(JSON.stringify(t.brain.transfer.export()));
    doc.reminders[1].mode = 'shout';
    const other = await emptyBrain();
    expect(() => other.brain.transfer.import(doc)).toThrow(/reminders\.1\.mode: /);
    doc.reminders[1].mode = 'notify';
    doc.sessions[0].threads = [];
    expect(() => other.brain.transfer.import(doc)).toThrow(
      /sessions\.0\.threads: must include the session's thread_id/,
    );
    doc.sessions[0].threads = t.brain.transfer.export().sessions[0]!.threads;
    doc.version = 3;
    expect(() => other.brain.transfer.import(doc)).toThrow(/version: /);
    expect(other.brain.transfer.export().messages).toEqual([]);
  });

  it('exports no assistant state with one thread: it belongs to the whole brain', () => {
    const made = useEveryFeature(t.brain, clock);
    const doc = t.brain.transfer.export({ thread_id: made.session.thread_id });
    expect(doc.messages.map((m) => m.body)).toEqual(['next', 'sure']);
    expect(doc.sessions).toEqual([]);
    expect(doc.model_usage).toEqual([]);
  });
});
