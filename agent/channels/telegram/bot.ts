import { autoRetry } from '@grammyjs/auto-retry';
import { Api, Bot, GrammyError, InputFile, type Context } from 'grammy';
import type { Message, UserFromGetMe } from 'grammy/types';
import type { AssistantConfig } from '../../config.js';
import type { Log } from '../../log.js';
import { BrainError } from '../../../src/index.js';
import { sleep } from '../../sleep.js';
import { TurnCancelledError } from '../../contracts.js';
import type { Channel, CheckItem, ServiceHost } from '../../contracts.js';
import { acceptArrival } from '../../conversation/accepted.js';
import { arrivalTurn, type Arrival, type ArrivalTurn } from '../../conversation/arrival.js';
import { createSessionModels, runChatCommand } from '../../conversation/commands.js';
import { failureText, STOPPED_TEXT } from '../../conversation/replies.js';
import { createApprovalPrompts, type ApprovalPrompts } from './approvals.js';
import type { TelegramConfig } from './config.js';
import { pairingReply } from './pairing.js';
import { htmlToPlain, renderTelegramHtml } from './render.js';
import { splitTelegramHtml, TELEGRAM_MESSAGE_LIMIT } from './split.js';
import { createLiveReply, type LiveReply, type LiveTransport } from '../live-reply.js';
import { receiveFiles, withFilesNote } from '../files.js';
import { TELEGRAM_DOWNLOAD_MAX, telegramFiles } from './files.js';

/**
 * The Telegram channel: grammY long polling, one session per chat (`telegram/<chat_id>`, the
 * owner's private chat is the owner's one session), turns queued through the host and never
 * awaited in the update handler — grammY handles one update at a time, and an approval button
 * must be pressable while its turn waits.
 */

export interface TelegramChannelOptions {
  /** Skip getMe at start (tests, the benchmark). */
  botInfo?: UserFromGetMe;
  /** After a 409 (another poller): the first wait, doubled up to `max`. */
  conflictBackoffMs?: { initial: number; max: number };
  /** How often the typing indicator is renewed (Telegram shows it for about 5 s). */
  typingIntervalMs?: number;
  /**
   * The least time between two updates of a reply as it streams: in a private chat (default
   * 1 s, Telegram's pace for one chat) and in a group (default 3 s: 20 messages a minute).
   */
  streamEveryMs?: { private: number; group: number };
}

const NOT_TEXT =
  'I can read text, photos, documents, voice notes and audio files, not this kind of message (a sticker, a video, a location…). Send me your question as text; /new starts afresh, /stop stops me, /status says what I am doing.';

/** Sent as photos (Telegram shows them inline, recompressed); any other file as a document. */
const PHOTO_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp']);

