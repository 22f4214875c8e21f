import { millisOf } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import type { AssistantExport, AssistantSection } from './assistant-format.js';

/** Row ids of what the file (or the brain already) holds, or INVALID_INPUT naming `where`. */
export interface Resolve {
  agent(name: string, where: string): number;
  thread(id: string, where: string): number;
  message(id: string, where: string): number;
}

type Count = (section: AssistantSection, added: boolean) => void;

const ms = (iso: string | null): number | null => (iso === null ? null : millisOf(iso));
const bit = (b: boolean): number => (b ? 1 : 0);

/**
 * Add the assistant's rows of an export, inside the import's transaction. Into an empty brain
 * every row comes back as it was, with its id. Into one that has rows already, nothing is
 * doubled: a row is the same as one here when its identity matches (a session by name, a cron
 * run by job and due time, a rule by tool and pattern, a pairing by sender, an owner target by
 * agent, a scheduler value by key; reminders, tasks, approvals and usage by what they record and
 * when), and is then left as it is here; a new row keeps its id when that id is free, else gets
 * a new one.
 */
export function importAssistant(
  ctx: BrainContext,
  doc: AssistantExport,
  resolve: Resolve,
  count: Count,
): void {
  const message = (id: string | null, where: string) =>
    id === null ? null : resolve.message(id, where);
  const run = (sql: string, ...params: unknown[]) => ctx.q.get(sql).run(...params).changes > 0;

  importSessions(ctx, doc.sessions, resolve, count);

  keyed(ctx, 'reminders', doc.reminders, count, {
    existing: `SELECT text, mode, created_at, message_id FROM reminders`,
    keyOf: (r) => [
      r.text,
      r.mode,
      millisOf(r.created_at),
      message(r.message_id, `reminder ${r.id}`),
    ],
    insert: (r, id) =>
      run(
        `INSERT INTO reminders (id, text, mode, due_at, repeat, time_zone, status, created_at,
           fired_at, late, message_id, tainted_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        id,
        r.text,
        r.mode,
        millisOf(r.due_at),
        r.repeat,
        r.time_zone,
        r.status,
        millisOf(r.created_at),
        ms(r.fired_at),
        bit(r.late),
        message(r.message_id, `reminder ${r.id}`),
        r.tainted_by,
      ),
  });

  keyed(ctx, 'tasks', doc.tasks, count, {
    existing: `SELECT title, created_at, message_id FROM tasks`,
    keyOf: (t) => [t.title, millisOf(t.created_at), message(t.message_id, `task ${t.id}`)],
    insert: (t, id) =>
      run(
        `INSERT INTO tasks (id, title, priority, due_at, status, created_at, completed_at,
           message_id, tainted_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        id,
        t.title,
        t.priority,
        ms(t.due_at),
        t.status,
        millisOf(t.created_at),
        ms(t.completed_at),
        message(t.message_id, `task ${t.id}`),
        t.tainted_by,
      ),
  });

  keyed(ctx, 'cron_runs', doc.cron_runs, count, {
    existing: `SELECT job, due_at FROM cron_runs`,
    keyOf: (r) => [r.job, millisOf(r.due_at)],
    // No process is recorded: the one that ran it belongs to the brain it was exported from.
    insert: (r, id) =>
      run(
        `INSERT INTO cron_runs (id, job, due_at, started_at, ended_at, outcome, delivered, late,
           detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        id,
        r.job,
        millisOf(r.due_at),
        millisOf(r.started_at),
        ms(r.ended_at),
        r.outcome,
        bit(r.delivered),
        bit(r.late),
        r.detail,
      ),
  });

  keyed(ctx, 'approvals', doc.approvals, count, {
    existing: `SELECT tool, args_digest, asked_at, session, message_id FROM approvals`,
    keyOf: (a) => [
      a.tool,
      a.args_digest,
      millisOf(a.asked_at),
      a.session,
      message(a.message_id, `approval ${a.id}`),
    ],
    insert: (a, id) =>
      run(
        `INSERT INTO approvals (id, tool, args_digest, summary, decision, decided_by, reason,
           session, message_id, asked_at, decided_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        id,
        a.tool,
        a.args_digest,
        a.summary,
        a.decision,
        a.decided_by,
        a.reason,
        a.session,
        message(a.message_id, `approval ${a.id}`),
        millisOf(a.asked_at),
        ms(a.decided_at),
      ),
  });

  keyed(ctx, 'approval_rules', doc.approval_rules, count, {
    existing: `SELECT tool, pattern FROM approval_rules`,
    keyOf: (r) => [r.tool, r.pattern],
    insert: (r, id) =>
      run(
        `INSERT INTO approval_rules (id, tool, pattern, created_at) VALUES (?, ?, ?, ?)`,
        id,
        r.tool,
        r.pattern,
        millisOf(r.created_at),
      ),
  });

  keyed(ctx, 'model_usage', doc.model_usage, count, {
    existing: `SELECT at, source, session, model, endpoint, input_tokens, output_tokens,
                 cache_read_tokens, cache_write_tokens, message_id FROM model_usage`,
    keyOf: (u) => [
      millisOf(u.at),
      u.source,
      u.session,
      u.model,
      u.endpoint,
      u.input_tokens,
      u.output_tokens,
      u.cache_read_tokens,
      u.cache_write_tokens,
      message(u.message_id, `usage at ${u.at}`),
    ],
    insert: (u) =>
      run(
        `INSERT INTO model_usage (at, source, session, model, endpoint, input_tokens,
           output_tokens, cache_read_tokens, cache_write_tokens, message_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        millisOf(u.at),
        u.source,
        u.session,
        u.model,
        u.endpoint,
        u.input_tokens,
        u.output_tokens,
        u.cache_read_tokens,
        u.cache_write_tokens,
        message(u.message_id, `usage at ${u.at}`),
      ),
  });

  // Keyed by their UNIQUE columns: a row the brain has already is left as it is. (A pending
  // pairing whose code another sender's pending request holds here is skipped the same way.)
  for (const p of doc.pairings)
    count(
      'pairings',
      run(
        `INSERT INTO pairings (channel, user_id, name, code, status, created_at, expires_at,
           decided_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
        p.channel,
        p.user_id,
        p.name,
        p.code,
        p.status,
        millisOf(p.created_at),
        millisOf(p.expires_at),
        ms(p.decided_at),
      ),
    );
  for (const t of doc.owner_targets)
    count(
      'owner_targets',
      run(
        `INSERT INTO owner_targets (agent, channel, chat_id, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (agent) DO NOTHING`,
        t.agent,
        t.channel,
        t.chat_id,
        millisOf(t.updated_at),
      ),
    );
  for (const s of doc.scheduler_state)
    count(
      'scheduler_state',
      run(
        `INSERT INTO scheduler_state (key, value, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (key) DO NOTHING`,
        s.key,
        JSON.stringify(s.value),
        millisOf(s.updated_at),
      ),
    );
}

/**
 * A new session with its threads, or the file's threads that belong to no session added to the
 * history of the session of that name already here (which keeps its current thread).
 */
function importSessions(
  ctx: BrainContext,
  sessions: AssistantExport['sessions'],
  resolve: Resolve,
  count: Count,
): void {
  sessions.forEach((s, i) => {
    const where = `session ${s.name}`;
    if (!s.threads.some((t) => t.thread_id === s.thread_id))
      throw new BrainError(
        'INVALID_INPUT',
        `import: sessions.${i}.threads: must include the session's thread_id ${s.thread_id}`,
      );
    const thread = resolve.thread(s.thread_id, where);
    let session = ctx.q
      .get<[string], { id: number }>(`SELECT id FROM sessions WHERE name = ?`)
      .get(s.name)?.id;
    count('sessions', session === undefined);
    if (session === undefined) {
      const holder = ctx.q
        .get<[number], { name: string }>(
          `SELECT s.name FROM session_threads st JOIN sessions s ON s.id = st.session_id
           WHERE st.thread_id = ?`,
        )
        .get(thread);
      if (holder)
        throw new BrainError(
          'CONFLICT',
          `import: ${where}: its thread ${s.thread_id} is the thread of session ${holder.name} here`,
        );
      session = Number(
        ctx.q
          .get(
            `INSERT INTO sessions (name, agent_id, owner_id, thread_id, created_at)
             VALUES (?, ?, ?, ?, ?)`,
          )
          .run(
            s.name,
            resolve.agent(s.agent, where),
            resolve.agent(s.owner, where),
            thread,
            millisOf(s.created_at),
          ).lastInsertRowid,
      );
    }
    for (const t of s.threads)
      ctx.q
        .get(
          `INSERT INTO session_threads (session_id, thread_id, started_at) VALUES (?, ?, ?)
           ON CONFLICT DO NOTHING`,
        )
        .run(session, resolve.thread(t.thread_id, where), millisOf(t.started_at));
  });
}

interface KeyedTable<R> {
  /** The identity columns of the rows already here, in the order `keyOf` gives them. */
  existing: string;
  keyOf(row: R): unknown[];
  /** Insert with this id (null: a new one); whether a row was added. */
  insert(row: R, id: number | null): boolean;
}

/** Rows with an identity and (mostly) an id: the same row is never added twice. */
function keyed<R extends object>(
  ctx: BrainContext,
  table: AssistantSection,
  rows: R[],
  count: Count,
  how: KeyedTable<R>,
): void {
  if (rows.length === 0) return;
  const seen = new Set(
    ctx.q
      .get<[], unknown[]>(how.existing)
      .raw()
      .all()
      .map((values) => JSON.stringify(values)),
  );
  const taken = ctx.q.get<[number], { one: number }>(`SELECT 1 AS one FROM ${table} WHERE id = ?`);
  for (const row of rows) {
    const key = JSON.stringify(how.keyOf(row));
    if (seen.has(key)) {
      count(table, false);
      continue;
    }
    // Usage rows carry no id: theirs is only their order.
    const wanted = 'id' in row && typeof row.id === 'number' ? row.id : undefined;
    const id = wanted !== undefined && !taken.get(wanted) ? wanted : null;
    count(table, how.insert(row, id));
    seen.add(key);
  }
}
