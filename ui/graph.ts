import type { AtomChain, AtomRecord, LinkType } from '../src/index.js';
import { html, href, seg, type Html } from './html.js';

const COL_W = 260;
const ROW_H = 70;
const BOX_W = 180;
const BOX_H = 44;
const PAD = 20;
const COLORS: Record<LinkType, string> = {
  causes: '#c0392b',
  enables: '#1f7a4d',
  precedes: '#5b5bd6',
  correlates: '#777777',
};

/**
 * An atom chain as SVG, laid out in layers: one column per depth (causes on the left, what
 * follows on the right, the start in the middle), atoms stacked within a column. Each box links
 * to that atom's provenance; arrows are coloured by link type.
 */
export function chainGraph(chain: AtomChain): Html {
  const depthOf = new Map<string, number>([[chain.start.id, 0]]);
  const atoms = new Map<string, AtomRecord>([[chain.start.id, chain.start]]);
  for (const step of chain.steps) {
    if (!depthOf.has(step.atom.id)) depthOf.set(step.atom.id, step.depth);
    atoms.set(step.atom.id, step.atom);
  }
  const depths = [...new Set(depthOf.values())].sort((a, b) => a - b);
  const minDepth = depths[0] ?? 0;
  const columns = new Map<number, string[]>();
  for (const [id, d] of depthOf) columns.set(d, [...(columns.get(d) ?? []), id]);
  const pos = new Map<string, { x: number; y: number }>();
  let rows = 1;
  for (const [d, ids] of columns) {
    rows = Math.max(rows, ids.length);
    ids.forEach((id, i) => pos.set(id, { x: PAD + (d - minDepth) * COL_W, y: PAD + i * ROW_H }));
  }
  const width = PAD * 2 + (depths.length - 1) * COL_W + BOX_W;
  const height = PAD * 2 + (rows - 1) * ROW_H + BOX_H;
  const seen = new Set<string>();
  const edges: Html[] = [];
  for (const { link } of chain.steps) {
    const key = `${link.from}>${link.to}>${link.type}`;
    const a = pos.get(link.from);
    const b = pos.get(link.to);
    if (seen.has(key) || !a || !b) continue;
    seen.add(key);
    const x1 = a.x + BOX_W;
    const y1 = a.y + BOX_H / 2;
    const x2 = b.x;
    const y2 = b.y + BOX_H / 2;
    const back = x2 <= x1;
    const d = back
      ? `M${a.x + BOX_W / 2},${a.y + BOX_H} C${a.x + BOX_W / 2},${a.y + BOX_H + 30} ${b.x + BOX_W / 2},${b.y + BOX_H + 30} ${b.x + BOX_W / 2},${b.y + BOX_H}`
      : `M${x1},${y1} C${(x1 + x2) / 2},${y1} ${(x1 + x2) / 2},${y2} ${x2 - 4},${y2}`;
    edges.push(
      html`<g class="edge"
        ><path
          d="${d}"
          fill="none"
          stroke="${COLORS[link.type]}"
          stroke-width="2"
          marker-end="url(#arrow-${link.type})"
          ><title>${link.type} (strength ${link.strength})</title></path
        >
        <text
          x="${(x1 + x2) / 2}"
          y="${(y1 + y2) / 2 - 6}"
          font-size="11"
          text-anchor="middle"
          fill="${COLORS[link.type]}"
          >${link.type}</text
        ></g
      >`,
    );
  }
  const nodes = [...pos].map(([id, p]) => {
    const atom = atoms.get(id)!;
    const label = cut(atom.subject || atom.action, 26);
    const isStart = id === chain.start.id;
    return html`<a href="${href(`/provenance/${seg(id)}`)}" class="node"
      ><g>
        <rect
          x="${p.x}"
          y="${p.y}"
          width="${BOX_W}"
          height="${BOX_H}"
          rx="6"
          fill="${isStart ? '#fff4c2' : '#ffffff'}"
          stroke="${isStart ? '#b8860b' : '#667'}"
          stroke-width="${isStart ? 2 : 1}"
        />
        <text x="${p.x + 8}" y="${p.y + 18}" font-size="12" fill="#111">${label}</text>
        <text x="${p.x + 8}" y="${p.y + 35}" font-size="10" fill="#555"
          >${cut(atom.outcome, 30)}</text
        >
        <title>${atom.subject}: ${atom.action} → ${atom.outcome}</title></g
      ></a
    >`;
  });
  const markers = (Object.keys(COLORS) as LinkType[]).map(
    (t) =>
      html`<marker
        id="arrow-${t}"
        viewBox="0 0 10 10"
        refX="9"
        refY="5"
        markerWidth="7"
        markerHeight="7"
        orient="auto-start-reverse"
        ><path d="M0,0 L10,5 L0,10 z" fill="${COLORS[t]}"
      /></marker>`,
  );
  return html`<figure class="graph">
    <svg
      role="img"
      aria-labelledby="graph-title"
      viewBox="0 0 ${width} ${height + 30}"
      width="${width}"
      height="${height + 30}"
      xmlns="http://www.w3.org/2000/svg"
    >
      <title id="graph-title">
        Atom chain around ${chain.start.subject}: ${atoms.size} atoms, ${seen.size} links
      </title>
      <defs>${markers}</defs>
      ${edges}${nodes}
    </svg>
    <figcaption>
      ${Object.keys(COLORS).map((t) => html`<span class="key key-${t}">${t}</span> `)}·
      ${atoms.size} atoms, ${seen.size} links
    </figcaption>
  </figure>`;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
