import {
  Client,
  DiscordAPIError,
  GatewayIntentBits,
  Partials,
  REST,
  Routes,
  type ClientOptions,
  type Interaction,
  type Message,
} from 'discord.js';
import { BrainError } from '../../../src/index.js';
import type { AssistantConfig } from '../../config.js';
import { silentLog, type Log } from '../../log.js';
import type { TurnResult } from '../../loop.js';
import { TurnCancelledError } from '../../contracts.js';
import type { Channel, CheckItem, QueuedTurn, ServiceHost } from '../../contracts.js';
import { createLiveReply, type LiveReply, type LiveTransport } from '../live-reply.js';
import { splitMessage } from '../split.js';
import { createDiscordApprovals } from './approvals.js';
import { DEFAULT_DISCORD_API, type DiscordConfig } from './config.js';
import { acceptArrival } from '../../conversation/accepted.js';
import { arrivalTurn, type ArrivalTurn } from '../../conversation/arrival.js';
import { createSessionModels, knownCommand, runChatCommand } from '../../conversation/commands.js';
import { failureText, STOPPED_TEXT } from '../../conversation/replies.js';
import { receiveFiles, withFilesNote } from '../files.js';
import { discordFiles } from './files.js';
import { stripMention } from './inbound.js';
import { keepTyping, type IntervalTimers } from './typing.js';

/** Discord refuses a message longer than this. */
export const DISCORD_LIMIT = 2000;

/** Discord's largest page of a channel's messages. */
const CATCH_UP_PAGE = 100;

/** The gateway's close code for an intent the application may not use. */
export const DISALLOWED_INTENTS = 4014;

/**
 * The intents asked for: guilds (to know the channels), guild messages and DMs. Not the
 * privileged MessageContent: Discord still sends the content of DMs, of messages that mention
 * the bot and of replies to it, which is all the assistant reads.
 */
export const DISCORD_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.DirectMessages,
];

const REFUSED_DETAIL =
  'the gateway closed with 4014 (disallowed intents): the application may not use an intent it ' +
  'asks for; this channel needs only Guilds, Guild Messages and Direct Messages (no privileged ' +
  'intent), so check the bot in the Discord developer portal';

/** The answer to a message with neither text nor a file (a sticker, a bare mention). */
export const UNSUPPORTED_TEXT =
  'I can read text and files, not this: please write your message out.';

/** The answer to a reply in a server whose text Discord did not send (it did not ping the bot). */
export const HIDDEN_TEXT =
  'Discord did not show me the text of that reply: mention me in it (or leave the reply ping on).';

export interface DiscordChannelOptions {
  config: DiscordConfig;
  /** Used before start (check); the host's log once started. */
  log?: Log;
  /** Timers for typing (default the global ones). */
  timers?: IntervalTimers;
  typingEveryMs?: number;
  /** The least time between two updates of a reply as it streams (default 1 s). */
  streamEveryMs?: number;
}

export type DiscordChannel = Channel & {
  /** `connected`, `refused` (4014), `stopped`, or `idle` before start. */
  status(): 'idle' | 'connected' | 'refused' | 'stopped';
};

/**
 * The Discord channel (discord.js over the gateway): DMs from allowed users, and in guild
 * channels messages that mention the bot (the mention taken out) or reply to it. The owner's DMs
 * are the owner's session; any other chat is `discord/<channel_id>`. Turns go to the host's lane
 * and are never awaited in the event handler, so an approval button can be pressed while its
 * turn waits. Replies are cut at 2,000 characters with code fences balanced.
 */
