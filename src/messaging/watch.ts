import type { Database, Statement } from 'better-sqlite3';
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

/** A new STM entry or atom, with the message it was learned from (if any). */
export interface NewMemory {
  type: 'stm' | 'atom';
  id: string;
  agent: string;
  source_message_id: string | null;
  /** The source message's thread. */
  thread_id: string | null;
}

/** A message read or acknowledged by an agent. */
export interface NewReceipt {
  kind: 'read' | 'ack';
  message_id: string;
  thread_id: string;
  agent: string;
}

/** What changed since the watcher last looked; each list may be empty, not all are. */
export interface BrainChanges {
  messages: ArrivedMessage[];
  memories: NewMemory[];
  receipts: NewReceipt[];
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
  /**
   * Call `fn` with new messages, new STM entries and atoms, and new receipts (reads and acks).
   * Needs schema 15 (the receipt log). Returns the unsubscribe function.
   */
  onChanges(fn: (changes: BrainChanges) => void): () => void;
  /** Look now (the timer calls this): cheap when nothing changed. */
  check(): void;
  /** Stop the timer and drop every listener. */
  close(): void;
}

const BATCH = 500;

/** High-water marks: the largest rowid seen in each table the watcher follows. */
interface Marks {
  message: number;
  stm: number;
  atom: number;
  receipt: number;
}

/**
 * Notice new messages, memories and receipts, whoever wrote them. Each tick reads
 * `PRAGMA data_version` (bumped when another connection, in this or another process, commits) and
 * `total_changes()` (bumped by this connection's own writes); only when one moved does it read
 * past the high-water marks: rowids of messages, stm and atoms, the sequence of the receipt log
 * (all primary-key range reads). Read-only, and it polls only while there are listeners.
 */
