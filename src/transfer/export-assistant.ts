import { isoSql } from '../clock.js';
import type { BrainContext } from '../context.js';
import { messageIdSql, threadIdSql } from '../ids.js';
import type { AssistantExport } from './assistant-format.js';

/** The assistant's state of a thread-scoped export: none (it belongs to the whole brain). */
export function noAssistant(): AssistantExport {
  return {
    sessions: [],
    reminders: [],
    tasks: [],
    cron_runs: [],
    approvals: [],
    approval_rules: [],
    pairings: [],
    owner_targets: [],
    model_usage: [],
    scheduler_state: [],
  };
}

const MESSAGE = messageIdSql('m.uid');
const iso = isoSql;

/**
 * Everything the assistant keeps, in insertion order (ids ascending), inside the caller's read
 * transaction. Booleans and JSON are given as such; times as ISO text, as the rest of an export.
 */
export function exportAssistant(ctx: BrainContext): AssistantExport {
  const all = <R>(sql: string) => ctx.q.get<[], R>(sql).all();

  const threadsOf = ctx.q.get<[number], { thread_id: string; started_at: string }>(
    `SELECT ${threadIdSql('t.uid')} AS thread_id, ${iso('st.started_at')} AS started_at
     FROM session_threads st JOIN threads t ON t.id = st.thread_id
     WHERE st.session_id = ? ORDER BY st.started_at, st.thread_id`,
  );
  const sessions = all<Omit<AssistantExport['sessions'][number], 'threads'> & { rowid: number }>(
    `SELECT s.id AS rowid, s.name, a.name AS agent, o.name AS owner,
            ${threadIdSql('t.uid')} AS thread_id, ${iso('s.created_at')} AS created_at
     FROM sessions s JOIN agents a ON a.id = s.agent_id JOIN agents o ON o.id = s.owner_id
     JOIN threads t ON t.id = s.thread_id ORDER BY s.id`,
  ).map(({ rowid, ...s }) => ({ ...s, threads: threadsOf.all(rowid) }));

  const reminders = all<Omit<AssistantExport['reminders'][number], 'late'> & { late: number }>(
    `SELECT r.id, r.text, r.mode, ${iso('r.due_at')} AS due_at, r.repeat, r.time_zone, r.status,
            ${iso('r.created_at')} AS created_at, ${iso('r.fired_at')} AS fired_at, r.late,
            ${MESSAGE} AS message_id, r.tainted_by
     FROM reminders r LEFT JOIN messages m ON m.id = r.message_id ORDER BY r.id`,
  ).map((r) => ({ ...r, late: r.late === 1 }));

  const tasks = all<AssistantExport['tasks'][number]>(
    `SELECT t.id, t.title, t.priority, ${iso('t.due_at')} AS due_at, t.status,
            ${iso('t.created_at')} AS created_at, ${iso('t.completed_at')} AS completed_at,
            ${MESSAGE} AS message_id, t.tainted_by
     FROM tasks t LEFT JOIN messages m ON m.id = t.message_id ORDER BY t.id`,
  );

  const cron_runs = all<
    Omit<AssistantExport['cron_runs'][number], 'delivered' | 'late'> & {
      delivered: number;
      late: number;
    }
  >(
    `SELECT id, job, ${iso('due_at')} AS due_at, ${iso('started_at')} AS started_at,
            ${iso('ended_at')} AS ended_at, outcome, delivered, late, detail
     FROM cron_runs ORDER BY id`,
  ).map((r) => ({ ...r, delivered: r.delivered === 1, late: r.late === 1 }));

  const approvals = all<AssistantExport['approvals'][number]>(
    `SELECT a.id, a.tool, a.args_digest, a.summary, a.decision, a.decided_by, a.reason, a.session,
            ${MESSAGE} AS message_id, ${iso('a.asked_at')} AS asked_at,
            ${iso('a.decided_at')} AS decided_at
     FROM approvals a LEFT JOIN messages m ON m.id = a.message_id ORDER BY a.id`,
  );

  const approval_rules = all<AssistantExport['approval_rules'][number]>(
    `SELECT id, tool, pattern, ${iso('created_at')} AS created_at FROM approval_rules ORDER BY id`,
  );

  const pairings = all<AssistantExport['pairings'][number]>(
    `SELECT channel, user_id, name, code, status, ${iso('created_at')} AS created_at,
            ${iso('expires_at')} AS expires_at, ${iso('decided_at')} AS decided_at
     FROM pairings ORDER BY id`,
  );

  const owner_targets = all<AssistantExport['owner_targets'][number]>(
    `SELECT agent, channel, chat_id, ${iso('updated_at')} AS updated_at
     FROM owner_targets ORDER BY agent`,
  );

  const model_usage = all<AssistantExport['model_usage'][number]>(
    `SELECT ${iso('u.at')} AS at, u.source, u.session, u.model, u.endpoint, u.input_tokens,
            u.output_tokens, u.cache_read_tokens, u.cache_write_tokens, ${MESSAGE} AS message_id
     FROM model_usage u LEFT JOIN messages m ON m.id = u.message_id ORDER BY u.id`,
  );

  const scheduler_state = all<{ key: string; value: string; updated_at: string }>(
    `SELECT key, value, ${iso('updated_at')} AS updated_at FROM scheduler_state ORDER BY key`,
  ).map((s) => ({
    ...s,
    value: JSON.parse(s.value) as AssistantExport['scheduler_state'][0]['value'],
  }));

  return {
    sessions,
    reminders,
    tasks,
    cron_runs,
    approvals,
    approval_rules,
    pairings,
    owner_targets,
    model_usage,
    scheduler_state,
  };
}
