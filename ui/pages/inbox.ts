import type { Brain, InboxEntry } from '../../src/index.js';
import { html, type Html } from '../html.js';
import { empty, messageLine, page, time, type PageContext } from '../layout.js';

/** An agent's inbox, unread then read: looking marks nothing read. */
export function inboxPage(brain: Brain, ctx: PageContext, agent: string): Html {
  const view = brain.messages.inboxView({ agent, limit: 50 });
  const list = (entries: InboxEntry[], none: string) =>
    entries.length === 0
      ? empty(none)
      : html`<ul class="inbox">
          ${entries.map(
            (m) =>
              html`${messageLine(m)}${m.read_at ? html`<li class="read-at muted">read ${time(m.read_at)}</li>` : ''}`,
          )}
        </ul>`;
  return page(
    `Inbox of ${agent}`,
    ctx,
    html`<p class="muted">Viewing this page marks nothing read.</p>
      <section aria-labelledby="h-unread" id="inbox-unread" data-refresh>
        <h2 id="h-unread">Unread (${view.unread_count})</h2>
        ${list(view.unread, 'Nothing unread.')}
      </section>
      <section aria-labelledby="h-read" id="inbox-read" data-refresh>
        <h2 id="h-read">Read</h2>
        ${list(view.read, 'Nothing read yet.')}
      </section>`,
    'refresh',
  );
}
