import { resolve } from 'node:path';
import type { Command } from 'commander';
import { BrainError } from '../../src/errors.js';
import type { Workspace } from '../../bench/latency/run.js';
import { note, printJson, println } from '../output.js';
import type { GlobalOptions } from '../run.js';

type Globals = () => GlobalOptions;

/** The corpus looked for when --corpus is not given, relative to the working directory. */
export const DEFAULT_CORPUS = '../shared/eval/locomo-dev.json';

/** The benchmark's modules load tinybench, a development dependency: only when asked for. */
async function loadBench() {
  try {
    const [run, report] = await Promise.all([
      import('../../bench/latency/run.js'),
      import('../../bench/latency/report.js'),
    ]);
    return { ...run, ...report };
  } catch (err) {
    throw new BrainError(
      'NOT_FOUND',
      `brain bench needs the development dependencies (tinybench): run npm install in the brain repository (${(err as Error).message})`,
      { cause: err },
    );
  }
}

export function registerBench(program: Command, globals: Globals): void {
  program
    .command('bench')
    .description('build a brain of N messages and measure poll, send, read, search latency')
    .option('--messages <n>', 'messages to build (default 100,000)')
    .option('--dir <path>', 'build in this folder (default: a temporary one)')
    .option('--keep', 'keep the built database and JSON file afterwards')
    .option('--corpus <file>', `LoCoMo file to derive the text from (default ${DEFAULT_CORPUS})`)
    .option('--vectors', 'also give every item a vector and measure vector and hybrid search')
    .option('--time <ms>', 'time budget per operation in ms (default 2000)')
    .option('--runs <n>', 'runs of `brain poll` as a process (default 20)')
    .action(async (opts: Record<string, unknown>) => {
      const { parseBenchOptions } = await import('./bench-options.js');
      const options = parseBenchOptions(opts);
      const json = globals().json ?? false;
      const bench = await loadBench();
      const workspace: Workspace = bench.prepareWorkspace(options.dir);
      const finish = () => {
        if (options.keep) note(`brain bench: kept ${workspace.dbPath} and ${workspace.jsonPath}`);
        else workspace.cleanup();
      };
      // Ctrl-C during a long build must not leave gigabytes in the temp folder.
      const onSignal = () => {
        finish();
        process.exit(130);
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        const doc = await bench.runBench(
          {
            messages: options.messages,
            corpus: options.corpus,
            defaultCorpus: resolve(DEFAULT_CORPUS),
            vectors: options.vectors,
            timeMs: options.time,
            runs: options.runs,
            baselineMessages: 10_000,
          },
          workspace,
          {
            notice: (line) => note(`brain bench: ${line}`),
            progress: (text) => void process.stderr.write(text),
            tty: Boolean(process.stderr.isTTY),
          },
        );
        if (json) printJson(doc);
        else for (const line of bench.formatReport(doc)) println(line);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        finish();
      }
    });
}
