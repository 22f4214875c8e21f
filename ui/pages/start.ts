import type { Brain } from '../../src/index.js';
import { html, href, seg, type Html } from '../html.js';
import { agentLink, empty, page, tags, threadLink, time, type PageContext } from '../layout.js';

/** What is going on: the latest threads and the agents with their unread counts. */
export function startPage(brain: Brain, ctx: PageContext): Html {
  const threads = brain.messages.threads({ limit: 20 });
  const agents = brain.messages.listAgents();
  const threadList =
    threads.length === 0
      ? empty('No threads yet.')
      : html`<ul class="threads" id="latest-threads">
          ${threads.map(
            (t) =>
              html`<li>
                ${threadLink(t)}
                <span class="muted">${t.message_count} messages · ${t.status}</span> ${tags(t.tags)}
                ${time(t.last_message_at)}
              </li>`,
          )}
        </ul>`;
  const agentList =
    agents.length === 0
      ? empty('No agents yet.')
      : html`<ul class="agents">
          ${agents.map((a) => {
            const unread = brain.messages.poll(a.name).unread;
            return html`<li>
              ${agentLink(a.name)}
              <a
                href="${href(`/inbox/${seg(a.name)}`)}"
                class="${unread ? 'badge unread' : 'muted'}"
                >${unread} unread</a
              >
              · seen ${time(a.last_seen_at)}
            </li>`;
          })}
        </ul>`;
  return page(
    'What is going on',
    ctx,
    html`<div class="columns">
      <section aria-labelledby="h-threads" id="start-threads" data-refresh>
        <h2 id="h-threads">Latest threads</h2>
        ${threadList}
        <p><a href="/threads">All threads</a></p>
      </section>
      <section aria-labelledby="h-agents" id="start-agents" data-refresh>
        <h2 id="h-agents">Agents</h2>
        ${agentList}
        <p><a href="/agents">What each agent is doing</a></p>
      </section>
    </div>`,
    'refresh',
  );
}
