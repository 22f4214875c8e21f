import type { UsageRow } from '../src/index.js';
import { html, type Html } from './html.js';

const PALETTE = ['#4062bb', '#e07a1f', '#2a9d8f', '#b23a48', '#7b5ea7', '#8a8a2e'];
const BAR_W = 28;
const GAP = 12;
const H = 180;
const LEFT = 64;
const BOTTOM = 40;

/** Tokens (input + output) per day as stacked bars, one colour per model, with a legend. */
export function usageChart(days: UsageRow[]): Html {
  const models = [...new Set(days.flatMap((d) => d.models.map((m) => m.model)))].sort();
  const colour = (model: string) => PALETTE[models.indexOf(model) % PALETTE.length]!;
  const total = (d: UsageRow) => d.input_tokens + d.output_tokens;
  const max = Math.max(1, ...days.map(total));
  const width = LEFT + days.length * (BAR_W + GAP) + GAP;
  const bars = [...days]
    .sort((a, b) => a.key.localeCompare(b.key))
    .map((d, i) => {
      const x = LEFT + GAP + i * (BAR_W + GAP);
      let y = H;
      const parts = d.models.map((m) => {
        const h = ((m.input_tokens + m.output_tokens) / max) * (H - 10);
        y -= h;
        return html`<rect
          x="${x}"
          y="${y.toFixed(1)}"
          width="${BAR_W}"
          height="${h.toFixed(1)}"
          fill="${colour(m.model)}"
          ><title>
            ${d.key} ${m.model}: ${m.input_tokens} in, ${m.output_tokens} out, ${m.calls} calls
          </title></rect
        >`;
      });
      return html`<g
        >${parts}<text
          x="${x + BAR_W / 2}"
          y="${H + 14}"
          font-size="10"
          text-anchor="middle"
          fill="#333"
          >${d.key.slice(5)}</text
        ></g
      >`;
    });
  return html`<figure class="chart">
    <svg
      role="img"
      aria-labelledby="usage-title"
      viewBox="0 0 ${width} ${H + BOTTOM}"
      width="${width}"
      height="${H + BOTTOM}"
      xmlns="http://www.w3.org/2000/svg"
    >
      <title id="usage-title">Tokens per day and model</title>
      <line x1="${LEFT}" y1="${H}" x2="${width}" y2="${H}" stroke="#999" />
      <text x="${LEFT - 6}" y="16" font-size="10" text-anchor="end" fill="#333">
        ${max.toLocaleString('en-US')}
      </text>
      <text x="${LEFT - 6}" y="${H}" font-size="10" text-anchor="end" fill="#333">0</text>
      ${bars}
    </svg>
    <figcaption>
      ${models.map(
        (m) =>
          html`<span class="legend"
            ><svg width="10" height="10" aria-hidden="true">
              <rect width="10" height="10" fill="${colour(m)}" />
            </svg>
            ${m}</span
          > `,
      )}
    </figcaption>
  </figure>`;
}
