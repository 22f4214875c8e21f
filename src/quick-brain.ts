import { guardStorage } from './db/guard.js';
import { writeWithoutWaiting } from './db/no-wait.js';
import { flushAccesses } from './knowledge/access-counts.js';
import { findProvenance, type Provenance, type ProvenanceInput } from './knowledge/provenance.js';
import { peekInbox, readInbox, type InboxInput } from './messaging/inbox.js';
import type { MessageRecord } from './messaging/message-rows.js';
import { sendMessage, type SendInput, type SendResult } from './messaging/messages.js';
import { touchAgent } from './messaging/poll.js';
import { threadHistory, type HistoryInput, type ThreadHistory } from './messaging/threads.js';
import { openContext, type OpenBrainOptions } from './open-context.js';

/**
 * A handle for the one-shot commands `brain send`, `read`, `inbox`, `thread` and `provenance`:
 * what they need without the rest of the library that `openBrain` loads. Its methods behave as
 * the same ones of `Brain`: same input checks and words, same storage errors, same WAL upkeep.
 */
export interface QuickBrain {
  readonly path: string;
  send(input: SendInput): SendResult;
  peek(input: InboxInput): MessageRecord[];
  read(input: InboxInput): MessageRecord[];
  thread(input: HistoryInput): ThreadHistory;
  provenance(input: ProvenanceInput): Provenance;
  touchAgent(name: string, options?: { wait?: boolean }): boolean;
  close(): void;
}

export function openQuickBrain(options: OpenBrainOptions): QuickBrain {
  // None of these ranks search results: no ranking extension to load.
  const { ctx, wal } = openContext({ ...options, rankFunction: false });
  const db = ctx.db;
  const brain: QuickBrain = {
    path: options.dbPath,
    send: (input) => sendMessage(ctx, input),
    peek: (input) => peekInbox(ctx, input),
    read: (input) => readInbox(ctx, input),
    thread: (input) => threadHistory(ctx, input),
    provenance: (input) => findProvenance(ctx, input),
    touchAgent: (name, options) => {
      if (options?.wait === false) return writeWithoutWaiting(db, () => touchAgent(ctx, name));
      touchAgent(ctx, name);
      return true;
    },
    close: () => {
      if (!db.open) return;
      try {
        flushAccesses(ctx); // as Brain.close: one last attempt, never waiting
      } finally {
        db.close();
      }
    },
  };
  return guardStorage(brain, options.dbPath, wal.check);
}
