import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { LocomoReport } from '../../src/index.js';
import { BrainError } from '../../src/errors.js';
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
  const row = (label: string, values: Record<string, number>) =>
    println(
      `${label.padEnd(14)}${ks.map((k) => (values[k] ?? 0).toFixed(3).padStart(10)).join('')}`,
    );
  println(
    `${r.questions} questions in ${r.conversations} conversation(s); embedder: ${r.embedder ?? 'none (words only)'}`,
  );
  println(bold(`${''.padEnd(14)}${ks.map((k) => `recall@${k}`.padStart(10)).join('')}`));
  row('overall', r.recall);
  for (const [cat, values] of Object.entries(r.by_category)) row(`  category ${cat}`, values);
  for (const [arm, report] of Object.entries(r.arms)) row(`arm ${arm}`, report.recall);
}

export function registerEval(program: Command, globals: Globals): void {
  const group = program.command('eval').description('measure the brain (retrieval benchmarks)');
  group
    .command('locomo')
    .description('recall@k of LoCoMo evidence turns, per category and per retriever')
    .argument('<file>', 'a LoCoMo-format JSON file')
    .option('--k <list>', 'cut-offs, comma-separated', '5,10')
    .action(async (file: string, opts: { k: string }) => {
      const json = globals().json ?? false;
      const ks = (list(opts.k) ?? []).map(Number);
      if (ks.length === 0 || ks.some((k) => !Number.isInteger(k) || k < 1 || k > 200)) {
        throw new BrainError(
          'INVALID_INPUT',
          '--k: must be whole numbers from 1 to 200, e.g. 5,10',
        );
      }
      const doc = readJsonFile(file);
      const { createEmbedder, evalLocomo, loadConfig } = await import('../../src/index.js');
      const config = loadConfig();
      const embedder = await createEmbedder(config, { notice: (l) => note(`brain: ${l}`) });
      const report = await evalLocomo(doc, { ks, embedder, onProgress: (l) => note(l) });
      if (json) printJson(report);
      else printReport(report);
    });
}
