import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PageApproval, PageChat } from '../agent/index.js';
import { BrainError, type Brain, type MessageRecord } from '../src/index.js';
import { html, href, seg, type Html } from './html.js';
import { page, time, type PageContext } from './layout.js';
import type { Viewer } from './security.js';

/**
 * The chat page: the owner talks to the assistant in the browser. The conversation itself is the
 * assistant's (agent/page-chat.ts: sessions, commands, approvals, as in the terminal); this file
 * renders the page, streams a session's events as server-sent events, and takes the owner's
 * messages and approval answers (forms, CSRF-checked by the server like every POST). The page
 * works without script too: a form POST starts the turn and the page shows where it is.
 */

export interface ChatDoor {
  /** The owner's agent name: who logs in with `token`. */
  owner: string;
  /** The owner's login token; absent: no login (loopback, no tokens). */
  token?: string | undefined;
  /** The chat, made on first use (the assistant's modules load then). */
  open(): Promise<PageChat>;
}

export interface ChatRoutes {
  /** GET /chat and /chat/stream; false for any other path. */
  get(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    url: URL,
    ctx: PageContext,
    viewer: Viewer,
  ): Promise<boolean>;
  /** POST /chat and /chat/approvals/ID, already checked for Origin and CSRF. */
  post(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    fields: URLSearchParams,
    viewer: Viewer,
  ): Promise<boolean>;
  /**
   * An approval of the assistant page that is an open question of the chat's turn: answered
   * there, so the turn goes on and the gate records the answer; false for any other.
   */
  answerRecord(id: number, decision: 'approved' | 'denied'): Promise<boolean>;
  close(): Promise<void>;
}

const KEEPALIVE_MS = 25_000;
const HISTORY = 30;
const MAX_MESSAGE_CHARS = 8000;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const ANSWERS = ['approve', 'always', 'deny'] as const;

/** `session`: the name after `chat/` (default `default`, the owner's session). */
export function sessionName(value: string | null): string {
  const name = value ?? 'default';
  if (!NAME.test(name))
    throw new BrainError(
      'INVALID_INPUT',
      'session: must be 1-64 letters, digits, dots, dashes or underscores',
    );
  return name;
}

