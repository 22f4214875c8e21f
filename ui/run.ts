import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import {
  BrainError,
  createEmbedder,
  formatZodError,
  loadConfig,
  openBrain,
  type Embedder,
} from '../src/index.js';
import type { AssistantConfig } from '../agent/index.js';
import { isLoopback, MIN_TOKEN_LENGTH, readTokensFile } from '../mcp/access.js';
import type { ChatDoor } from './chat.js';
import { checkUiHost, startUi } from './server.js';

const uiOptions = z.object({
  host: z.string().min(1, 'must not be empty'),
  port: z.coerce.number().int().min(0).max(65535, 'must be a port number, 0 to 65535'),
  tokens: z.string().min(1).optional(),
  open: z.boolean().default(false),
});

/**
 * `brain ui`: open the brain (a writer for approvals and the chat, a read-only reader for pages),
 * serve, stop on a signal. With an assistant config (`assistant` loads it) the page chats with
 * the assistant, hosted in this process as `brain chat` hosts it.
 */
export async function runUi(
  globals: { db?: string | undefined; agent?: string | undefined },
  raw: Record<string, unknown>,
  note: (line: string) => void,
  assistant?: () => Promise<AssistantConfig>,
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
  const assistantConfig = assistant ? await assistant() : undefined;
  const login = assistantConfig && ownerLogin(assistantConfig, opts.host, tokens !== undefined);
  // A usage error before the brain is looked for: exit 2 wherever --db points.
  checkUiHost(opts.host, tokens !== undefined || login !== undefined);
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
  const chat: ChatDoor | undefined = assistantConfig && {
    owner: assistantConfig.owner,
    token: login?.token,
    open: async () => {
      const { openPageChat, streamLog } = await import('../agent/index.js');
      return openPageChat({
        brain: writer,
        config: assistantConfig,
        log: streamLog((line) => note(`brain ui: ${line.trimEnd()}`), 'warn'),
        // Without vectors (or Ollama) the assistant's memory search is by words.
        embedder: await searchEmbedder().catch(() => undefined),
      });
    },
  };
  let running;
  try {
    running = await startUi({
      host: opts.host,
      port: opts.port,
      reader,
      writer,
      searchEmbedder,
      timeZone: config.timeZone,
      ...(tokens ? { tokens: tokens.table } : {}),
      ...(chat ? { chat } : {}),
      onError: (err) => note(`brain ui: ${err instanceof Error ? err.message : String(err)}`),
    });
  } catch (err) {
    close();
    throw err;
  }
  note(`brain ui: ${running.url}${tokens || login ? ' (log in with a token)' : ''}`);
  if (login?.made)
    // Shown once, where the owner started it: the one way to learn it (BRAIN_UI_TOKEN sets one).
    note(`brain ui: the owner's login token for this run: ${login.token}`);
  if (chat) note(`brain ui: chat with ${assistantConfig!.agent} at ${running.url}chat`);
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

/**
 * The owner's login to the page: BRAIN_UI_TOKEN when set (then asked even on loopback, so a
 * shared machine's other users cannot chat as the owner), else one made for this run when a
 * login is asked anyway (beyond loopback, or with --tokens); none on loopback otherwise.
 */
function ownerLogin(
  config: AssistantConfig,
  host: string,
  withTokens: boolean,
): { token: string; made: boolean } | undefined {
  const set = config.secrets.uiToken;
  if (set !== undefined) {
    if (set.length < MIN_TOKEN_LENGTH)
      throw new BrainError(
        'INVALID_INPUT',
        `BRAIN_UI_TOKEN: too short (at least ${MIN_TOKEN_LENGTH} characters; try \`openssl rand -hex 32\`)`,
      );
    return { token: set, made: false };
  }
  if (isLoopback(host) && !withTokens) return undefined;
  return { token: randomBytes(24).toString('base64url'), made: true };
}

function openInBrowser(url: string): void {
  const command =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(command, [url], { stdio: 'ignore', detached: true });
  child.on('error', () => {}); // no opener here: the URL is printed anyway
  child.unref();
}
