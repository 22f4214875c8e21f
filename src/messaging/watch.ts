import type { Statement } from 'better-sqlite3';
import { connectionOf, type Brain } from '../brain.js';
import { messageIdSql, threadIdSql } from '../ids.js';

/** A message that arrived since the watcher last looked, with the agents it was delivered to. */
export interface ArrivedMessage {
  id: string;
  thread_id: string;
  from: string;
  /** Agents with a delivery row: the addressee, or every other agent for a broadcast. */
  recipients: string[];
}

/** The timer functions the watcher uses; tests may pass fakes. */
export interface WatchTimers {
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

export interface WatchOptions {
  /** How often to look while someone listens. Default 50 ms (a notification within ~2 ticks). */
  intervalMs?: number;
  timers?: WatchTimers;
  /** Told about a failed check (the watcher keeps running). */
  onError?: (err: unknown) => void;
}

export interface BrainWatcher {
  /** Call `fn` with each batch of newly arrived messages. Returns the unsubscribe function. */
  onMessages(fn: (messages: ArrivedMessage[]) => void): () => void;
  /** Look now (the timer calls this): cheap when nothing changed. */
  check(): void;
  /** Stop the timer and drop every listener. */
  close(): void;
}

const BATCH = 500;

/**
 * Notice new messages, whoever wrote them. Each tick reads `PRAGMA data_version` (bumped when
 * another connection, in this or another process, commits) and `total_changes()` (bumped by this
 * connection's own writes); only when one moved does it query messages past the last rowid seen.
 * Read-only, and it polls only while there are listeners.
 */
export function watchBrain(brain: Brain, options: WatchOptions = {}): BrainWatcher {
  const db = connectionOf(brain);
  const intervalMs = options.intervalMs ?? 50;
  const timers: WatchTimers = options.timers ?? {
    setInterval: (fn, ms) => setInterval(fn, ms),
    clearInterval: (h) => clearInterval(h as NodeJS.Timeout),
  };
  const listeners = new Set<(messages: ArrivedMessage[]) => void>();
  let handle: unknown;
  let versionStmt: Statement<[], { v: number; c: number }> | undefined;
  let lastVersion = '';
  let lastRowid = 0;

  const version = (): string => {
    versionStmt ??= db.prepare(
      `SELECT (SELECT data_version FROM pragma_data_version) AS v, total_changes() AS c`,
    );
    const row = versionStmt.get()!;
    return `${row.v}:${row.c}`;
  };
  let arrivedStmt: Statement<[number, number], ArrivedRow> | undefined;
  const arrivedSince = (rowid: number): ArrivedRow[] => {
    arrivedStmt ??= db.prepare(
      `SELECT m.id AS rowid, ${messageIdSql('m.uid')} AS id, ${threadIdSql('t.uid')} AS thread_id, a.name AS "from",
              (SELECT json_group_array(r.name) FROM deliveries d JOIN agents r ON r.id = d.agent_id
               WHERE d.message_id = m.id) AS recipients
       FROM messages m JOIN threads t ON t.id = m.thread_id JOIN agents a ON a.id = m.from_agent
       WHERE m.id > ? ORDER BY m.id LIMIT ?`,
    );
    return arrivedStmt.all(rowid, BATCH);
  };

  const baseline = () => {
    lastVersion = version();
    lastRowid =
      db.prepare<[], { n: number }>(`SELECT coalesce(max(id), 0) AS n FROM messages`).get()?.n ?? 0;
  };

  const check = () => {
    if (listeners.size === 0 || !db.open) return;
    try {
      const now = version();
      if (now === lastVersion) return;
      lastVersion = now;
      for (;;) {
        const rows = arrivedSince(lastRowid);
        if (rows.length === 0) break;
        lastRowid = rows[rows.length - 1]!.rowid;
        const batch = rows.map((r) => ({
          id: r.id,
          thread_id: r.thread_id,
          from: r.from,
          recipients: JSON.parse(r.recipients) as string[],
        }));
        for (const fn of [...listeners]) fn(batch);
        if (rows.length < BATCH) break;
      }
    } catch (err) {
      options.onError?.(err);
    }
  };

  const stop = () => {
    if (handle !== undefined) timers.clearInterval(handle);
    handle = undefined;
  };

  return {
    onMessages(fn) {
      if (listeners.size === 0) {
        baseline();
        handle = timers.setInterval(check, intervalMs);
        (handle as { unref?: () => void } | undefined)?.unref?.();
      }
      listeners.add(fn);
      return () => {
        listeners.delete(fn);
        if (listeners.size === 0) stop();
      };
    },
    check,
    close() {
      listeners.clear();
      stop();
    },
  };
}

interface ArrivedRow {
  rowid: number;
  id: string;
  thread_id: string;
  from: string;
  recipients: string;
}