export function createChatRoutes(options: {
  reader: Brain;
  door: ChatDoor;
  /** The page for a viewer who is not the owner. */
  refuse(res: ServerResponse, status: number, message: string, viewer: Viewer): void;
}): ChatRoutes {
  const { reader, door } = options;
  let opened: Promise<PageChat> | undefined;
  const chat = () => {
    opened ??= door.open().catch((err: unknown) => {
      opened = undefined; // try again at the next request
      throw err;
    });
    return opened;
  };
  const streams = new Set<ServerResponse>();
  const keepalive = setInterval(() => {
    for (const res of streams) res.write(`: keepalive\n\n`);
  }, KEEPALIVE_MS);
  keepalive.unref();

  const wantsJson = (req: IncomingMessage) =>
    (req.headers.accept ?? '').includes('application/json');
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store',
    });
    res.end(JSON.stringify(body));
  };
  const back = (res: ServerResponse, name: string, notice?: string) => {
    res.writeHead(303, { Location: href('/chat', { session: name, notice }) });
    res.end();
  };
  const notOwner = (res: ServerResponse, viewer: Viewer) =>
    options.refuse(res, 403, "The chat is the owner's: log in with the owner's token.", viewer);

  const page_ = async (url: URL, ctx: PageContext): Promise<Html> => {
    const c = await chat();
    const name = sessionName(url.searchParams.get('session'));
    const session = c.session(name);
    const notice = url.searchParams.get('notice')?.slice(0, 2000);
    const current = reader.assistant.sessions().find((s) => s.name === session);
    const messages = current ? lastMessages(reader, current.thread_id) : [];
    const state = c.state(session);
    const who = (m: MessageRecord) =>
      m.from === c.owner ? 'You' : m.from === c.agent ? 'Assistant' : m.from;
    return page(
      'Chat',
      ctx,
      html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
        <section
          class="chat"
          id="chat"
          data-session="${name}"
          data-thread="${current?.thread_id ?? ''}"
        >
          <p class="meta">
            Session
            ${session}${
              current
                ? html` · <a href="${href(`/threads/${seg(current.thread_id)}`)}">thread</a>`
                : ''
            }
            · /help lists the commands
          </p>
          <ol class="chat-log" id="chat-history" aria-label="Conversation">
            ${messages.map(
              (m) =>
                html`<li class="chat-msg ${m.from === c.owner ? 'mine' : ''}" data-id="${m.id}">
                  <p class="who">${who(m)} ${time(m.created_at)}</p>
                  <div class="body">${m.body}</div>
                </li>`,
            )}
            ${messages.length ? '' : html`<li class="muted">Nothing said yet in this session.</li>`}
          </ol>
          <div id="chat-turn" class="chat-turn" aria-live="polite">
            ${
              state.running
                ? html`<p class="muted">
                    Working on a turn (reload to follow it; /stop cancels it).
                  </p>`
                : ''
            }
          </div>
          <div id="chat-approvals">
            ${state.approvals.map((a) => approvalForm(a, name, ctx.csrf))}
          </div>
          <div id="chat-command" aria-live="polite"></div>
          <form id="chat-form" class="chat-form" method="post" action="/chat">
            <input type="hidden" name="csrf" value="${ctx.csrf}" />
            <input type="hidden" name="session" value="${name}" />
            <label for="chat-text">Message</label>
            <textarea
              id="chat-text"
              name="text"
              rows="3"
              maxlength="${MAX_MESSAGE_CHARS}"
              required
            ></textarea>
            <p>
              <button type="submit">Send</button>
              <span id="chat-status" class="muted" role="status"></span>
            </p>
          </form>
        </section>`,
      'chat',
      '/static/chat.js',
    );
  };

  const stream = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    const c = await chat();
    const session = c.session(sessionName(url.searchParams.get('session')));
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
    });
    const write = (event: string, data: unknown) =>
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    // The state and the subscription in one tick: no event falls between them.
    write('state', c.state(session));
    const unsubscribe = c.subscribe(session, (event) => {
      const { type, ...data } = event;
      write(type, data);
    });
    streams.add(res);
    req.on('close', () => {
      streams.delete(res);
      unsubscribe();
    });
  };

  return {
    async get(req, res, path, url, ctx, viewer) {
      if (path !== '/chat' && path !== '/chat/stream') return false;
      if (!viewer.owner) {
        notOwner(res, viewer);
        return true;
      }
      if (path === '/chat/stream') {
        await stream(req, res, url);
        return true;
      }
      const body = await page_(url, ctx);
      res.writeHead(200, {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
      });
      res.end(body.text);
      return true;
    },

    async post(req, res, path, fields, viewer) {
      const approval = /^\/chat\/approvals\/([A-Za-z0-9_-]{1,32})$/.exec(path);
      if (path !== '/chat' && !approval) return false;
      if (!viewer.owner) {
        notOwner(res, viewer);
        return true;
      }
      const c = await chat();
      const name = sessionName(fields.get('session'));
      const session = c.session(name);
      const asJson = wantsJson(req);
      const fail = (status: number, message: string) =>
        asJson
          ? json(res, status, { error: message })
          : options.refuse(res, status, message, viewer);
      if (approval) {
        const answer = fields.get('answer');
        if (!(ANSWERS as readonly string[]).includes(answer ?? '')) {
          fail(400, 'answer: must be approve, always or deny');
          return true;
        }
        const settled = c.answer(session, approval[1]!, answer as (typeof ANSWERS)[number]);
        if (asJson) json(res, 200, { settled });
        else back(res, name, settled ? undefined : 'That question is no longer open.');
        return true;
      }
      const text = (fields.get('text') ?? '').trim();
      if (text === '') {
        fail(400, 'text: must not be empty');
        return true;
      }
      if (text.length > MAX_MESSAGE_CHARS) {
        fail(400, `text: at most ${MAX_MESSAGE_CHARS} characters`);
        return true;
      }
      const said = c.say(session, text);
      if (said.kind === 'busy') {
        fail(409, 'A turn is running: wait for it, or /stop cancels it.');
      } else if (asJson) {
        json(res, said.kind === 'turn' ? 202 : 200, said);
      } else {
        back(res, name, said.kind === 'command' ? said.reply : undefined);
      }
      return true;
    },

    async answerRecord(id, decision) {
      // Not opened: no turn of the chat is asking.
      const made = opened && (await opened.catch(() => undefined));
      return made?.answerRecord(id, decision === 'approved' ? 'approve' : 'deny') ?? false;
    },

    async close() {
      clearInterval(keepalive);
      for (const res of streams) res.end();
      streams.clear();
      const made = opened;
      opened = undefined;
      if (made) await (await made.catch(() => undefined))?.close();
    },
  };
}

/** The last messages of the session's thread, oldest first. */
function lastMessages(reader: Brain, threadId: string): MessageRecord[] {
  const thread = reader.messages.getThread(threadId);
  if (!thread) return [];
  const offset = Math.max(0, thread.message_count - HISTORY);
  return reader.messages.thread({ thread_id: threadId, limit: HISTORY, offset }).messages;
}

function approvalForm(a: PageApproval, session: string, csrf: string): Html {
  return html`<form
    method="post"
    action="/chat/approvals/${a.id}"
    class="chat-approval"
    data-approval="${a.id}"
  >
    <p><strong>Allow this call?</strong></p>
    <pre class="body">${a.text}</pre>
    <input type="hidden" name="csrf" value="${csrf}" />
    <input type="hidden" name="session" value="${session}" />
    <button type="submit" name="answer" value="approve" class="approved">Approve</button>
    ${
      a.always
        ? html`<button type="submit" name="answer" value="always" class="approved">Always</button>`
        : ''
    }
    <button type="submit" name="answer" value="deny" class="denied">Deny</button>
  </form>`;
}
