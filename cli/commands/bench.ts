import type { Command } from 'commander';
import type { Workspace } from '../bench/run.js';
import { note, printJson, println } from '../output.js';
import type { GlobalOptions } from '../run.js';

type Globals = () => GlobalOptions;

/** The benchmark's modules, loaded only when it runs. */
async function loadBench() {
  const [run, report] = await Promise.all([
    import('../bench/run.js'),
    import('../bench/report.js'),
  ]);
  return { ...run, ...report };
}

export function registerBench(program: Command, globals: Globals): void {
  program
    .command('bench')
    .description('build a brain of N messages and measure poll, send, read, search latency')
    .option('--messages <n>', 'messages to build (default 100,000)')
    .option('--dir <path>', 'build in this folder (default: a temporary one)')
    .option('--keep', 'keep the built database and JSON file afterwards')
    .option(
      '--corpus <file>',
      'a LoCoMo file to derive the text from (default: generated chat, no file needed)',
    )
    .option('--vectors', 'also give every item a vector and measure vector and hybrid search')
    .option('--time <ms>', 'time budget per operation in ms (default 2000)')
    .option('--runs <n>', 'runs of each command as a process (poll, search, …; default 20)')
    .option(
      '--baseline-messages <n>',
      'messages in the JSON file of the design it replaces (default 10,000)',
    )
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
            vectors: options.vectors,
            timeMs: options.time,
            runs: options.runs,
            baselineMessages: options.baselineMessages,
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
