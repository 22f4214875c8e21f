import type { ServerResponse } from 'node:http';
import type { UserFromGetMe } from 'grammy/types';
import type { IncomingMessage } from 'node:http';
import { createRecorder, parseMultipart, parseParams, sendJson, serveHttp } from './http.js';

/**
 * A loopback Telegram Bot API for the channel's tests: a real `node:http` server on 127.0.0.1
 * that the real grammY `Bot` reaches through `client.apiRoot` (`POST /bot<token>/<method>`).
 * getUpdates long-polls: it holds the request until an update is queued or its `timeout` ends.
 * It records every call and can answer 409 (another poller), 429 (retry_after) and
 * "can't parse entities". It keeps files for getFile and serves their bytes at
 * `/file/bot<token>/<path>` (recorded as the method `download`); a file sent to it (sendDocument,
 * sendPhoto as multipart) is recorded with its bytes as a `SentFile`. Its own timers are taken at import, so fake timers in a test do not
 * stop it.
 */

const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;

export interface RecordedCall {
  method: string;
  token: string;
  params: Record<string, unknown>;
  /** `Date.now()` of the real clock when it arrived (benchmarks). */
  at: number;
}

export type { SentFile } from './http.js';

export type TelegramFailure =
  { error: 'conflict' } | { error: 'rate_limited'; retryAfter: number } | { error: 'cant_parse' };

export interface FakeTelegram {
  /** Give this to grammY as `client.apiRoot`. */
  apiRoot: string;
  token: string;
  calls: RecordedCall[];
  /** Queue an update (its `update_id` is given when absent); wakes a waiting getUpdates. */
  push(update: Record<string, unknown>): number;
  /** A private text message from a user (chat id = user id). */
  message(from: number, text: string, extra?: Record<string, unknown>): number;
  /**
   * A file the bot may download: getFile answers for its id. `size` is what Telegram reports
   * (default the bytes' length); without `bytes` the file exists only as a report.
   */
  addFile(
    bytes: Buffer,
    options?: { size?: number; path?: string },
  ): {
    file_id: string;
    file_unique_id: string;
    file_size: number;
  };
  /** A button press on a message the bot sent. */
  press(from: number, data: string, message?: Record<string, unknown>): number;
  /** Failures for the next calls of a method, used once each in order. */
  fail(method: string, ...failures: TelegramFailure[]): void;
  /** Calls of one method. */
  callsOf(method: string): RecordedCall[];
  /** Resolves when `count` calls of `method` have arrived. */
  waitFor(method: string, count?: number): Promise<RecordedCall[]>;
  close(): Promise<void>;
}

export const BOT_USER: UserFromGetMe = {
  id: 4242,
  is_bot: true,
  first_name: 'Brain',
  username: 'brain_test_bot',
  can_join_groups: true,
  can_read_all_group_messages: false,
  supports_inline_queries: false,
  can_connect_to_business: false,
  has_main_web_app: false,
  has_topics_enabled: false,
  allows_users_to_create_topics: false,
  can_manage_bots: false,
  supports_join_request_queries: false,
};

