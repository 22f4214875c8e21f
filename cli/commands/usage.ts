import type { Command } from 'commander';
import type { TokenSums, UsageRow } from '../../src/index.js';
import { bold, dim, printJson, println } from '../output.js';
import { withBrain, type GlobalOptions } from '../run.js';
import { estimateCost } from '../../src/index.js';

type Globals = () => GlobalOptions;

const COLUMNS = ['calls', 'input', 'output', 'cache read', 'cache write', 'cost'] as const;

export function registerUsage(program: Command, globals: Globals): void {
  program
    .command('usage')
    .description("the assistant's model calls: tokens and estimated cost")
    .option('--since <date>', 'only calls from this date/time on (ISO 8601)')
    .option('--by <group>', 'one row per model, day (UTC) or source', 'model')
    .action((opts: { since?: string; by: string }) =>
      withBrain(globals(), async ({ brain, json }) => {
        const rows = brain.assistant.usage({ since: opts.since, by: opts.by as 'model' });
        const priced = rows.map((r) => ({
          ...r,
          cost_usd: estimateCost(r.models),
          models: r.models.map((m) => ({ ...m, cost_usd: estimateCost([m]) })),
        }));
        const total = {
          ...sum(rows),
          cost_usd: estimateCost(rows.flatMap((r) => r.models)),
        };
        if (json) return printJson({ by: opts.by, since: opts.since ?? null, rows: priced, total });
        if (rows.length === 0) {
          return println(`no model calls recorded${opts.since ? ` since ${opts.since}` : ''}`);
        }
        const table = [
          [opts.by, ...COLUMNS],
          ...priced.map((r) => [r.key, ...cells(r, r.cost_usd)]),
          ['total', ...cells(total, total.cost_usd)],
        ];
        const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
        const line = (row: string[]) =>
          row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
        println(bold(line(table[0]!)));
        for (const row of table.slice(1, -1)) println(line(row));
        println(dim(line(table.at(-1)!)));
        if (total.cost_usd === null)
          println(dim('cost "unknown": a model with no known price (see src/assistant/prices.ts)'));
      }),
    );
}

function sum(rows: UsageRow[]): TokenSums {
  const total: TokenSums = {
    calls: 0,
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
  };
  for (const r of rows) {
    total.calls += r.calls;
    total.input_tokens += r.input_tokens;
    total.output_tokens += r.output_tokens;
    total.cache_read_tokens += r.cache_read_tokens;
    total.cache_write_tokens += r.cache_write_tokens;
  }
  return total;
}

function cells(t: TokenSums, cost: number | null): string[] {
  const n = (x: number) => x.toLocaleString('en-US');
  return [
    n(t.calls),
    n(t.input_tokens),
    n(t.output_tokens),
    n(t.cache_read_tokens),
    n(t.cache_write_tokens),
    formatCost(cost),
  ];
}

/** `$0.0123` under a dollar, `$12.34` above; `unknown` without a price. */
export function formatCost(cost: number | null): string {
  if (cost === null) return 'unknown';
  return `$${cost.toFixed(cost < 1 ? 4 : 2)}`;
}
