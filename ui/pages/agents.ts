import type { Brain } from '../../src/index.js';
import { html, href, seg, type Html } from '../html.js';
import { empty, messageLine, page, time, type PageContext } from '../layout.js';

/** Each agent: unread, last seen, sent and received over all history, and its latest messages. */
export function agentsPage(brain: Brain, ctx: PageContext): Html {
  const agents = brain.messages.agentActivity();
  if (agents.length === 0) return page('Agents', ctx, empty('No agents yet.'));
  return page(
    'Agents',
    ctx,
    html`<div id="agent-cards" data-refresh>
      ${agents.map(
        (a) =>
          html`<section class="card" aria-labelledby="agent-${seg(a.name)}">
            <h2 id="agent-${seg(a.name)}">
              <a href="${href(`/inbox/${seg(a.name)}`)}">${a.name}</a
              >${a.display_name ? html` <span class="muted">${a.display_name}</span>` : ''}
            </h2>
            <p class="meta">
              <strong>${a.unread}</strong> unread · ${a.sent} sent · ${a.received} received · seen
              ${time(a.last_seen_at)}
            </p>
            ${
              a.latest.length
                ? html`<ul class="latest">
                    ${a.latest.map(messageLine)}
                  </ul>`
                : html`<p class="muted">No messages yet.</p>`
            }
          </section>`,
      )}
    </div>`,
    'refresh',
  );
}
