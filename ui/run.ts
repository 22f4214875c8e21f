import { spawn } from 'node:child_process';
import { z } from 'zod';
import {
  BrainError,
  createEmbedder,
  formatZodError,
  loadConfig,
  openBrain,
  type Embedder,
} from '../src/index.js';
import { readTokensFile } from '../mcp/access.js';
import { checkUiHost, startUi } from './server.js';

const uiOptions = z.object({
  host: z.string().min(1, 'must not be empty'),
  port: z.coerce.number().int().min(0).max(65535, 'must be a port number, 0 to 65535'),
  tokens: z.string().min(1).optional(),
  open: z.boolean().default(false),
});

/** `brain ui`: open the brain (a writer for approvals, a read-only reader for pages), serve, stop on a signal. */
export async function runUi(
  globals: { db?: string | undefined; agent?: string | undefined },
  raw: Record<string, unknown>,
  note: (line: string) => void,
): Promise<void> {
  const parsed = uiOptions.safeParse(raw);
  if (!parsed.success)
    throw new BrainError(
      'INVALID_INPUT',
      formatZodError(parsed.error, { host: '--host', port: '--port', tokens: '--tokens' }),
    );
  const opts = parsed.data;
  const config = loadConfig(undefined, { db: globals.db, agent: globals.agent });
  const tokens = opts.tokens ? readTokensFile(opts.tokens) : undefined;
  for (const w of tokens?.warnings ?? []) note(`brain ui: ${w}`);
  // A usage error before the brain is looked for: exit 2 wherever --db points.
  checkUiHost(opts.host, tokens !== undefined);
  // A browser over a brain that is there: a mistyped path is NOT_FOUND, never a new brain.
  const writer = await openBrain({
    dbPath: config.dbPath,
    maxBodyBytes: config.maxBodyBytes,
    maxAttachmentBytes: config.maxAttachmentBytes,
    maxAttachmentsTotalBytes: config.maxAttachmentsTotalBytes,
    create: false,
  });
  let reader;
  try {
    reader = await openBrain({ dbPath: config.dbPath, readonly: true });
  } catch (err) {
    writer.close();
    throw err;
  }
  const close = () => {
    reader.close();
    writer.close();
  };
  // The query embedder as `brain search` makes it; made again while it is undefined (the brain
  // has no vectors yet), kept once made.
  let embedder: Promise<Embedder | undefined> | undefined;
  const searchEmbedder = () => {
    embedder ??= createEmbedder(config, {
      brain: reader.embed,
      purpose: 'search',
      notice: (line) => note(`brain ui: ${line}`),
    }).then(
      (made) => {
        if (!made) embedder = undefined;
        return made;
      },
      (err: unknown) => {
        embedder = undefined; // try again at the next search
        throw err;
      },
    );
    return embedder;
  };
  let running;
  try {
    running = await startUi({
      host: opts.host,
      port: opts.port,
      reader,
      writer,
      searchEmbedder,
      ...(tokens ? { tokens: tokens.table } : {}),
      onError: (err) => note(`brain ui: ${err instanceof Error ? err.message : String(err)}`),
    });
  } catch (err) {
    close();
    throw err;
  }
  note(`brain ui: ${running.url}${tokens ? ' (log in with a token)' : ''}`);
  if (opts.open) openInBrowser(running.url);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void running.close().finally(resolve);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  close();
}

function openInBrowser(url: string): void {
  const command =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(command, [url], { stdio: 'ignore', detached: true });
  child.on('error', () => {}); // no opener here: the URL is printed anyway
  child.unref();
}
