import type { Command } from 'commander';
import { BrainError, createEmbedder } from '../../src/index.js';
import { note, printJson, println } from '../output.js';
import { withBrain, type GlobalOptions } from '../run.js';

type Globals = () => GlobalOptions;

/** "[#########...........]  120/400" on one stderr line, redrawn in place on a terminal. */
function progressBar(total: number): { update(done: number): void; end(): void } {
  const tty = Boolean(process.stderr.isTTY);
  let lastPct = -1;
  const draw = (done: number) => {
    const width = 30;
    const share = total === 0 ? 1 : Math.min(1, done / total);
    const fill = Math.round(share * width);
    return `embedding [${'#'.repeat(fill)}${'.'.repeat(width - fill)}] ${done}/${total}`;
  };
  return {
    update(done) {
      if (tty) process.stderr.write(`\r${draw(done)}`);
      else {
        // Without a terminal, one line per tenth, so logs stay short.
        const pct = total === 0 ? 100 : Math.floor((done / total) * 10) * 10;
        if (pct !== lastPct) {
          lastPct = pct;
          process.stderr.write(`${draw(done)}\n`);
        }
      }
    },
    end() {
      if (tty) process.stderr.write('\n');
    },
  };
}

export function registerEmbed(program: Command, globals: Globals): void {
  program
    .command('embed')
    .description('embed queued messages and knowledge (vectors for search by meaning)')
    .option('--status', 'only show how many items wait, have failed, and are embedded')
    .option('--batch <n>', 'texts per call to the embedder')
    .action((opts: { status?: boolean; batch?: string }) => {
      // Checked before the brain is looked for: a usage error is exit 2 wherever --db points.
      const batchSize = batchOption(opts.batch);
      return withBrain(globals(), async ({ brain, config, json }) => {
        if (opts.status) {
          const status = brain.embed.embedStatus();
          if (json) return printJson(status);
          println(`pending   ${status.pending}`);
          println(`failed    ${status.failed}`);
          println(`embedded  ${status.embedded}`);
          println(
            `model     ${status.model ? `${status.model} (${status.dimension} dimensions)` : 'none yet'}`,
          );
          if (status.last_error) println(`last error  ${status.last_error}`);
          return;
        }
        const embedder = await createEmbedder(config, {
          brain: brain.embed,
          notice: (l) => note(`brain: ${l}`),
        });
        if (!embedder) {
          throw new BrainError(
            'INVALID_INPUT',
            'BRAIN_EMBEDDER: is none, so nothing is embedded (set it to auto, ollama or offline)',
          );
        }
        const before = brain.embed.embedStatus();
        const bar = progressBar(before.pending + before.failed);
        const controller = new AbortController();
        const stop = () => controller.abort();
        process.once('SIGINT', stop);
        let result;
        try {
          result = await brain.embed.embedQueued(embedder, {
            batchSize,
            signal: controller.signal,
            onProgress: (p) => bar.update(p.done),
          });
        } finally {
          bar.end();
          process.off('SIGINT', stop);
        }
        const after = brain.embed.embedStatus();
        const summary = {
          ...result,
          model: embedder.model,
          pending: after.pending,
          failed_total: after.failed,
        };
        if (json) printJson(summary);
        else {
          println(
            `embedded ${result.embedded} with ${embedder.model}` +
              (result.unchanged ? `, ${result.unchanged} unchanged` : '') +
              `; ${after.pending} pending, ${after.failed} failed`,
          );
          for (const e of result.errors) note(`brain: ${e}`);
        }
        if (result.errors.length > 0) {
          throw new BrainError(
            'UPSTREAM_FAILED',
            `${result.failed} item(s) could not be embedded and stay queued: ${result.errors[0]}`,
          );
        }
      });
    });
}

function batchOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1024)
    throw new BrainError('INVALID_INPUT', '--batch: must be a whole number from 1 to 1024');
  return n;
}
