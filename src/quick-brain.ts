import { guardStorage } from './db/guard.js';
import { writeWithoutWaiting } from './db/no-wait.js';
import { flushAccesses } from './knowledge/access-counts.js';
import { runProvenance, type Provenance, type ProvenanceArgs } from './knowledge/provenance-run.js';
import { runPeek, runRead, type InboxArgs } from './messaging/inbox-run.js';
import type { MessageRecord } from './messaging/message-rows.js';
import { touchAgent } from './messaging/poll.js';
import { runSend, type SendArgs, type SendResult } from './messaging/send-run.js';
import { runThreadHistory, type HistoryArgs, type ThreadHistory } from './messaging/thread-run.js';
import { openContext, type OpenBrainOptions } from './open-context.js';

/**
 * A handle for the one-shot commands `brain send`, `read`, `inbox`, `thread` and `provenance`, on
 * input already checked (quick-input.ts): what they need without the schemas and the rest of the
 * library that `openBrain` loads. Its methods behave as the same ones of `Brain` (same storage
 * errors, same WAL upkeep); only the input checks are left to the caller.
 */
export interface QuickBrain {
  readonly path: string;
  send(args: SendArgs): SendResult;
  peek(args: InboxArgs): MessageRecord[];
  read(args: InboxArgs): MessageRecord[];
  thread(args: HistoryArgs): ThreadHistory;
  provenance(args: ProvenanceArgs): Provenance;
  touchAgent(name: string, options?: { wait?: boolean }): boolean;
  close(): void;
}

export function openQuickBrain(options: OpenBrainOptions): QuickBrain {
  // None of these ranks search results: no ranking extension to load.
  const { ctx, wal } = openContext({ ...options, rankFunction: false });
  const db = ctx.db;
  const brain: QuickBrain = {
    path: options.dbPath,
    send: (args) => runSend(ctx, args),
    peek: (args) => runPeek(ctx, args),
    read: (args) => runRead(ctx, args),
    thread: (args) => runThreadHistory(ctx, args),
    provenance: (args) => runProvenance(ctx, args),
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