export async function startFakeTelegram(token = '123456:TEST-token-secret'): Promise<FakeTelegram> {
  const recorder = createRecorder<RecordedCall>();
  const calls = recorder.calls;
  const queue: Array<Record<string, unknown>> = [];
  const failures = new Map<string, TelegramFailure[]>();
  /** Held getUpdates polls, woken when an update is queued. */
  const waiters: Array<() => void> = [];
  let nextUpdateId = 1000;
  let nextMessageId = 1;
  const files = new Map<string, { bytes: Buffer; size: number; path: string }>();
  let nextFile = 1;
  const polls = new Set<() => void>();

  const notify = () => {
    for (const w of waiters.splice(0)) w();
  };

  const http = await serveHttp(async (req, res) => {
    const raw = await readRaw(req);
    const download = /^\/file\/bot([^/]+)\/(.+)$/.exec(req.url ?? '');
    if (download) {
      const [, callToken, path] = download as unknown as [string, string, string];
      const wanted = decodeURIComponent(path);
      recorder.record({
        method: 'download',
        token: callToken,
        params: { path: wanted },
        at: Date.now(),
      });
      const file = [...files.values()].find((f) => f.path === wanted);
      if (callToken !== token || !file) return sendJson(res, 404, { ok: false, error_code: 404 });
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return void res.end(file.bytes);
    }
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
    if (!match) return sendJson(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    const [, callToken, method] = match as unknown as [string, string, string];
    const params = await paramsOf(req, raw);
    recorder.record({ method, token: callToken, params, at: Date.now() });
    if (callToken !== token)
      return sendJson(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    const failure = failures.get(method)?.shift();
    if (failure) return sendFailure(res, failure);
    switch (method) {
      case 'getMe':
        return ok(res, BOT_USER);
      case 'deleteWebhook':
      case 'sendChatAction':
      case 'answerCallbackQuery':
      case 'deleteMessage':
        return ok(res, true);
      case 'getUpdates':
        return getUpdates(res, params);
      case 'getFile': {
        const file = files.get(String(params.file_id));
        if (!file)
          return sendJson(res, 400, {
            ok: false,
            error_code: 400,
            description: 'Bad Request: invalid file_id',
          });
        return ok(res, {
          file_id: params.file_id,
          file_unique_id: `u${String(params.file_id)}`,
          file_size: file.size,
          file_path: file.path,
        });
      }
      case 'sendDocument':
      case 'sendPhoto':
        return ok(res, {
          message_id: nextMessageId++,
          date: Math.floor(Date.now() / 1000),
          chat: { id: Number(params.chat_id), type: 'private' },
          ...(params.caption === undefined ? {} : { caption: params.caption }),
        });
      case 'sendMessage':
        return ok(res, {
          message_id: nextMessageId++,
          date: Math.floor(Date.now() / 1000),
          chat: { id: Number(params.chat_id), type: 'private' },
          text: params.text,
        });
      case 'editMessageText':
      case 'editMessageReplyMarkup':
        return ok(res, {
          message_id: Number(params.message_id),
          date: Math.floor(Date.now() / 1000),
          chat: { id: Number(params.chat_id), type: 'private' },
          text: params.text ?? '',
        });
      default:
        return sendJson(res, 404, { ok: false, error_code: 404, description: 'Not Found: method' });
    }
  });

  function getUpdates(res: ServerResponse, params: Record<string, unknown>) {
    const offset = Number(params.offset ?? 0);
    const limit = Number(params.limit ?? 100);
    const timeout = Number(params.timeout ?? 0);
    // Updates below the offset are confirmed: Telegram forgets them.
    while (queue.length && Number(queue[0]!.update_id) < offset) queue.shift();
    const take = () => queue.filter((u) => Number(u.update_id) >= offset).slice(0, limit);
    const ready = take();
    if (ready.length || timeout <= 0) return ok(res, ready);
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      realClearTimeout(timer);
      polls.delete(finish);
      const i = waiters.indexOf(wake);
      if (i >= 0) waiters.splice(i, 1);
      if (!res.writableEnded && !res.destroyed) ok(res, take());
    };
    const wake = () => {
      if (take().length) finish();
      else waiters.push(wake);
    };
    const timer = realSetTimeout(finish, timeout * 1000);
    polls.add(finish);
    waiters.push(wake);
    res.on('close', () => {
      finished = true;
      realClearTimeout(timer);
      polls.delete(finish);
    });
  }

  function sendFailure(res: ServerResponse, failure: TelegramFailure) {
    if (failure.error === 'conflict')
      return sendJson(res, 409, {
        ok: false,
        error_code: 409,
        description:
          'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
      });
    if (failure.error === 'rate_limited')
      return sendJson(res, 429, {
        ok: false,
        error_code: 429,
        description: `Too Many Requests: retry after ${failure.retryAfter}`,
        parameters: { retry_after: failure.retryAfter },
      });
    return sendJson(res, 400, {
      ok: false,
      error_code: 400,
      description: 'Bad Request: can\'t parse entities: Unsupported start tag "x" at byte offset 0',
    });
  }

  const fake: FakeTelegram = {
    apiRoot: http.url,
    token,
    calls,
    push(update) {
      const id = typeof update.update_id === 'number' ? update.update_id : nextUpdateId++;
      queue.push({ ...update, update_id: id });
      notify();
      return id;
    },
    message(from, text, extra = {}) {
      // As Telegram does: a leading /command is marked by a bot_command entity.
      const command = /^\/[A-Za-z0-9_]+(?:@\w+)?/.exec(text);
      return fake.push({
        message: {
          message_id: nextMessageId++,
          date: Math.floor(Date.now() / 1000),
          chat: { id: from, type: 'private', first_name: `user${from}` },
          from: { id: from, is_bot: false, first_name: `user${from}` },
          text,
          ...(command
            ? { entities: [{ type: 'bot_command', offset: 0, length: command[0].length }] }
            : {}),
          ...extra,
        },
      });
    },
    addFile(bytes, options = {}) {
      const id = `file${nextFile++}`;
      const size = options.size ?? bytes.length;
      files.set(id, { bytes, size, path: options.path ?? `documents/${id}.bin` });
      return { file_id: id, file_unique_id: `u${id}`, file_size: size };
    },
    press(from, data, message = {}) {
      return fake.push({
        callback_query: {
          id: `cb${nextUpdateId}`,
          from: { id: from, is_bot: false, first_name: `user${from}` },
          chat_instance: 'ci',
          data,
          message: {
            message_id: 1,
            date: Math.floor(Date.now() / 1000),
            chat: { id: from, type: 'private' },
            text: 'approval',
            ...message,
          },
        },
      });
    },
    fail(method, ...more) {
      failures.set(method, [...(failures.get(method) ?? []), ...more]);
    },
    callsOf: (method) => calls.filter((c) => c.method === method),
    waitFor: (method, count = 1) => recorder.waitFor((c) => c.method === method, count),
    async close() {
      for (const finish of [...polls]) finish();
      await http.close();
    },
  };
  return fake;
}

function ok(res: ServerResponse, result: unknown) {
  sendJson(res, 200, { ok: true, result });
}

async function readRaw(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The call's parameters; a multipart upload's file parts become `SentFile`s. */
async function paramsOf(req: IncomingMessage, raw: Buffer): Promise<Record<string, unknown>> {
  return parseMultipart(req.headers['content-type'], raw) ?? parseParams(req, raw.toString('utf8'));
}
