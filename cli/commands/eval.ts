import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { LocomoReport } from '../../src/index.js';
import {
  BrainError,
  createEmbedder,
  createExtractor,
  createSummarizer,
  evalExtract,
  evalLocomo,
  loadConfig,
  type ExtractEvalReport,
} from '../../src/index.js';
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

function printExtractReport(r: ExtractEvalReport): void {
  const f = (x: number) => x.toFixed(3);
  println(
    `${r.conversations} conversation(s), ${r.observations} annotated observations, ${r.entries} entries learned by ${r.extractor}`,
  );
  println(
    `${bold('provenance recall')}     ${f(r.provenance_recall)}  (an entry cites an evidence turn)`,
  );
  println(
    `${bold('content recall')}        ${f(r.content_recall)}  (of those, one says it: token F1 ≥ ${r.threshold})`,
  );
  println(`${bold('entries/observation')}   ${f(r.entries_per_observation)}`);
  println(
    `${bold('evidence share')}        ${f(r.evidence_share)}  (entries citing an evidence turn)`,
  );
  println(
    `${bold('summary F1')}            ${r.summary_f1 === null ? 'n/a' : `${f(r.summary_f1)}  (${r.summaries} session summaries)`}`,
  );
  println(
    `${bold('recall@5')}              ${f(r.recall_without_knowledge)} messages alone, ${f(r.recall_with_knowledge)} with what was learned (${r.questions} questions)`,
  );
  for (const c of r.per_conversation)
    println(
      `  ${c.id.padEnd(12)} provenance ${f(c.provenance_recall)}  content ${f(c.content_recall)}  entries/obs ${f(c.entries_per_observation)}  evidence ${f(c.evidence_share)}`,
    );
}

export function registerEval(program: Command, globals: Globals): void {
  const group = program
    .command('eval')
    .description('measure the brain (retrieval and extraction benchmarks)');
  group
    .command('extract')
    .description(
      "how much of a conversation the brain learns on its own, against LoCoMo's annotated observations",
    )
    .argument('<file>', 'a LoCoMo-format JSON file with observations')
    .option('--threshold <f>', 'token F1 an entry needs to say what an observation says', '0.3')
    .action(async (file: string, opts: { threshold: string }) => {
      const json = globals().json ?? false;
      const threshold = Number(opts.threshold);
      if (!(threshold > 0 && threshold <= 1))
        throw new BrainError('INVALID_INPUT', '--threshold: must be a number above 0, at most 1');
      const doc = readJsonFile(file);
      const report = await evalExtract(doc, await createExtractor(), {
        threshold,
        summarizer: await createSummarizer(),
        onProgress: (l) => note(l),
      });
      if (json) printJson(report);
      else printExtractReport(report);
    });
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
