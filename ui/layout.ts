import { html, href, seg, type Html, type HtmlValue } from './html.js';
import type { MessageRecord, ThreadRecord } from '../src/index.js';

export interface PageContext {
  /** Show the assistant's link (its data exists). */
  assistant: boolean;
  /** Show the chat's link (an assistant is configured and the viewer is the owner). */
  chat?: boolean;
  /** The viewer's CSRF token, for POST forms. */
  csrf: string;
  /** The viewer is the owner: the one who answers the assistant's questions. */
  owner?: boolean;
  /** The logged-in agent, if any. */
  viewer?: string;
}

const NAV: Array<[string, string]> = [
  ['/', 'Start'],
  ['/agents', 'Agents'],
  ['/threads', 'Threads'],
  ['/search', 'Search'],
];

/** The page shell: header with navigation and a search box, the main content, the scripts. */
export function page(
  title: string,
  ctx: PageContext,
  body: HtmlValue,
  live = 'all',
  /** A static script of the page's own, beside app.js. */
  script?: string,
): Html {
  const nav: Array<[string, string]> = [
    ...NAV,
    ...(ctx.assistant ? [['/assistant', 'Assistant'] as [string, string]] : []),
    ...(ctx.chat ? [['/chat', 'Chat'] as [string, string]] : []),
  ];
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · brain</title>
        <link rel="stylesheet" href="/static/style.css" />
        <script src="/static/app.js" defer></script>
        ${script ? html`<script src="${script}" defer></script>` : ''}
      </head>
      <body data-live="${live}">
        <a class="skip" href="#main">Skip to content</a>
        <header>
          <nav aria-label="Main">
            <ul>
              ${nav.map(([path, label]) => html`<li><a href="${path}">${label}</a></li>`)}
            </ul>
          </nav>
          <form class="quick" role="search" action="/search" method="get">
            <label for="quick-q" class="sr">Search the brain</label>
            <input id="quick-q" name="q" type="search" placeholder="Search" />
            <button type="submit">Search</button>
          </form>
          ${ctx.viewer ? html`<span class="who">as ${ctx.viewer}</span>` : ''}
        </header>
        <div id="live" class="live" role="status" aria-live="polite"></div>
        <main id="main" tabindex="-1">
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html>`;
}

export function time(iso: string | null | undefined): Html {
  if (!iso) return html`<span class="muted">never</span>`;
  return html`<time datetime="${iso}">${iso.replace('T', ' ').slice(0, 19)}</time>`;
}

export function agentLink(name: string | null): Html {
  if (name === null) return html`<span class="muted">everyone</span>`;
  return html`<a class="agent" href="${href(`/inbox/${seg(name)}`)}">${name}</a>`;
}

export function threadLink(thread: Pick<ThreadRecord, 'id' | 'subject'>): Html {
  return html`<a href="${href(`/threads/${seg(thread.id)}`)}">${thread.subject || thread.id}</a>`;
}

export function priorityBadge(priority: string): Html {
  return priority === 'normal'
    ? html``
    : html`<span class="badge prio-${priority}">${priority}</span>`;
}

export function tags(list: string[]): Html {
  return html`${list.map((t) => html`<a class="tag" href="${href('/threads', { tag: t })}">${t}</a> `)}`;
}

/** One message as a short line: sender → recipient, subject, time, with links. */
export function messageLine(m: MessageRecord): Html {
  return html`<li class="msg-line">
    ${priorityBadge(m.priority)}${agentLink(m.from)} → ${agentLink(m.to)}:
    <a href="${href(`/threads/${seg(m.thread_id)}`)}">${m.subject}</a>
    <span class="excerpt">${excerpt(m.body)}</span> ${time(m.created_at)}
    <a class="prov" href="${href(`/provenance/${seg(m.id)}`)}">provenance</a>
  </li>`;
}

export function excerpt(text: string, max = 140): string {
  const line = text.trim().replace(/\s+/g, ' ');
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

export function empty(text: string): Html {
  return html`<p class="muted">${text}</p>`;
}