export function createTelegramChannel(
  initial: TelegramConfig,
  options: TelegramChannelOptions = {},
): Channel & { readonly bot: Bot | undefined } {
  let config = initial;
  const backoff = options.conflictBackoffMs ?? { initial: 5_000, max: 120_000 };
  const typingEvery = options.typingIntervalMs ?? 4_000;
  let bot: Bot | undefined;
  let host: ServiceHost | undefined;
  let approvals: ApprovalPrompts | undefined;
  let polling: Promise<void> | undefined;
  const stopping = new AbortController();
  const seen = new Set<number>();
  const seenOrder: number[] = [];
  const typing = new Set<ReturnType<typeof setInterval>>();
  /** Chats whose running turn /stop cancelled: its end says "Stopped." whichever way it ends. */
  const stopped = new Set<string>();
  /** `/model` choices when the host keeps none (a test's host): held by this channel. */
  const fallbackModels = createSessionModels();

  const log: Log = (level, event, fields) => host?.log(level, event, fields);

  function firstSeen(updateId: number): boolean {
    if (seen.has(updateId)) return false;
    seen.add(updateId);
    seenOrder.push(updateId);
    if (seenOrder.length > 2000) seen.delete(seenOrder.shift()!);
    return true;
  }

  /** A reply as Telegram shows it: HTML parts of at most 4,096 characters. */
  function htmlParts(markdown: string): string[] {
    const parts = splitTelegramHtml(renderTelegramHtml(markdown));
    if (parts.length === 0) parts.push('(nothing to say)');
    return parts;
  }

  /** Sends or edits one part as HTML, as plain text when Telegram cannot parse it. */
  async function htmlOrPlain<T>(
    chatId: string,
    part: string,
    send: (text: string, html: boolean) => Promise<T>,
  ): Promise<T> {
    try {
      return await send(part, true);
    } catch (err) {
      if (!(err instanceof GrammyError && /can't parse entities/i.test(err.description))) throw err;
      log('warn', 'telegram.parse_fallback', { chat: chatId, error: err.description });
      return send(htmlToPlain(part), false);
    }
  }

  async function sendHtml(chatId: string, markdown: string): Promise<void> {
    const api = bot!.api;
    for (const part of htmlParts(markdown)) {
      await htmlOrPlain(chatId, part, (text, html) =>
        api.sendMessage(chatId, text, {
          ...(html ? { parse_mode: 'HTML' as const } : {}),
          link_preview_options: { is_disabled: true },
        }),
      );
    }
  }

  /** The reply of one turn, shown as it streams (agent/channels/live-reply.ts). */
  function liveReply(chatId: string, group: boolean): LiveReply {
    const api = bot!.api;
    const every = options.streamEveryMs ?? { private: 1_000, group: 3_000 };
    const transport: LiveTransport = {
      async send(part, _index, final) {
        const sent = await (final
          ? htmlOrPlain(chatId, part, (text, html) =>
              api.sendMessage(chatId, text, {
                ...(html ? { parse_mode: 'HTML' as const } : {}),
                link_preview_options: { is_disabled: true },
              }),
            )
          : api.sendMessage(chatId, part, { link_preview_options: { is_disabled: true } }));
        return String(sent.message_id);
      },
      async edit(id, part, final) {
        const edit = (text: string, html: boolean) =>
          api
            .editMessageText(chatId, Number(id), text, {
              ...(html ? { parse_mode: 'HTML' as const } : {}),
              link_preview_options: { is_disabled: true },
            })
            .catch((err: unknown) => {
              // The same text again: nothing to change, which is what was wanted.
              if (err instanceof GrammyError && /message is not modified/i.test(err.description))
                return;
              throw err;
            });
        await (final ? htmlOrPlain(chatId, part, edit) : edit(part, false));
      },
      async remove(id) {
        await api.deleteMessage(chatId, Number(id));
      },
    };
    return createLiveReply({
      transport,
      limit: TELEGRAM_MESSAGE_LIMIT,
      everyMs: group ? every.group : every.private,
      onError: (err) =>
        log('debug', 'telegram.live_failed', { chat: chatId, error: (err as Error).message }),
    });
  }

  function startTyping(chatId: string): () => void {
    const send = () =>
      void bot!.api.sendChatAction(chatId, 'typing').catch((err: unknown) => {
        log('debug', 'telegram.typing_failed', { chat: chatId, error: (err as Error).message });
      });
    send();
    const timer = setInterval(send, typingEvery);
    typing.add(timer);
    return () => {
      clearInterval(timer);
      typing.delete(timer);
    };
  }

  function addressed(msg: Message, text: string): { yes: boolean; text: string } {
    const me = bot!.botInfo;
    if (msg.reply_to_message?.from?.id === me.id) return { yes: true, text };
    const mention = `@${me.username}`;
    const at = text.toLowerCase().indexOf(mention.toLowerCase());
    if (at < 0) return { yes: false, text };
    return { yes: true, text: (text.slice(0, at) + text.slice(at + mention.length)).trim() };
  }

  /** Where handled updates end, in the brain: `telegram:offset:<bot id>`. */
  let offsetKey = '';

  /** Runs the turn of a message stored in the session's thread (`messageId`). */
  function runTurn(chatId: string, turn: ArrivalTurn, messageId: string) {
    const h = host!;
    const { session, text } = turn;
    const stopTyping = startTyping(chatId);
    // Group and supergroup ids are negative.
    const live = liveReply(chatId, chatId.startsWith('-'));
    let queued;
    try {
      queued = h.enqueue({
        session,
        text,
        messageId,
        ...(turn.from === undefined ? {} : { from: turn.from }),
        driver: turn.driver,
        source: 'channel',
        priority: turn.priority,
        unattended: turn.unattended,
        io: {
          onText: (delta) => live.onText(delta),
          onRestart: () => live.onRestart(),
          sendFile: async (file) => {
            // The file goes below what was streamed so far: the reply moves under it.
            live.moved();
            const upload = new InputFile(file.data, file.name);
            const caption = file.caption ? { caption: file.caption.slice(0, 1024) } : {};
            await (PHOTO_TYPES.has(file.mediaType)
              ? bot!.api.sendPhoto(chatId, upload, caption)
              : bot!.api.sendDocument(chatId, upload, caption));
            log('info', 'telegram.file_sent', { chat: chatId, bytes: file.data.length });
          },
          ...(turn.asks
            ? {
                askApproval: (request) => {
                  // The prompt goes below the reply: the reply moves under it.
                  live.moved();
                  return approvals!.ask(chatId, request);
                },
              }
            : {}),
        },
      });
    } catch (err) {
      stopTyping();
      throw err;
    }
    log('info', 'telegram.turn_queued', { chat: chatId, session, chars: text.length });
    // Not awaited: the update handler returns, so the next update (a button press) is handled.
    void queued.done
      .then(
        async (result) => {
          stopTyping();
          if (result.cancelled || stopped.delete(chatId))
            return void (await live.finish(htmlParts(STOPPED_TEXT)));
          await live.finish(htmlParts(result.reply));
          log('info', 'telegram.replied', { chat: chatId, chars: result.reply.length });
        },
        async (err: unknown) => {
          stopTyping();
          if (stopped.delete(chatId)) return void (await live.finish(htmlParts(STOPPED_TEXT)));
          // Cancelled without /stop (the service is stopping, another queued turn of a stopped
          // chat): nothing went wrong that the chat should hear about.
          if (err instanceof TurnCancelledError || (err as Error).name === 'AbortError') {
            await live.finish([]);
            return log('info', 'telegram.turn_cancelled', { chat: chatId });
          }
          const code = (err as { code?: string }).code ?? 'ERROR';
          log('error', 'telegram.turn_failed', {
            chat: chatId,
            code,
            error: (err as Error).message,
          });
          await live.finish(htmlParts(failureText(err)));
        },
      )
      .catch((err: unknown) =>
        log('error', 'telegram.send_failed', { chat: chatId, error: (err as Error).message }),
      );
  }

  /** A slash command: decided by the conversation module (agent/service/commands.ts). */
  async function command(
    ctx: Context,
    name: string,
    arg: string,
    chatId: string,
    turn: ArrivalTurn,
  ) {
    const session = turn.session;
    const { reply, cancelled } = runChatCommand(
      host!,
      turn,
      { name, arg },
      { models: fallbackModels, approvalsWaiting: () => approvals!.waiting() },
    );
    // The cancelled turn's end says "Stopped." whichever way it ends.
    if (cancelled) stopped.add(chatId);
    log('info', 'telegram.command', { chat: chatId, session, command: name });
    if (reply !== '') await ctx.reply(reply);
  }

  async function onMessage(ctx: Context) {
    const h = host!;
    const msg = ctx.message!;
    const chat = msg.chat;
    const chatId = String(chat.id);
    const userId = String(msg.from?.id ?? chat.id);
    const isPrivate = chat.type === 'private';
    const allowed = config.allowedChatIds.includes(chat.id);
    if (isPrivate) {
      if (!allowed && !h.brain.assistant.isPaired({ channel: 'telegram', user_id: userId })) {
        const reply = pairingReply(h.brain, { userId, name: msg.from?.first_name ?? '' }, log);
        if (reply) await ctx.reply(reply);
        return;
      }
    } else if (!allowed || !config.groups.enabled) {
      log('debug', 'telegram.ignored_chat', { chat: chatId });
      return;
    }
    const files = telegramFiles(msg, bot!.api, {
      token: config.token!,
      apiRoot: config.apiRoot ?? 'https://api.telegram.org',
    });
    // A file's caption is its message's text.
    let text = msg.text ?? (files.length > 0 ? (msg.caption ?? '') : undefined);
    if (!isPrivate && text !== undefined && config.groups.requireMention) {
      const a = addressed(msg, text);
      if (!a.yes) return;
      text = a.text;
    }
    if (text === undefined) {
      // In a group only what is addressed to the bot gets an answer; a reply with a photo is.
      if (!isPrivate && msg.reply_to_message?.from?.id !== bot!.botInfo.id) return;
      log('info', 'telegram.not_text', { chat: chatId });
      return void (await ctx.reply(NOT_TEXT));
    }
    const turn = arrivalTurn(h, {
      channel: 'telegram',
      chatId,
      userId,
      direct: isPrivate,
      text,
      forwardedFrom: forwardedFrom(msg),
      quoted: quotedOf(msg, bot!.botInfo.id, (id) =>
        h.isOwner({ channel: 'telegram', userId: id }),
      ),
    });
    const cmd = msg.forward_origin || files.length > 0 ? undefined : commandOf(ctx);
    if (cmd && (!cmd.bot || cmd.bot.toLowerCase() === bot!.botInfo.username.toLowerCase()))
      return command(ctx, cmd.name, cmd.arg, chatId, turn);
    if (text.trim() === '' && files.length === 0) return;
    let prepared: Awaited<ReturnType<typeof h.brain.messages.attach>> = [];
    if (files.length > 0) {
      // Downloaded before the message is stored: a refused file leaves no message and no file.
      const got = await receiveFiles(h.brain, files, {
        platformMax: TELEGRAM_DOWNLOAD_MAX,
        log,
        channel: 'telegram',
        signal: stopping.signal,
      });
      if ('refused' in got) return void (await ctx.reply(got.refused));
      prepared = got.prepared;
      turn.text = withFilesNote(turn.text, 'telegram', prepared);
      log('info', 'telegram.files', { chat: chatId, files: prepared.length });
    }
    // Stored with the update's offset in one transaction: from here a crash loses nothing.
    const updateId = ctx.update.update_id;
    const messageId = acceptArrival(
      h.brain,
      h.config(),
      { ...turn, idle: !h.busy(turn.session) },
      { channel: 'telegram', chatId },
      () => h.brain.assistant.setSchedulerState(offsetKey, updateId),
      prepared,
    );
    runTurn(chatId, turn, messageId);
  }

  /**
   * Tells Telegram that updates up to `upTo` were handled before a restart, so grammY's first
   * getUpdates (offset 0) gets only the rest; a failure leaves the middleware's check to skip them.
   */
  async function confirmHandled(b: Bot, upTo: number) {
    try {
      await b.api.getUpdates({ offset: upTo + 1, limit: 1, timeout: 0 });
      log('info', 'telegram.offset_restored', { handled_up_to: upTo });
    } catch (err) {
      log('warn', 'telegram.offset_confirm_failed', { error: (err as Error).message });
    }
  }

  async function poll(b: Bot, ready: { resolve(): void; reject(err: unknown): void }) {
    let wait = backoff.initial;
    let started = false;
    while (!stopping.signal.aborted) {
      try {
        await b.start({
          allowed_updates: ['message', 'callback_query'],
          onStart: (me) => {
            if (!started) log('info', 'telegram.polling', { bot: me.username });
            started = true;
            ready.resolve();
          },
        });
        if (stopping.signal.aborted) return;
      } catch (err) {
        if (stopping.signal.aborted) return;
        if (err instanceof GrammyError && err.error_code === 401) {
          log('error', 'telegram.unauthorized', { error: err.description });
          ready.reject(tokenRefused(err));
          return;
        }
        if (err instanceof GrammyError && err.error_code === 409)
          log('warn', 'telegram.conflict', {
            error: 'another process is polling with this bot token',
            retry_in_ms: wait,
          });
        else
          log('warn', 'telegram.poll_failed', { error: (err as Error).message, retry_in_ms: wait });
        try {
          await sleep(wait, stopping.signal);
        } catch {
          // Stopped while waiting: the loop ends.
          return;
        }
        wait = Math.min(wait * 2, backoff.max);
        continue;
      }
      return;
    }
  }

  return {
    name: 'telegram',
    channel: 'telegram',
    get bot() {
      return bot;
    },

    async start(h) {
      host = h;
      if (!config.token)
        throw new BrainError('INVALID_INPUT', 'telegram: TELEGRAM_BOT_TOKEN is not set');
      const b = new Bot(config.token, {
        client: config.apiRoot ? { apiRoot: config.apiRoot } : {},
        ...(options.botInfo ? { botInfo: options.botInfo } : {}),
      });
      // 429: wait as long as Telegram says, then send again.
      b.api.config.use(autoRetry({ maxRetryAttempts: 5, maxDelaySeconds: 300 }));
      approvals = createApprovalPrompts({
        api: () => b.api,
        isOwner: (userId) => h.isOwner({ channel: 'telegram', userId }),
        log,
      });
      offsetKey = `telegram:offset:${config.token.split(':')[0]}`;
      const handledUpTo = h.brain.assistant.schedulerState(offsetKey);
      b.use(async (ctx, next) => {
        const id = ctx.update.update_id;
        if (!firstSeen(id) || (typeof handledUpTo === 'number' && id <= handledUpTo)) {
          log('debug', 'telegram.duplicate_update', { update: id });
          return;
        }
        await next();
        // Handled: its turn is queued or its reply sent. Kept in the brain because grammY keeps
        // the offset in memory, and Telegram resends what the last getUpdates did not confirm.
        h.brain.assistant.setSchedulerState(offsetKey, id);
      });
      b.on('callback_query:data', async (ctx) => {
        if (!(await approvals!.onPress(ctx))) await ctx.answerCallbackQuery();
      });
      b.on('message', onMessage);
      b.catch((err) =>
        log('error', 'telegram.update_failed', {
          update: err.ctx.update.update_id,
          error: (err.error as Error).message,
        }),
      );
      bot = b;
      if (typeof handledUpTo === 'number') await confirmHandled(b, handledUpTo);
      await new Promise<void>((resolve, reject) => {
        polling = poll(b, { resolve, reject });
        void polling.then(resolve);
      });
    },

    async stop() {
      stopping.abort(new Error('stopping'));
      for (const t of typing) clearInterval(t);
      typing.clear();
      if (bot?.isRunning()) {
        await bot.stop().catch((err: unknown) => {
          log('warn', 'telegram.stop_failed', { error: (err as Error).message });
        });
      }
      await polling;
    },

    reconfigure(next: AssistantConfig) {
      if (!next.telegram) return;
      if (next.telegram.token !== config.token || next.telegram.apiRoot !== config.apiRoot)
        log('warn', 'telegram.restart_needed', { reason: 'token or apiRoot changed' });
      config = { ...next.telegram, token: config.token, apiRoot: config.apiRoot };
    },

    async check(): Promise<CheckItem[]> {
      if (!config.token)
        return [{ name: 'telegram', ok: false, detail: 'TELEGRAM_BOT_TOKEN is not set' }];
      try {
        const api = new Api(config.token, config.apiRoot ? { apiRoot: config.apiRoot } : {});
        const me = await api.getMe();
        return [
          {
            name: 'telegram',
            ok: true,
            detail: `bot @${me.username}; ${config.allowedChatIds.length} allowed chat(s)`,
          },
        ];
      } catch (err) {
        const detail =
          err instanceof GrammyError && err.error_code === 401
            ? tokenRefused(err).message
            : (err as Error).message;
        return [{ name: 'telegram', ok: false, detail }];
      }
    },

    async notify(chatId, text) {
      if (!bot) throw new BrainError('CONFLICT', 'telegram: the channel is not running');
      await sendHtml(chatId, text);
    },

    takeUp(chatId, turn, messageId) {
      if (!bot) throw new BrainError('CONFLICT', 'telegram: the channel is not running');
      runTurn(chatId, turn, messageId);
    },
  };
}

/**
 * The command a message starts with, as Telegram marks it (a `bot_command` entity at its start,
 * what grammY's `command()` matches): `/name`, `/name@bot`, the rest its argument.
 */
function commandOf(ctx: Context): { name: string; arg: string; bot?: string } | undefined {
  const [first] = ctx.entities('bot_command');
  if (!first || first.offset !== 0) return undefined;
  const [name, bot] = first.text.slice(1).split('@');
  const arg = (ctx.msg?.text ?? '').slice(first.length).trim();
  return { name: name!.toLowerCase(), arg, ...(bot ? { bot } : {}) };
}

/** A 401 names the variable to fix; never the token, which grammY's message would carry. */
function tokenRefused(err: GrammyError): BrainError {
  return new BrainError(
    'UPSTREAM_FAILED',
    `TELEGRAM_BOT_TOKEN was refused by Telegram: ${err.error_code} ${err.description}`,
    { cause: err },
  );
}

/**
 * Who a forwarded message is from, as Telegram tells it; undefined when it is not forwarded. A
 * message sent through an inline bot is that bot's text, however the owner picked it.
 */
function forwardedFrom(msg: Message): string | undefined {
  const origin = msg.forward_origin;
  if (!origin) return msg.via_bot ? `the inline bot @${msg.via_bot.username}` : undefined;
  switch (origin.type) {
    case 'user':
      return origin.sender_user.username ?? origin.sender_user.first_name;
    case 'hidden_user':
      return origin.sender_user_name;
    case 'chat':
      return origin.sender_chat.title ?? 'a chat';
    case 'channel':
      return origin.chat.title ?? 'a channel';
  }
}

/** The message replied to (or the part of it quoted), with who wrote it. */
function quotedOf(
  msg: Message,
  botId: number,
  isOwner: (userId: string) => boolean,
): Arrival['quoted'] {
  const replied = msg.reply_to_message;
  const text = msg.quote?.text ?? replied?.text ?? replied?.caption;
  if (!replied && !msg.quote) return undefined;
  const author = replied?.from;
  return {
    author: author?.username ?? author?.first_name ?? replied?.sender_chat?.title ?? 'someone',
    text: text ?? '',
    // A message replied to in a forum topic or from a channel has no user: nobody's own words.
    byOwner: author !== undefined && !replied?.forward_origin && isOwner(String(author.id)),
    byAssistant: author?.id === botId && !replied?.forward_origin,
  };
}
