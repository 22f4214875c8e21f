import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { LocomoReport } from '../../src/index.js';
import { BrainError, createEmbedder, evalLocomo, loadConfig } from '../../src/index.js';
import { MAX_SEARCH_LIMIT } from '../../src/index.js';
import { bold, note, printJson, println } from '../output.js';
import { list, type GlobalOptions } from '../run.js';

type Globals = () => GlobalOptions;

function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new BrainError('NOT_FOUND', `FILE: cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new BrainError('INVALID_INPUT', `FILE: ${path} is not JSON: ${(err as Error).message}`);
  }
}

function printReport(r: LocomoReport): void {
  const ks = Object.keys(r.recall);
  const h = r.haystack;
  const cells = (values: Record<string, number> | undefined) =>
    ks.map((k) => (values?.[k] ?? 0).toFixed(3).padStart(10)).join('');
  const row = (label: string, alone: Record<string, number>, inStack?: Record<string, number>) =>
    println(`${label.padEnd(14)}${cells(alone)}${h ? `  │${cells(inStack)}` : ''}`);
  println(
    `${r.questions} questions in ${r.conversations} conversation(s); embedder: ${r.embedder ?? 'none (words only)'}`,
  );
  if (h)
    println(
      `${''.padEnd(14)}${'alone'.padStart(10 * ks.length)}  │${`inside ${h.n.toLocaleString('en-US')} messages`.padStart(10 * ks.length)}`,
    );
  const head = ks.map((k) => `recall@${k}`.padStart(10)).join('');
  println(bold(`${''.padEnd(14)}${head}${h ? `  │${head}` : ''}`));
  row('overall', r.recall, h?.recall);
  for (const [cat, values] of Object.entries(r.by_category))
    row(`  category ${cat}`, values, h?.by_category[cat]);
  for (const [arm, report] of Object.entries(r.arms))
    row(`arm ${arm}`, report.recall, h?.arms[arm as keyof typeof h.arms]?.recall);
  for (const [arm, l] of Object.entries(r.latency)) {
    const there = h?.latency[arm as keyof typeof h.latency];
    const ms = (x: { p50_ms: number; p99_ms: number }) =>
      `p50 ${x.p50_ms.toFixed(1)} ms, p99 ${x.p99_ms.toFixed(1)} ms`;
    println(`search ${arm}: ${ms(l)}${there ? `  │  ${ms(there)}` : ''}`);
  }
}

export function registerEval(program: Command, globals: Globals): void {
  const group = program.command('eval').description('measure the brain (retrieval benchmarks)');
  group
    .command('locomo')
    .description('recall@k of LoCoMo evidence turns, per category and per retriever')
    .argument('<file>', 'a LoCoMo-format JSON file')
    .option('--k <list>', 'cut-offs, comma-separated', '5,10')
    .option('--haystack <n>', 'also measure each conversation inside a brain of n other messages')
    .option(
      '--haystack-corpus <file>',
      "the haystack's text: a LoCoMo-style file (default: the bench's generated chat)",
    )
    .option('--haystack-file <path>', 'keep the haystack there, and reuse it when it exists')
    .option('--words-only', 'no embedder: the words retriever alone')
    .action(async (file: string, opts: { k: string } & Record<string, unknown>) => {
      const json = globals().json ?? false;
      const ks = (list(opts.k) ?? []).map(Number);
      if (
        ks.length === 0 ||
        ks.some((k) => !Number.isInteger(k) || k < 1 || k > MAX_SEARCH_LIMIT)
      ) {
        throw new BrainError(
          'INVALID_INPUT',
          `--k: must be whole numbers from 1 to ${MAX_SEARCH_LIMIT}, e.g. 5,10`,
        );
      }
      const { k: _k, ...rest } = opts;
      const { parseHaystackOptions, prepareHaystack } = await import('./eval-haystack.js');
      const hay = parseHaystackOptions(rest);
      const doc = readJsonFile(file);
      const embedder = hay.wordsOnly
        ? undefined
        : await createEmbedder(loadConfig(), { notice: (l) => note(`brain: ${l}`) });
      // Without --haystack-file the haystack is built in a folder of its own, removed after.
      const temp =
        hay.haystack !== undefined && !hay.haystackFile
          ? mkdtempSync(join(tmpdir(), 'brain-haystack-'))
          : undefined;
      try {
        const haystack =
          hay.haystack === undefined
            ? undefined
            : await prepareHaystack(
                {
                  n: hay.haystack,
                  corpus: hay.haystackCorpus,
                  file: hay.haystackFile ?? join(temp!, 'haystack.db'),
                  underTest: doc,
                },
                (l) => note(l),
              );
        const report = await evalLocomo(doc, {
          ks,
          embedder,
          onProgress: (l) => note(l),
          haystack: haystack && { path: haystack.path },
        });
        if (json) printJson(report);
        else printReport(report);
      } finally {
        if (temp) rmSync(temp, { recursive: true, force: true });
      }
    });
}
