import { THREAD_STATUSES, type Brain, type ThreadMessage } from '../../src/index.js';
import { attachmentList } from '../attachments.js';
import { html, href, seg, type Html } from '../html.js';
import {
  agentLink,
  empty,
  page,
  priorityBadge,
  tags,
  threadLink,
  time,
  type PageContext,
} from '../layout.js';
import type { Query } from '../query.js';

const PAGE = 50;

/** Threads, most recently active first, filtered by status and tag, a page at a time. */
export function threadsPage(brain: Brain, ctx: PageContext, q: Query): Html {
  const status = q.oneOf('status', THREAD_STATUSES);
  const tag = q.text('tag', 64);
  const offset = q.int('offset', 0, 1_000_000);
  const list = brain.messages.threads({ status, tag, limit: PAGE + 1, offset });
  const more = list.length > PAGE;
  const filters = html`<form class="filters" method="get" action="/threads">
    <label
      >Status
      <select name="status">
        <option value="">any</option>
        ${THREAD_STATUSES.map(
          (s) => html`<option value="${s}" ${s === status ? html` selected` : ''}>${s}</option>`,
        )}
      </select></label
    >
    <label>Tag <input name="tag" value="${tag ?? ''}" maxlength="64" /></label>
    <button type="submit">Filter</button>
  </form>`;
  const rows = list.slice(0, PAGE).map(
    (t) =>
      html`<tr>
        <td>${threadLink(t)}</td>
        <td>${t.status}</td>
        <td>${tags(t.tags)}</td>
        <td class="num">${t.message_count}</td>
        <td>${time(t.last_message_at)}</td>
        <td>${agentLink(t.created_by)}</td>
      </tr>`,
  );
  const table =
    rows.length === 0
      ? empty('No threads match.')
      : html`<div class="scroll">
          <table>
            <caption class="sr">
              Threads
            </caption>
            <thead>
              <tr>
                <th scope="col">Subject</th>
                <th scope="col">Status</th>
                <th scope="col">Tags</th>
                <th scope="col">Messages</th>
                <th scope="col">Last activity</th>
                <th scope="col">Started by</th>
              </tr>
            </thead>
            <tbody>
              ${rows}
            </tbody>
          </table>
        </div>`;
  const pager = html`<nav class="pager" aria-label="Pages">
    ${
      offset > 0
        ? html`<a href="${href('/threads', { status, tag, offset: Math.max(0, offset - PAGE) })}"
            >Newer</a
          >`
        : ''
    }
    ${more ? html`<a href="${href('/threads', { status, tag, offset: offset + PAGE })}">Older</a>` : ''}
  </nav>`;
  return page('Threads', ctx, [filters, table, pager]);
}

/** A thread as a conversation, a page of messages at a time (the latest page first). */
export function threadPage(brain: Brain, ctx: PageContext, id: string, q: Query): Html | undefined {
  const thread = brain.messages.getThread(id);
  if (!thread) return undefined;
  const last = Math.max(0, thread.message_count - PAGE);
  const offset = q.int('offset', last, 10_000_000);
  const history = brain.messages.thread({ thread_id: id, limit: PAGE, offset });
  const derived = brain.knowledge.derivedFromMessages(history.messages.map((m) => m.id));
  const link = (o: number, label: string) =>
    html`<a href="${href(`/threads/${seg(id)}`, { offset: o })}">${label}</a>`;
  const pager = html`<nav class="pager" aria-label="Pages of this thread">
    ${offset > 0 ? [link(0, 'First'), ' ', link(Math.max(0, offset - PAGE), 'Earlier')] : ''}
    <span class="muted"
      >messages ${history.messages.length ? offset + 1 : 0}–${offset + history.messages.length} of
      ${thread.message_count}</span
    >
    ${history.next_offset !== null ? [link(history.next_offset, 'Later'), ' ', link(last, 'Latest')] : ''}
  </nav>`;
  const head = html`<p class="meta">
    ${thread.status} · started by ${agentLink(thread.created_by)} ${time(thread.created_at)} ·
    ${tags(thread.tags)}
  </p>`;
  const summary = brain.knowledge.threadSummary(thread.id);
  const summaryBlock = summary
    ? html`<section class="summary" aria-labelledby="summary-title">
        <h2 id="summary-title">Summary</h2>
        <p>${summary.content}</p>
        <p class="meta">
          covers ${summary.messages} of ${thread.message_count} messages · written
          ${time(summary.created_at)} ·
          <a href="${href(`/provenance/${seg(summary.id)}`)}">sources</a>
        </p>
      </section>`
    : '';
  const atEnd = history.next_offset === null;
  const list = html`<ol
    class="conversation"
    id="messages"
    data-thread="${id}"
    data-append="${atEnd ? 'yes' : 'no'}"
  >
    ${history.messages.map((m) => messageArticle(m, derived.get(m.id)))}
  </ol>`;
  return page(thread.subject || id, ctx, [head, summaryBlock, pager, list, pager], 'thread');
}

type Derived =
  ReturnType<Brain['knowledge']['derivedFromMessages']> extends Map<string, infer D> ? D : never;

/** One message of a conversation: sender, recipient, priority, body, receipts, acks, knowledge. */
export function messageArticle(m: ThreadMessage, derived: Derived | undefined): Html {
  const receipts = m.receipts.map(
    (r) =>
      html`<li>
        ${agentLink(r.agent)}:
        ${r.read_at ? html`read ${time(r.read_at)}` : html`<strong>unread</strong>`}
      </li>`,
  );
  const acks = m.acks.map(
    (a) =>
      html`<li>
        ${agentLink(a.agent)} acknowledged ${time(a.created_at)}${a.body ? html`: ${a.body}` : ''}
      </li>`,
  );
  const learned = derived
    ? [
        ...derived.stm.map(
          (s) =>
            html`<li><a href="${href(`/provenance/${seg(s.id)}`)}">memory</a> ${s.content}</li>`,
        ),
        ...derived.atoms.map(
          (a) =>
            html`<li>
              <a href="${href(`/provenance/${seg(a.id)}`)}">atom</a> ${a.subject} — ${a.action} →
              ${a.outcome}
            </li>`,
        ),
      ]
    : [];
  return html`<li class="message prio-${m.priority}" id="${m.id}">
    <article aria-label="Message from ${m.from}">
      <header>
        ${priorityBadge(m.priority)}<strong>${agentLink(m.from)}</strong> → ${agentLink(m.to)}
        ${time(m.created_at)}
        <a class="prov" href="${href(`/provenance/${seg(m.id)}`)}">provenance</a>
      </header>
      ${m.subject ? html`<p class="subject">${m.subject}</p>` : ''}
      <div class="body">${m.body}</div>
      ${attachmentList(m.attachments)}
      ${
        receipts.length
          ? html`<ul class="receipts" aria-label="Receipts">
              ${receipts}
            </ul>`
          : ''
      }
      ${
        acks.length
          ? html`<ul class="acks" aria-label="Acknowledgements">
              ${acks}
            </ul>`
          : ''
      }
      ${
        learned.length
          ? html`<details class="learned" open>
              <summary>Learned from this message (${learned.length})</summary>
              <ul>
                ${learned}
              </ul>
            </details>`
          : ''
      }
    </article>
  </li>`;
}
