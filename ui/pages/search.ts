import {
  SEARCH_TYPES,
  type Brain,
  type Embedder,
  type SearchHit,
  type SearchType,
  readTimeBound,
} from '../../src/index.js';
import { html, href, seg, type Html } from '../html.js';
import { agentLink, empty, page, time, type PageContext } from '../layout.js';
import type { Query } from '../query.js';

const TYPE_LABELS: Record<SearchType, string> = {
  message: 'messages',
  stm: 'memories',
  atom: 'atoms',
};

/** The query embedder, found when a search needs it (undefined: words only). */
export type SearchEmbedder = () => Promise<Embedder | undefined>;

/**
 * One box over messages, memories and atoms, with the CLI's filters and its search: words and, when
 * the brain has vectors and an embedder answers, meaning (hybrid); words alone with the library's
 * notice when the embedder does not answer. Each hit says which retrievers found it.
 */
export async function searchPage(
  brain: Brain,
  ctx: PageContext,
  q: Query,
  embedder: SearchEmbedder = () => Promise.resolve(undefined),
  /** The owner's zone for times as said (BRAIN_TIME_ZONE, as the CLI reads them); else the system's. */
  timeZone?: string,
): Promise<Html> {
  const query = q.text('q', 1000);
  const chosen = q
    .all('types')
    .filter((t): t is SearchType => (SEARCH_TYPES as readonly string[]).includes(t));
  const since = q.text('since', 40);
  const until = q.text('until', 40);
  const thread = q.text('thread', 60);
  const from = q.text('from', 100);
  const active = q.text('active', 2) === '1';
  const types = chosen.length ? chosen : [...SEARCH_TYPES];
  const form = html`<form class="search" method="get" action="/search" role="search">
    <p>
      <label for="q">Words</label>
      <input id="q" name="q" type="search" value="${query ?? ''}" maxlength="1000" required />
      <button type="submit">Search</button>
    </p>
    <fieldset>
      <legend>Types</legend>
      ${SEARCH_TYPES.map(
        (t) =>
          html`<label
            ><input
              type="checkbox"
              name="types"
              value="${t}"
              ${types.includes(t) ? html` checked` : ''}
            />
            ${TYPE_LABELS[t]}</label
          > `,
      )}
    </fieldset>
    <p class="filters">
      <label
        >Since <input name="since" value="${since ?? ''}" placeholder="2026-01-01 or last Tuesday"
      /></label>
      <label
        >Until <input name="until" value="${until ?? ''}" placeholder="2026-12-31 or yesterday"
      /></label>
      <label>Thread <input name="thread" value="${thread ?? ''}" placeholder="thr_…" /></label>
      <label>From <input name="from" value="${from ?? ''}" placeholder="agent" /></label>
      <label
        ><input type="checkbox" name="active" value="1" ${active ? html` checked` : ''} /> Hide
        archived threads</label
      >
    </p>
  </form>`;
  if (!query) return page('Search', ctx, form);
  let made: Embedder | undefined;
  let failed: string | undefined;
  try {
    made = await embedder();
  } catch (err) {
    failed = `no query embedder (${err instanceof Error ? err.message : String(err)}): searched by words only`;
  }
  // The boxes take a time as said ("last Tuesday") as well as a date; the query's own time words
  // are read by the search, in the same zone.
  const when = { now: new Date(), timeZone };
  const from_ = since ? await readTimeBound('since', since, when) : undefined;
  const to = until ? await readTimeBound('until', until, when) : undefined;
  const result = await brain.search.searchHybrid(
    {
      query,
      types,
      limit: 50,
      ...(from_ ? { since: from_ } : {}),
      ...(to ? { until: to } : {}),
      ...(thread ? { thread } : {}),
      ...(from ? { agent: from } : {}),
      ...(active ? { exclude_archived: true } : {}),
    },
    { embedder: made, timeWords: { timeZone } },
  );
  const notices = [...(failed ? [failed] : []), ...result.notices].map(
    (n) => html`<p class="notice">${n}</p>`,
  );
  const hits =
    result.hits.length === 0
      ? empty('Nothing found.')
      : html`<ol class="hits">
          ${result.hits.map(hitItem)}
        </ol>`;
  return page('Search', ctx, [
    form,
    notices,
    html`<p class="muted">
      ${result.hits.length} hits · retrievers: ${result.retrievers.join(', ')}
    </p>`,
    hits,
  ]);
}

function hitItem(hit: SearchHit): Html {
  const found = Object.entries(hit.found_by).map(
    ([name, e]) => html`<span class="badge retriever">${name} #${e.rank}</span> `,
  );
  const target =
    hit.type === 'message' ? `/provenance/${seg(hit.id)}` : `/provenance/${seg(hit.id)}`;
  return html`<li class="hit">
    <span class="badge type-${hit.type}">${TYPE_LABELS[hit.type]}</span>
    <a href="${href(target)}">${hit.title}</a> ${found}
    <p class="snippet">
      ${hit.attachment ? html`<span class="meta">in attachment ${hit.attachment}:</span> ` : ''}${hit.snippet}
    </p>
    <p class="meta">
      ${agentLink(hit.agent)}
      ${time(hit.time)}${
        hit.occurred_at
          ? html` · happened
            ${time(hit.occurred_at)}${hit.matched_time === 'occurred' ? ' (in the time asked)' : ''}`
          : ''
      }${hit.thread_id ? html` · <a href="${href(`/threads/${seg(hit.thread_id)}`)}">thread</a>` : ''}
      · score ${hit.score.toFixed(3)}
    </p>
  </li>`;
}