export function watchBrain(brain: Brain, options: WatchOptions = {}): BrainWatcher {
  const db = connectionOf(brain);
  const intervalMs = options.intervalMs ?? 50;
  const timers: WatchTimers = options.timers ?? {
    setInterval: (fn, ms) => setInterval(fn, ms),
    clearInterval: (h) => clearInterval(h as NodeJS.Timeout),
  };
  const messageListeners = new Set<(messages: ArrivedMessage[]) => void>();
  const changeListeners = new Set<(changes: BrainChanges) => void>();
  const reads = watchReads(db);
  let handle: unknown;
  let lastVersion = '';
  const marks: Marks = { message: 0, stm: 0, atom: 0, receipt: 0 };
  const listening = () => messageListeners.size + changeListeners.size;

  const baseline = () => {
    lastVersion = reads.version();
    marks.message = reads.maxOf('messages', 'id');
    if (changeListeners.size > 0) markKnowledge();
  };
  const markKnowledge = () => {
    marks.stm = reads.maxOf('stm', 'id');
    marks.atom = reads.maxOf('atoms', 'id');
    marks.receipt = reads.maxOf('receipt_log', 'seq');
  };

  const check = () => {
    if (listening() === 0 || !db.open) return;
    try {
      const now = reads.version();
      if (now === lastVersion) return;
      lastVersion = now;
      for (;;) {
        const rows = reads.messagesAfter(marks.message);
        const messages = rows.map((r) => ({
          id: r.id,
          thread_id: r.thread_id,
          from: r.from,
          recipients: JSON.parse(r.recipients) as string[],
        }));
        if (rows.length > 0) marks.message = rows[rows.length - 1]!.rowid;
        let memories: NewMemory[] = [];
        let receipts: NewReceipt[] = [];
        if (changeListeners.size > 0) {
          memories = [
            ...reads.memoriesAfter('stm', marks.stm),
            ...reads.memoriesAfter('atoms', marks.atom),
          ].map(({ rowid, ...m }) => {
            if (m.type === 'stm') marks.stm = Math.max(marks.stm, rowid);
            else marks.atom = Math.max(marks.atom, rowid);
            return m;
          });
          receipts = reads.receiptsAfter(marks.receipt).map(({ seq, ...r }) => {
            marks.receipt = seq;
            return r;
          });
        }
        if (messages.length > 0) for (const fn of [...messageListeners]) fn(messages);
        if (messages.length + memories.length + receipts.length > 0)
          for (const fn of [...changeListeners]) fn({ messages, memories, receipts });
        const full = rows.length === BATCH || memories.length >= BATCH || receipts.length === BATCH;
        if (!full) break;
      }
    } catch (err) {
      options.onError?.(err);
    }
  };

  const stop = () => {
    if (handle !== undefined) timers.clearInterval(handle);
    handle = undefined;
  };
  const subscribe = <F>(set: Set<F>, fn: F): (() => void) => {
    const first = listening() === 0;
    const firstChanges = set === (changeListeners as unknown) && changeListeners.size === 0;
    set.add(fn);
    if (first) {
      baseline();
      handle = timers.setInterval(check, intervalMs);
      (handle as { unref?: () => void } | undefined)?.unref?.();
    } else if (firstChanges) {
      markKnowledge(); // messages are already followed; start the others from now
    }
    return () => {
      set.delete(fn);
      if (listening() === 0) stop();
    };
  };

  return {
    onMessages: (fn) => subscribe(messageListeners, fn),
    onChanges: (fn) => subscribe(changeListeners, fn),
    check,
    close() {
      messageListeners.clear();
      changeListeners.clear();
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

/** The watcher's statements, each prepared on first use (a brain may never be watched). */
function watchReads(db: Database) {
  const cache = new Map<string, Statement>();
  const stmt = <P extends unknown[], R>(sql: string): Statement<P, R> => {
    let s = cache.get(sql);
    if (!s) cache.set(sql, (s = db.prepare(sql)));
    return s as Statement<P, R>;
  };
  return {
    version(): string {
      const row = stmt<[], { v: number; c: number }>(
        `SELECT (SELECT data_version FROM pragma_data_version) AS v, total_changes() AS c`,
      ).get()!;
      return `${row.v}:${row.c}`;
    },
    maxOf(table: 'messages' | 'stm' | 'atoms' | 'receipt_log', column: 'id' | 'seq'): number {
      return (
        stmt<[], { n: number }>(`SELECT coalesce(max(${column}), 0) AS n FROM ${table}`).get()?.n ??
        0
      );
    },
    messagesAfter(rowid: number): ArrivedRow[] {
      return stmt<[number, number], ArrivedRow>(
        `SELECT m.id AS rowid, ${messageIdSql('m.uid')} AS id, ${threadIdSql('t.uid')} AS thread_id, a.name AS "from",
                (SELECT json_group_array(r.name) FROM deliveries d JOIN agents r ON r.id = d.agent_id
                 WHERE d.message_id = m.id) AS recipients
         FROM messages m JOIN threads t ON t.id = m.thread_id JOIN agents a ON a.id = m.from_agent
         WHERE m.id > ? ORDER BY m.id LIMIT ?`,
      ).all(rowid, BATCH);
    },
    /** STM entries or atoms past `rowid`: the two tables share the columns read here. */
    memoriesAfter(table: 'stm' | 'atoms', rowid: number): Array<NewMemory & { rowid: number }> {
      return stmt<[number, number], NewMemory & { rowid: number }>(
        `SELECT x.id AS rowid, '${table === 'stm' ? 'stm' : 'atom'}' AS type, x.uid AS id, a.name AS agent,
                ${messageIdSql('m.uid')} AS source_message_id, ${threadIdSql('t.uid')} AS thread_id
         FROM ${table} x JOIN agents a ON a.id = x.agent_id
         LEFT JOIN messages m ON m.id = x.source_message_id LEFT JOIN threads t ON t.id = m.thread_id
         WHERE x.id > ? ORDER BY x.id LIMIT ?`,
      ).all(rowid, BATCH);
    },
    receiptsAfter(seq: number): Array<NewReceipt & { seq: number }> {
      return stmt<[number, number], NewReceipt & { seq: number }>(
        `SELECT r.seq, r.kind, ${messageIdSql('m.uid')} AS message_id, ${threadIdSql('t.uid')} AS thread_id,
                a.name AS agent
         FROM receipt_log r JOIN messages m ON m.id = r.message_id JOIN threads t ON t.id = m.thread_id
         JOIN agents a ON a.id = r.agent_id
         WHERE r.seq > ? ORDER BY r.seq LIMIT ?`,
      ).all(seq, BATCH);
    },
  };
}