export function createDiscordChannel(options: DiscordChannelOptions): DiscordChannel {
  let config = options.config;
  let host: ServiceHost | undefined;
  let client: Client | undefined;
  let state: 'idle' | 'connected' | 'refused' | 'stopped' = 'idle';
  const log = (): Log => host?.log ?? options.log ?? silentLog;
  const api = () => config.apiBase ?? DEFAULT_DISCORD_API;
  const rest = () => {
    if (!client) throw new BrainError('CONFLICT', 'discord: the channel is not started');
    return client.rest;
  };

  /** `/model` choices when the host keeps none (a test's host): held by this channel. */
  const fallbackModels = createSessionModels();
  const approvals = createDiscordApprovals({
    transport: {
      post: async (channelId, body) =>
        (await rest().post(Routes.channelMessages(channelId), { body })) as { id: string },
      edit: async (channelId, messageId, body) => {
        await rest().patch(Routes.channelMessage(channelId, messageId), { body });
      },
    },
    isOwner: (userId) => host?.isOwner({ channel: 'discord', userId }) ?? false,
    log,
  });

  /** Send text as parts of ≤ 2,000 characters, in order; the first replies to `replyTo`. */
  async function sendText(channelId: string, text: string, replyTo?: string): Promise<void> {
    const parts = splitMessage(text, DISCORD_LIMIT);
    for (const [i, content] of parts.entries()) {
      await rest().post(Routes.channelMessages(channelId), {
        body: {
          content,
          // The model's text never pings anyone.
          allowed_mentions: { parse: [] },
          ...(i === 0 && replyTo
            ? { message_reference: { message_id: replyTo, fail_if_not_exists: false } }
            : {}),
        },
      });
    }
  }

  /**
   * Where each chat's handled messages end (`discord:resume:<bot id>` in the brain: channel id →
   * the last message id handled). The gateway does not replay what was sent while the bot was
   * away, so on start each chat is read from there through REST; a message at or before it is not
   * handled again.
   */
  let resumeKey = '';
  const resumePoints = (): Record<string, string> =>
    (host?.brain.assistant.schedulerState(resumeKey) as Record<string, string> | undefined) ?? {};
  const handled = (message: Message) => {
    const last = resumePoints()[message.channelId];
    return last !== undefined && BigInt(message.id) <= BigInt(last);
  };
  const noteHandled = (message: Message) => {
    if (!host || handled(message)) return;
    host.brain.assistant.setSchedulerState(resumeKey, {
      ...resumePoints(),
      [message.channelId]: message.id,
    });
  };
  /** Messages from the gateway wait while what came during the downtime is read. */
  let caughtUp: Promise<void> = Promise.resolve();

  /** The reply of one turn, shown as it streams (agent/channels/live-reply.ts). */
  function liveReply(channelId: string, replyTo: string | undefined): LiveReply {
    const transport: LiveTransport = {
      async send(content, index) {
        const sent = (await rest().post(Routes.channelMessages(channelId), {
          body: {
            content,
            // The model's text never pings anyone.
            allowed_mentions: { parse: [] },
            ...(index === 0 && replyTo
              ? { message_reference: { message_id: replyTo, fail_if_not_exists: false } }
              : {}),
          },
        })) as { id: string };
        return sent.id;
      },
      async edit(id, content) {
        await rest().patch(Routes.channelMessage(channelId, id), {
          body: { content, allowed_mentions: { parse: [] } },
        });
      },
      async remove(id) {
        await rest().delete(Routes.channelMessage(channelId, id));
      },
    };
    return createLiveReply({
      transport,
      limit: DISCORD_LIMIT,
      everyMs: options.streamEveryMs ?? 1_000,
      onError: (err) =>
        log()('debug', 'discord.live_failed', { channel_id: channelId, error: errorText(err) }),
    });
  }

  async function onMessage(message: Message, catchingUp = false): Promise<void> {
    if (!catchingUp) await caughtUp;
    // discord.js hands over the messages that arrived while it connected right after READY,
    // before `login()` resolves: those count too (only a stopped or refused channel drops them).
    if (!host || state === 'stopped' || state === 'refused' || !client?.user) return;
    const botId = client.user.id;
    if (message.author.bot || message.author.id === botId || message.system) return;
    if (handled(message)) {
      log()('debug', 'discord.duplicate', { channel_id: message.channelId });
      return;
    }
    const inGuild = message.inGuild();
    const mentioned = message.mentions.users.has(botId);
    if (inGuild) {
      if (config.guildIds && !config.guildIds.includes(message.guildId)) return;
      const repliedTo = message.mentions.repliedUser?.id === botId;
      if (!mentioned && !repliedTo) return;
    }
    const userId = message.author.id;
    const fields = { channel_id: message.channelId, user_id: userId, guild: inGuild };
    if (!config.allowedUserIds.includes(userId)) {
      log()('info', 'discord.ignored', { ...fields, reason: 'not in allowedUserIds' });
      return;
    }
    const said = stripMention(message.content, botId);
    const files = discordFiles(message, config.apiBase);
    if (said === '' && files.length === 0) {
      // A picture, a file, a sticker or a bare mention: say what works rather than stay silent.
      log()('info', 'discord.unsupported', { ...fields, attachments: message.attachments.size });
      // Without the MessageContent intent a reply that does not ping the bot arrives empty.
      const hidden = inGuild && !mentioned && message.attachments.size === 0;
      await sendText(message.channelId, hidden ? HIDDEN_TEXT : UNSUPPORTED_TEXT, message.id);
      return;
    }
    const replied = message.reference?.messageId
      ? await referencedMessage(message).catch((err: unknown) => {
          log()('warn', 'discord.reference_unavailable', {
            ...fields,
            error: (err as Error).message,
          });
          return undefined;
        })
      : undefined;
    const turn = arrivalTurn(host, {
      channel: 'discord',
      chatId: message.channelId,
      userId,
      direct: !inGuild,
      text: said,
      quoted: replied && {
        author: replied.author.username,
        text: stripMention(replied.content, botId),
        byOwner: host.isOwner({ channel: 'discord', userId: replied.author.id }),
        byAssistant: replied.author.id === botId,
      },
    });
    const { session } = turn;
    log()('info', 'discord.message', { ...fields, session, chars: said.length });
    const command = files.length === 0 ? knownCommand(said) : undefined;
    if (command) {
      // Decided by the conversation module (agent/conversation/commands.ts); never a turn.
      const { reply } = runChatCommand(host, turn, command, {
        models: fallbackModels,
        approvalsWaiting: () => approvals.pendingCount(),
      });
      await sendText(message.channelId, reply || STOPPED_TEXT, message.id);
      noteHandled(message);
      return;
    }
    let prepared: Awaited<ReturnType<typeof host.brain.messages.attach>> = [];
    if (files.length > 0) {
      // Downloaded before the message is stored: a refused file leaves no message and no file.
      const got = await receiveFiles(host.brain, files, {
        platformMax: Number.POSITIVE_INFINITY,
        log: log(),
        channel: 'discord',
      });
      if ('refused' in got) {
        await sendText(message.channelId, got.refused, message.id);
        noteHandled(message);
        return;
      }
      prepared = got.prepared;
      turn.text = withFilesNote(turn.text, 'discord', prepared);
    }
    // Stored with the chat's resume point in one transaction: from here a crash loses nothing.
    const messageId = acceptArrival(
      host.brain,
      host.config(),
      { ...turn, idle: !host.busy(session) },
      { channel: 'discord', chatId: message.channelId },
      () => noteHandled(message),
      prepared,
    );
    runTurn(message.channelId, turn, messageId, message.id);
  }

  /** Runs the turn of a message stored in the session's thread; the reply answers `replyTo`. */
  function runTurn(channelId: string, turn: ArrivalTurn, messageId: string, replyTo?: string) {
    if (!host) throw new BrainError('CONFLICT', 'discord: the channel is not started');
    const { session, text } = turn;
    const stopTyping = keepTyping(
      () => rest().post(Routes.channelTyping(channelId)),
      (err) => log()('debug', 'discord.typing_failed', { error: (err as Error).message }),
      { everyMs: options.typingEveryMs, timers: options.timers },
    );
    const live = liveReply(channelId, replyTo);
    let queued: QueuedTurn;
    try {
      queued = host.enqueue({
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
            await rest().post(Routes.channelMessages(channelId), {
              body: {
                content: (file.caption ?? '').slice(0, DISCORD_LIMIT),
                allowed_mentions: { parse: [] },
              },
              files: [{ name: file.name, data: file.data }],
            });
            log()('info', 'discord.file_sent', { channel_id: channelId, bytes: file.data.length });
          },
          ...(turn.asks
            ? {
                askApproval: (request) => {
                  // The prompt goes below the reply: the reply moves under it.
                  live.moved();
                  return approvals.ask(channelId, request);
                },
              }
            : {}),
        },
      });
    } catch (err) {
      // The host refused it (shutting down): no typing left behind.
      stopTyping();
      throw err;
    }
    const finish = async (result: TurnResult) => {
      stopTyping();
      if (result.cancelled) {
        await live.finish([]).catch(() => {});
        log()('info', 'discord.turn_cancelled', { channel_id: channelId, session });
        return;
      }
      const reply = result.reply;
      await live
        .finish(splitMessage(reply || '(no reply)', DISCORD_LIMIT))
        .catch((err: unknown) =>
          log()('warn', 'discord.send_failed', { channel_id: channelId, error: errorText(err) }),
        );
      log()('info', 'discord.replied', { channel_id: channelId, session, chars: reply.length });
    };
    const fail = async (err: unknown) => {
      stopTyping();
      if (err instanceof TurnCancelledError) {
        // Cancelled (a stop, a shutdown): nothing was answered, and nothing failed.
        await live.finish([]).catch(() => {});
        log()('info', 'discord.turn_cancelled', { channel_id: channelId, session });
        return;
      }
      log()('warn', 'discord.turn_failed', {
        channel_id: channelId,
        session,
        code: (err as { code?: unknown }).code ?? 'ERROR',
        error: errorText(err),
      });
      await live.finish([failureText(err)]).catch(() => {});
    };
    // Never awaited here: the handler returns and the next event (a button press) is handled.
    void queued.done.then(
      (result) => finish(result),
      (err: unknown) => fail(err),
    );
  }

  /** What each chat with a resume point received while the bot was away, oldest first. */
  async function catchUp(c: Client<true>): Promise<void> {
    for (const [channelId, after] of Object.entries(resumePoints())) {
      try {
        const chat = await c.channels.fetch(channelId);
        if (!chat?.isTextBased()) continue;
        // A page holds at most 100, the oldest after the point first: read on until one is short.
        let from = after;
        for (;;) {
          const page = await chat.messages.fetch({ after: from, limit: CATCH_UP_PAGE });
          const ordered = [...page.values()].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
          if (ordered.length > 0)
            log()('info', 'discord.catch_up', { channel_id: channelId, messages: ordered.length });
          for (const m of ordered) await onMessage(m, true);
          if (ordered.length < CATCH_UP_PAGE) break;
          from = ordered.at(-1)!.id;
        }
      } catch (err) {
        log()('warn', 'discord.catch_up_failed', { channel_id: channelId, error: errorText(err) });
      }
    }
  }

  /** The message replied to: from the cache (the gateway sends it along), else fetched. */
  async function referencedMessage(message: Message): Promise<Message | undefined> {
    const id = message.reference?.messageId;
    if (!id) return undefined;
    return message.channel.messages.cache.get(id) ?? (await message.fetchReference());
  }

  async function onInteraction(interaction: Interaction): Promise<void> {
    if (!interaction.isButton()) return;
    await approvals.handle(interaction);
  }

  async function checkToken(): Promise<CheckItem> {
    if (!config.token)
      return { name: 'discord token', ok: false, detail: 'DISCORD_BOT_TOKEN is not set' };
    const probe = new REST({ api: api(), retries: 0, timeout: 10_000 }).setToken(config.token);
    try {
      const me = (await probe.get(Routes.user('@me'))) as { id: string; username: string };
      return { name: 'discord token', ok: true, detail: `bot ${me.username} (${me.id})` };
    } catch (err) {
      const status = err instanceof DiscordAPIError ? err.status : undefined;
      return {
        name: 'discord token',
        ok: false,
        detail:
          status === 401
            ? `DISCORD_BOT_TOKEN was refused by Discord (${api()}): 401`
            : `${api()} did not answer: ${errorText(err)}`,
      };
    }
  }

  /** Not running (`brain agent --check`): connect once with the same intents, then leave. */
  async function probeGateway(): Promise<CheckItem> {
    const probe = new Client({
      intents: DISCORD_INTENTS,
      partials: [Partials.Channel],
      rest: { api: api() },
    });
    let refused = false;
    probe.on('shardDisconnect', (event) => {
      if (event.code === DISALLOWED_INTENTS) refused = true;
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no READY within 20 s')), 20_000);
    });
    try {
      await Promise.race([probe.login(config.token), timeout]);
      return { name: 'discord gateway', ok: true, detail: 'connected with the intents it needs' };
    } catch (err) {
      return {
        name: 'discord gateway',
        ok: false,
        detail: refused ? REFUSED_DETAIL : `could not connect: ${errorText(err)}`,
      };
    } finally {
      clearTimeout(timer);
      await probe.destroy();
    }
  }

  const channel: DiscordChannel = {
    name: 'discord',
    channel: 'discord',
    status: () => state,

    async start(h) {
      host = h;
      if (!config.token)
        throw new BrainError(
          'INVALID_INPUT',
          'discord: DISCORD_BOT_TOKEN is not set (the token comes from the environment only)',
        );
      const clientOptions: ClientOptions = {
        intents: DISCORD_INTENTS,
        partials: [Partials.Channel],
        rest: { api: api() },
        allowedMentions: { parse: [], repliedUser: false },
      };
      client = new Client(clientOptions);
      let markCaughtUp!: () => void;
      caughtUp = new Promise<void>((resolve) => (markCaughtUp = resolve));
      client.once('clientReady', (c) => {
        resumeKey = `discord:resume:${c.user.id}`;
        void catchUp(c).finally(markCaughtUp);
      });
      client.on('messageCreate', (m) => {
        onMessage(m).catch((err: unknown) =>
          log()('warn', 'discord.message_failed', { error: errorText(err) }),
        );
      });
      client.on('interactionCreate', (i) => {
        onInteraction(i).catch((err: unknown) =>
          log()('warn', 'discord.interaction_failed', { error: errorText(err) }),
        );
      });
      client.on('shardDisconnect', (event) => {
        if (event.code === DISALLOWED_INTENTS) {
          state = 'refused';
          log()('error', 'discord.intents_refused', { code: event.code, detail: REFUSED_DETAIL });
        } else log()('warn', 'discord.disconnected', { code: event.code });
      });
      client.on('shardError', (err) =>
        log()('warn', 'discord.gateway_error', { error: err.message }),
      );
      client.on('error', (err) => log()('warn', 'discord.error', { error: err.message }));
      try {
        await client.login(config.token);
      } catch (err) {
        client = undefined;
        if (state === 'refused')
          throw new BrainError('UPSTREAM_FAILED', `discord: ${REFUSED_DETAIL}`);
        state = 'stopped';
        // discord.js says TokenInvalid for a token it or Discord rejects: name the variable to fix.
        const refusedToken =
          (err instanceof DiscordAPIError && err.status === 401) ||
          (err as { code?: unknown }).code === 'TokenInvalid';
        if (refusedToken)
          throw new BrainError(
            'UPSTREAM_FAILED',
            `DISCORD_BOT_TOKEN was refused by Discord (${api()}): 401`,
            { cause: err },
          );
        throw new BrainError(
          'UPSTREAM_FAILED',
          `discord: could not connect to the gateway: ${errorText(err)}`,
          { cause: err },
        );
      }
      state = 'connected';
      log()('info', 'discord.connected', { bot_id: client.user?.id });
    },

    takeUp(chatId, turn, messageId) {
      runTurn(chatId, turn, messageId);
    },

    async stop() {
      if (state === 'connected') state = 'stopped';
      const c = client;
      client = undefined;
      await c?.destroy();
      log()('info', 'discord.stopped');
    },

    async check() {
      const items = [await checkToken()];
      items.push({
        name: 'discord allowlist',
        ok: true,
        detail:
          config.allowedUserIds.length === 0
            ? 'discord.allowedUserIds is empty: nobody is answered'
            : `${config.allowedUserIds.length} user(s) allowed`,
      });
      if (state === 'refused')
        items.push({ name: 'discord gateway', ok: false, detail: REFUSED_DETAIL });
      else if (state === 'connected')
        items.push({ name: 'discord gateway', ok: true, detail: 'connected' });
      else if (items[0]!.ok) items.push(await probeGateway());
      return items;
    },

    reconfigure(next: AssistantConfig) {
      if (!next.discord) return;
      if (next.discord.token !== config.token || next.discord.apiBase !== config.apiBase)
        log()('warn', 'discord.restart_needed', {
          detail: 'the token or apiBase changed: they apply when brain agent restarts',
        });
      config = { ...next.discord, token: config.token, apiBase: config.apiBase };
    },

    async notify(chatId, text) {
      await sendText(chatId, text);
      log()('info', 'discord.notified', { channel_id: chatId, chars: text.length });
    },
  };
  return channel;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
