import type { Command } from 'commander';
import {
  createExtractor,
  createSummarizer,
  type Extractor,
  type ExtractResult,
  type Insight,
  type ThreadSummary,
} from '../../src/index.js';
import { assistantConfigExists, loadAssistantConfigFile } from '../assistant-config.js';
import { bold, cyan, dim, note, oneLine, printJson, println, shortTime } from '../output.js';
import { withBrain, type GlobalOptions } from '../run.js';

type Globals = () => GlobalOptions;

export function registerExtract(program: Command, globals: Globals): void {
  program
    .command('extract')
    .description(
      'read the messages not read yet into knowledge (decisions, facts, commitments, to-dos, preferences)',
    )
    .option('--since <time>', 'read the messages sent since then (ISO 8601), read before or not')
    .option('--dry-run', 'say what would be learned; store nothing')
    .option('--limit <n>', 'read at most this many messages')
    .option(
      '--config <file>',
      'the assistant config whose extract.model reads (else BRAIN_ASSISTANT_CONFIG, else ~/.config/brain/assistant.json)',
    )
    .action(async (opts: { since?: string; dryRun?: boolean; limit?: string; config?: string }) => {
      // Only where there is an assistant config is the assistant loaded: the offline
      // extractor needs none of it.
      const assistant = assistantConfigExists(opts.config)
        ? await loadAssistantConfigFile(opts.config)
        : undefined;
      const withModel = assistant?.extract?.model !== undefined;
      // The model's calls are recorded in the assistant's usage: its section opens with them.
      const sections: Array<'knowledge' | 'assistant'> = withModel
        ? ['knowledge', 'assistant']
        : ['knowledge'];
      return withBrain(
        globals(),
        async ({ brain, config, json }) => {
          let extractor: Extractor;
          let endpoint: string | undefined;
          if (assistant && withModel) {
            const { configuredExtractor, streamLog } = await import('../../agent/index.js');
            const log = streamLog(
              (line) => void process.stderr.write(`brain: ${line}`),
              config.logLevel,
            );
            const configured = (await configuredExtractor(assistant, {
              brain,
              log,
              clock: () => new Date(),
            }))!;
            ({ extractor, endpoint } = configured);
          } else {
            extractor = await createExtractor();
          }
          const threads = assistant?.extract?.threads ?? config.extractThreads;
          const result = await brain.knowledge.extract(extractor, {
            threads,
            since: opts.since,
            dryRun: opts.dryRun ?? false,
            limit: opts.limit,
          });
          // Then the threads that need a summary: closed or archived, or long and grown since.
          const summaries = opts.dryRun
            ? undefined
            : await brain.knowledge.summarizeThreads(await createSummarizer(), { threads });
          const summarized = summaries
            ? { summarized: summaries.summarized, errors: [...result.errors, ...summaries.errors] }
            : {};
          if (json)
            return printJson({ ...result, ...summarized, ...(endpoint ? { endpoint } : {}) });
          const threadsFrom = assistant?.extract?.threads
            ? 'extract.threads'
            : 'BRAIN_EXTRACT_THREADS';
          printExtractResult(result, threads, threadsFrom, endpoint);
          if (summaries?.summarized)
            println(
              `summarized ${summaries.summarized} thread${summaries.summarized === 1 ? '' : 's'} with ${summaries.summarizer}`,
            );
          for (const e of summaries?.errors ?? []) note(`brain: summary: ${e}`);
          if (result.failed > 0 || summaries?.errors.length) process.exitCode = 1;
        },
        sections,
      );
    });

  program
    .command('summarize')
    .description('summarize a thread now (who talked, when, what was decided) and keep the summary')
    .argument('<thread-id>', 'the thread (thr_…)')
    .action((threadId: string) =>
      withBrain(
        globals(),
        async ({ brain, json }) => {
          const summary = await brain.knowledge.summarize(threadId, await createSummarizer());
          if (json) return printJson({ summary: summary ?? null });
          if (!summary) return println(dim('nothing to summarize: the thread has no words'));
          printSummary(summary);
        },
        ['knowledge'],
      ),
    );

  program
    .command('insights')
    .description('what the brain learned on its own, newest first, each with where it was said')
    .option('--thread <id>', 'only what was learned in this thread')
    .option('--since <time>', 'only what was learned since then (ISO 8601)')
    .option('--category <name>', 'decision, fact, commitment, todo or preference')
    .option('--all', 'also what was superseded or lapsed')
    .option('--limit <n>', 'at most this many', '50')
    .action(
      (opts: {
        thread?: string;
        since?: string;
        category?: string;
        all?: boolean;
        limit: string;
      }) =>
        withBrain(
          globals(),
          ({ brain, json }) => {
            const insights = brain.knowledge.insights({
              thread_id: opts.thread,
              since: opts.since,
              category: opts.category,
              include_superseded: opts.all ?? false,
              limit: opts.limit,
            });
            if (json) return printJson({ insights });
            if (insights.length === 0) return println(dim('nothing learned yet'));
            for (const insight of insights) printInsight(insight);
          },
          ['knowledge'],
        ),
    );
}

function printExtractResult(
  result: ExtractResult,
  threads: string,
  threadsFrom: string,
  endpoint: string | undefined,
): void {
  if (threads === 'none') note(`brain: ${threadsFrom} is none: nothing is read`);
  const by = endpoint ? `${result.extractor} on ${endpoint}` : result.extractor;
  if (result.learned) {
    for (const from of result.learned) {
      println(`${cyan(from.message_id)}`);
      for (const e of from.entries)
        println(`  ${dim(`[${e.category}] ★${e.importance}`)} ${oneLine(e.content)}`);
    }
    println(
      dim(
        `dry run: ${result.read} message${result.read === 1 ? '' : 's'} read by ${by}, nothing stored`,
      ),
    );
    return;
  }
  const parts = [`${result.added} new`, `${result.merged} merged`];
  if (result.superseded) parts.push(`${result.superseded} superseding`);
  println(
    `read ${result.read} message${result.read === 1 ? '' : 's'} with ${by}: ${parts.join(', ')}` +
      (result.skipped ? dim(` (${result.skipped} in threads not read)`) : ''),
  );
  for (const e of result.errors) note(`brain: ${e}`);
}

function printInsight(i: Insight): void {
  const state = i.superseded_by
    ? dim(` (superseded by ${i.superseded_by})`)
    : i.expires_at
      ? dim(' (lapsed)')
      : '';
  println(
    `${cyan(i.id)} ${dim(`[${i.categories.join(', ')}] ★${i.importance}`)} ${bold(oneLine(i.content))}${state}`,
  );
  const where = i.sources.map((s) => `${s.message_id} by ${s.from}`).join(', ');
  const happened = i.occurred_at ? ` · happened ${shortTime(i.occurred_at)}` : '';
  println(dim(`  ← ${where} · ${i.extractor} · ${shortTime(i.created_at)}${happened}`));
}

/** A thread's summary: its words, then what it covers and who wrote it. */
function printSummary(s: ThreadSummary): void {
  println(bold(s.content));
  println(
    dim(
      `  ← ${s.first_message_id} … ${s.last_message_id} (${s.messages} message${s.messages === 1 ? '' : 's'}) · ${s.id} · ${s.extractor} · ${shortTime(s.created_at)}`,
    ),
  );
}
