import type { AtomRecord, Brain, MessageRecord, StmRecord } from '../../src/index.js';
import { chainGraph } from '../graph.js';
import { html, href, seg, type Html } from '../html.js';
import { agentLink, empty, page, threadLink, time, type PageContext } from '../layout.js';

/**
 * Where knowledge came from, and what was learned from a message: memory or atom → source
 * message → the thread around it; for an atom, its chain (causes, enables, precedes) as a graph.
 */
export function provenancePage(brain: Brain, ctx: PageContext, id: string): Html {
  const p = brain.knowledge.provenance({ id, context: 3 });
  const parts: Html[] = [];
  if (p.knowledge?.type === 'stm') parts.push(stmCard(p.knowledge.record));
  if (p.knowledge?.type === 'atom') {
    parts.push(atomCard(p.knowledge.record));
    const chain = brain.knowledge.chain({
      atom_id: p.knowledge.record.id,
      direction: 'both',
      depth: 3,
    });
    parts.push(
      html`<section aria-labelledby="h-chain">
        <h2 id="h-chain">Chain</h2>
        ${chain.steps.length ? chainGraph(chain) : empty('This atom has no links.')}
      </section>`,
    );
  }
  if (p.knowledge && !p.message) parts.push(empty('No source message is recorded for this.'));
  if (p.message) {
    parts.push(
      html`<section aria-labelledby="h-source">
        <h2 id="h-source">${p.knowledge ? 'Source message' : 'Message'}</h2>
        ${p.thread ? html`<p>In thread ${threadLink(p.thread)}</p>` : ''}
        <ol class="conversation context">
          ${p.context.map((m) => contextItem(m, m.id === p.message!.id))}
        </ol>
      </section>`,
    );
    const learned = [...p.derived.stm.map(stmCard), ...p.derived.atoms.map(atomCard)];
    parts.push(
      html`<section aria-labelledby="h-learned" id="learned" data-refresh>
        <h2 id="h-learned">Learned from this message</h2>
        ${learned.length ? learned : empty('Nothing was learned from it.')}
      </section>`,
    );
  }
  const title =
    p.type === 'message'
      ? 'Provenance of a message'
      : p.type === 'stm'
        ? 'Provenance of a memory'
        : 'Provenance of an atom';
  // New memories and atoms of the message show as they are learned (the `learned` part).
  return page(title, ctx, parts, p.message ? 'refresh' : 'all');
}

function contextItem(m: MessageRecord, focus: boolean): Html {
  return html`<li class="message${focus ? ' focus' : ''}" id="${m.id}"><article${focus ? html` aria-current="true"` : ''}>
<header>${agentLink(m.from)} → ${agentLink(m.to)} ${time(m.created_at)} <a class="prov" href="${href(`/provenance/${seg(m.id)}`)}">provenance</a></header>
<div class="body">${m.body}</div></article></li>`;
}

function stmCard(s: StmRecord): Html {
  return html`<div class="card knowledge">
    <p>
      <span class="badge type-stm">memory</span>
      <a href="${href(`/provenance/${seg(s.id)}`)}">${s.id}</a> by ${agentLink(s.agent)}
      ${time(s.created_at)}
    </p>
    <p class="body">${s.content}</p>
    <p class="meta">
      importance ${s.importance} · ${s.categories.map((c) => html`<span class="tag">${c}</span> `)}
    </p>
  </div>`;
}

function atomCard(a: AtomRecord): Html {
  return html`<div class="card knowledge">
    <p>
      <span class="badge type-atom">atom</span>
      <a href="${href(`/provenance/${seg(a.id)}`)}">${a.id}</a> by ${agentLink(a.agent)}
      ${time(a.created_at)}
    </p>
    <dl class="atom">
      <dt>Subject</dt>
      <dd>${a.subject}</dd>
      <dt>Action</dt>
      <dd>${a.action}</dd>
      <dt>Outcome</dt>
      <dd>${a.outcome}</dd>
      ${
        a.consequences
          ? html`<dt>Consequences</dt>
              <dd>${a.consequences}</dd>`
          : ''
      }
      <dt>Confidence</dt>
      <dd>${a.confidence}</dd>
    </dl>
  </div>`;
}
