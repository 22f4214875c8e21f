import type { Command } from 'commander';
import { assistantConfigExists, loadAssistantConfigFile } from '../assistant-config.js';
import { note } from '../output.js';
import { list, creating, withBrain, type GlobalOptions } from '../run.js';

type Globals = () => GlobalOptions;

/**
 * `brain mcp` (stdio) and `brain serve` (streamable HTTP). The MCP SDK is imported only when one
 * of them runs, so other commands do not pay for it.
 *
 * Background work of long-running servers (the embedding queue's drainer) goes in the
 * `background` lists below: it starts once the server answers, and stops on shutdown.
 */
export function registerMcp(program: Command, globals: Globals): void {
  program
    .command('mcp')
    .description('serve the brain to one agent over MCP on stdio (--agent or BRAIN_AGENT required)')
    .action(() => {
      // Start loading the SDK while the database opens: `initialize` must be answered fast.
      const loading = Promise.all([
        import('../../mcp/stdio.js'),
        import('../../mcp/log.js'),
        import('../../mcp/embedding.js'),
        import('../../mcp/background.js'),
      ]);
      loading.catch(() => {}); // awaited below; this only keeps an earlier failure from orphaning it
      return withBrain(creating(globals()), async ({ brain, agent, config }) => {
        const name = agent(); // createMcpServer registers it as the session starts
        const [
          { serveStdio },
          { createLogger },
          { embedderSlot },
          { accessFlushTask, extractionTask, maintenanceTask, warmSearchTask },
        ] = await loading;
        const embedding = embedderSlot(config);
        const running = await serveStdio(brain, {
          agent: name,
          log: createLogger(config.logLevel),
          background: [
            embedding.task,
            accessFlushTask(),
            maintenanceTask(),
            warmSearchTask(),
            extractionTask(config.extractThreads),
          ],
          embedder: embedding.get,
          attachRoots: config.attachRoots,
          timeZone: config.timeZone,
        });
        await untilStopped(running.closed, () => running.close());
      });
    });

  program
    .command('serve')
    .description('serve the brain to several agents over streamable HTTP, each by its bearer token')
    .option(
      '--host <host>',
      'address to listen on; beyond loopback --tokens is required',
      '127.0.0.1',
    )
    .option('--port <n>', 'port to listen on (0: any free port)', '7337')
    .option('--tokens <file>', 'bearer tokens, one "TOKEN AGENT" per line')
    .option('--allow-origin <list>', 'comma-separated browser origins allowed besides loopback')
    .option(
      '--max-sessions-per-token <n>',
      'MCP sessions one token may hold at once; the next gets 429',
      '16',
    )
    .option(
      '--config <file>',
      'the config file whose retention and webhooks it applies (else BRAIN_ASSISTANT_CONFIG, else ~/.config/brain/assistant.json)',
    )
    .action((raw: Record<string, string | undefined>) =>
      withBrain(creating(globals()), async ({ brain, config }) => {
        const { parseServeOptions } = await import('./serve-options.js');
        const opts = parseServeOptions(raw);
        // Retention and webhooks live in the assistant's config file; read only where there is one.
        const file = assistantConfigExists(raw.config)
          ? await loadAssistantConfigFile(raw.config)
          : undefined;
        const [
          { serveHttp },
          { createLogger },
          { readTokensFile },
          { embedderSlot },
          { accessFlushTask, extractionTask, maintenanceTask, warmSearchTask, webhooksTask },
        ] = await Promise.all([
          import('../../mcp/http.js'),
          import('../../mcp/log.js'),
          import('../../mcp/access.js'),
          import('../../mcp/embedding.js'),
          import('../../mcp/background.js'),
        ]);
        const log = createLogger(config.logLevel);
        const embedding = embedderSlot(config);
        const tokens = opts.tokens ? readTokensFile(opts.tokens) : undefined;
        for (const w of tokens?.warnings ?? []) log.warn(w);
        const running = await serveHttp(brain, {
          host: opts.host,
          port: opts.port,
          tokens: tokens?.table,
          agent: config.agent,
          allowedOrigins: list(opts.allowOrigin),
          maxSessionsPerToken: opts.maxSessionsPerToken,
          log,
          background: [
            embedding.task,
            accessFlushTask(),
            maintenanceTask(undefined, file?.retention),
            warmSearchTask(),
            extractionTask(config.extractThreads),
            webhooksTask(file?.webhooks ?? []),
          ],
          embedder: embedding.get,
          attachRoots: config.attachRoots,
          timeZone: config.timeZone,
        });
        const who = tokens
          ? `agents by token: ${tokens.table.agents().join(', ')}`
          : `every client acts as ${config.agent} (no --tokens)`;
        note(`brain serve: listening on ${running.url} (${who})`);
        await untilStopped(new Promise(() => {}), () => running.close());
      }),
    );
}

/** Resolve when `closed` settles or on SIGINT/SIGTERM (after `close`). */
async function untilStopped(closed: Promise<void>, close: () => Promise<void>): Promise<void> {
  let onSignal: () => void = () => {};
  const signalled = new Promise<void>((resolve) => {
    onSignal = () => void close().then(resolve, resolve);
  });
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await Promise.race([closed, signalled]);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
