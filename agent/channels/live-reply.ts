import { splitMessage } from './split.js';

/**
 * A reply that arrives as it is written: the streamed text is shown in a chat message edited in
 * place, at most once per `everyMs` (the chat services' rate limits: about one update a second per
 * chat), cut into further messages where it outgrows the service's limit. When the turn ends the
 * channel hands over the reply as it is to be read (formatted, cut by the service's own rules) and
 * the shown messages become it: edited, with parts sent or left over messages removed. A reply too
 * quick to need an update is sent once, as if nothing streamed.
 *
 * When something else was posted below the reply while it streamed (an approval prompt), the
 * reply moves below it: the shown messages are removed and the rest is sent afresh, so the answer
 * is the chat's newest message.
 */

export interface LiveTransport {
  /** Posts a message; `index` is its place in the reply (the first may quote the question). */
  send(text: string, index: number, final: boolean): Promise<string>;
  /** Replaces a message's text; `final` means formatted as the channel renders a reply. */
  edit(id: string, text: string, final: boolean): Promise<void>;
  remove(id: string): Promise<void>;
}

export interface LiveTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface LiveReplyOptions {
  transport: LiveTransport;
  /** The most characters a message may hold while streaming. */
  limit: number;
  /** The least time between two updates. */
  everyMs: number;
  timers?: LiveTimers;
  onError?(err: unknown): void;
}

export interface LiveReply {
  onText(delta: string): void;
  /** The answer starts over (another endpoint took it): what was shown of it is replaced. */
  onRestart(): void;
  /** Something was posted below the reply: it moves below that at its next update. */
  moved(): void;
  /** Shows `parts` (the finished reply, formatted) in place of the streamed text. */
  finish(parts: readonly string[]): Promise<void>;
}

/** Shown after the streamed text while more is coming. */
const MORE = ' …';

const defaultTimers: LiveTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export function createLiveReply(options: LiveReplyOptions): LiveReply {
  const { transport, limit, everyMs } = options;
  const timers = options.timers ?? defaultTimers;
  let text = '';
  let ids: string[] = [];
  let shown: string[] = [];
  let timer: unknown;
  let finished = false;
  let detached = false;
  /** A send or edit failed: nothing more streams; the end sends the reply afresh. */
  let broken = false;
  /** Updates run one after another, never two at once. */
  let chain: Promise<void> = Promise.resolve();

  const fail = (err: unknown) => {
    broken = true;
    options.onError?.(err);
  };

  /** Deletes the shown messages (best effort) and forgets them. */
  async function clear(): Promise<void> {
    const gone = ids;
    ids = [];
    shown = [];
    for (const id of gone) await transport.remove(id).catch(options.onError ?? (() => {}));
  }

  /** Makes the messages show `parts`, editing what is there, sending what is missing. */
  async function show(parts: readonly string[], final: boolean): Promise<void> {
    if (detached) {
      detached = false;
      await clear();
    }
    for (const [i, part] of parts.entries()) {
      const id = ids[i];
      if (id === undefined) {
        ids.push(await transport.send(part, i, final));
        shown.push(part);
      } else if (final || shown[i] !== part) {
        await transport.edit(id, part, final);
        shown[i] = part;
      }
    }
  }

  async function update(): Promise<void> {
    if (finished || broken || text.trim() === '') return;
    const parts = splitMessage(text, limit - MORE.length);
    parts[parts.length - 1] = parts[parts.length - 1]!.trimEnd() + MORE;
    await show(parts, false).catch(fail);
  }

  const schedule = () => {
    if (timer !== undefined || finished || broken) return;
    timer = timers.setTimeout(() => {
      timer = undefined;
      const before = text;
      chain = chain.then(update).then(() => {
        // Text that came during the update: shown at the next tick.
        if (text !== before) schedule();
      });
    }, everyMs);
  };

  return {
    onText(delta) {
      if (finished || delta === '') return;
      text += delta;
      schedule();
    },
    onRestart() {
      text = '';
    },
    moved() {
      if (ids.length > 0) detached = true;
    },
    async finish(parts) {
      finished = true;
      if (timer !== undefined) timers.clearTimeout(timer);
      timer = undefined;
      await chain;
      if (broken) await clear();
      try {
        await show(parts, true);
      } catch (err) {
        // An edit refused at the end: the reply is sent afresh rather than lost.
        options.onError?.(err);
        await clear();
        await show(parts, true);
      }
      // Fewer parts than were shown: the surplus goes.
      const surplus = ids.slice(parts.length);
      ids = ids.slice(0, parts.length);
      for (const id of surplus) await transport.remove(id).catch(options.onError ?? (() => {}));
    },
  };
}
