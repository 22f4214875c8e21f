import type { IncomingMessage, ServerResponse } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  createRecorder,
  parseJson,
  parseMultipart,
  sendJson,
  serveHttp,
  type SentFile,
} from './http.js';

/**
 * A loopback Discord for the channel's tests: one `node:http` server on 127.0.0.1 that is both
 * the REST API (give `${apiBase}` to discord.js as `rest.api`) and the gateway (its URL is what
 * GET /gateway/bot answers, so the real discord.js connects to it by itself). It records every
 * REST call and gateway payload, dispatches MESSAGE_CREATE and INTERACTION_CREATE on demand, and
 * can refuse the intents the way Discord does (close code 4014). It keeps files as its CDN
 * (`addFile`; GET `/attachments/<id>/<name>`, recorded like a REST call, no token needed) for
 * messages to carry as attachments.
 */

export interface RecordedCall {
  method: string;
  /** Without the `/api/v10` prefix or the query: `/channels/42/messages`. */
  path: string;
  query: string;
  authorization: string | undefined;
  body: Record<string, unknown> | undefined;
  /** The files of a multipart call (a message with files); its `payload_json` is `body`. */
  files?: SentFile[];
}

/** A message's attachment, as Discord describes it. */
export interface FakeAttachment {
  id: string;
  filename: string;
  size: number;
  url: string;
  proxy_url: string;
  content_type?: string;
}

export interface FakeUser {
  id: string;
  username: string;
  bot?: boolean;
}

export interface FakeDiscord {
  /** For discord.js's `rest.api` (and the channel's `apiBase`). */
  apiBase: string;
  bot: FakeUser;
  token: string;
  calls: RecordedCall[];
  /** Gateway payloads the client sent (IDENTIFY, heartbeats, …), in order. */
  received: Array<{ op: number; d: unknown }>;
  /** Messages the fake holds (sent by the bot or dispatched), by id. */
  messages: Map<string, Record<string, unknown>>;
  /** Close the next IDENTIFY with 4014 (disallowed intents) instead of READY. */
  refuseIntents: boolean;
  /** Resolves once a client has identified and been sent READY. */
  ready(): Promise<void>;
  /** A MESSAGE_CREATE from `author`; returns the message as dispatched. */
  dispatchMessage(message: {
    channelId: string;
    author: FakeUser;
    content: string;
    guildId?: string;
    mentions?: FakeUser[];
    /** The id of a message the fake holds: it becomes `referenced_message`. */
    replyTo?: string;
    attachments?: FakeAttachment[];
  }): Record<string, unknown>;
  /** A file on the fake's CDN: an attachment to give `dispatchMessage` (`size` as reported). */
  addFile(
    bytes: Buffer,
    name: string,
    options?: { size?: number; contentType?: string },
  ): FakeAttachment;
  /** A message sent while no client is connected: held for REST reads, never dispatched. */
  holdMessage(message: {
    channelId: string;
    author: FakeUser;
    content: string;
    guildId?: string;
  }): Record<string, unknown>;
  /** An INTERACTION_CREATE for a button press on a message the fake holds. */
  pressButton(press: { messageId: string; customId: string; user: FakeUser; guildId?: string }): {
    id: string;
  };
  /** Resolves when a REST call matching the test has arrived (or has already). */
  waitForCall(test: (call: RecordedCall) => boolean): Promise<RecordedCall>;
  close(): Promise<void>;
}

let snowflake = 1_000_000_000_000_000n;
const nextId = () => String(++snowflake);

function messageObject(o: {
  id: string;
  channelId: string;
  author: FakeUser;
  content: string;
  guildId?: string;
  mentions?: FakeUser[];
  components?: unknown;
  referenced?: Record<string, unknown>;
  attachments?: FakeAttachment[];
}): Record<string, unknown> {
  return {
    id: o.id,
    channel_id: o.channelId,
    ...(o.guildId ? { guild_id: o.guildId } : {}),
    author: { discriminator: '0', global_name: null, avatar: null, bot: false, ...o.author },
    content: o.content,
    timestamp: new Date(0).toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: (o.mentions ?? []).map((u) => ({ discriminator: '0', avatar: null, ...u })),
    mention_roles: [],
    attachments: o.attachments ?? [],
    embeds: [],
    pinned: false,
    type: o.referenced ? 19 : 0,
    components: o.components ?? [],
    ...(o.referenced
      ? {
          message_reference: {
            message_id: o.referenced.id,
            channel_id: o.channelId,
            ...(o.guildId ? { guild_id: o.guildId } : {}),
          },
          referenced_message: o.referenced,
        }
      : {}),
  };
}

/** A guild the bot is in, with its text channels (sent as GUILD_CREATE right after READY). */
export interface FakeGuild {
  id: string;
  channelIds: string[];
}

function guildObject(g: FakeGuild, bot: FakeUser): Record<string, unknown> {
  return {
    id: g.id,
    name: `guild ${g.id}`,
    icon: null,
    owner_id: bot.id,
    unavailable: false,
    member_count: 1,
    large: false,
    joined_at: new Date(0).toISOString(),
    features: [],
    roles: [],
    emojis: [],
    stickers: [],
    members: [],
    presences: [],
    voice_states: [],
    threads: [],
    stage_instances: [],
    guild_scheduled_events: [],
    channels: g.channelIds.map((id, position) => ({
      id,
      type: 0,
      name: `channel-${position}`,
      position,
      permission_overwrites: [],
    })),
  };
}

export async function startFakeDiscord(
  options: { token?: string; bot?: FakeUser; guilds?: FakeGuild[] } = {},
): Promise<FakeDiscord> {
  const guilds = options.guilds ?? [];
  const token = options.token ?? 'fake-discord-token';
  const bot: FakeUser = options.bot ?? {
    id: '900000000000000001',
    username: 'brainbot',
    bot: true,
  };
  const recorder = createRecorder<RecordedCall>();
  const calls = recorder.calls;
  const received: FakeDiscord['received'] = [];
  const messages = new Map<string, Record<string, unknown>>();
  const files = new Map<string, Buffer>();
  let sequence = 0;
  let live: WebSocket | undefined;
  let readyResolve: () => void = () => {};
  const readyPromise = new Promise<void>((r) => (readyResolve = r));

  const http = await serveHttp(async (req, res) => {
    await handle(req, res);
  });
  // The gateway shares the REST server's port: discord.js upgrades GET / to a WebSocket.
  const wss = new WebSocketServer({ server: http.server });
  const port = http.port;
  const apiBase = `${http.url}/api`;

  const send = (payload: Record<string, unknown>) => live?.send(JSON.stringify(payload));
  const dispatch = (t: string, d: unknown) => send({ op: 0, t, s: ++sequence, d });

  wss.on('connection', (ws) => {
    live = ws;
    ws.send(JSON.stringify({ op: 10, d: { heartbeat_interval: 45_000 } }));
    ws.on('message', (raw) => {
      const payload = JSON.parse(String(raw)) as { op: number; d: unknown };
      received.push(payload);
      if (payload.op === 1) ws.send(JSON.stringify({ op: 11 }));
      if (payload.op !== 2) return;
      if (fake.refuseIntents) {
        ws.close(4014, 'Disallowed intent(s).');
        return;
      }
      dispatch('READY', {
        v: 10,
        user: { discriminator: '0', avatar: null, ...bot },
        guilds: guilds.map((g) => ({ id: g.id, unavailable: true })),
        session_id: 'fake-session',
        resume_gateway_url: `ws://127.0.0.1:${port}`,
        shard: [0, 1],
        application: { id: bot.id, flags: 0 },
      });
      for (const g of guilds) dispatch('GUILD_CREATE', guildObject(g, bot));
      readyResolve();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    const raw = bytes.toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = decodeURIComponent(url.pathname).replace(/^\/api\/v\d+/, '');
    const form = parseMultipart(req.headers['content-type'], bytes);
    const body = form
      ? parseJson(String(form.payload_json ?? '{}'))
      : raw && String(req.headers['content-type']).includes('json')
        ? parseJson(raw)
        : undefined;
    const sentFiles = form
      ? Object.values(form).filter((v): v is SentFile => typeof v === 'object' && v !== null)
      : [];
    const call: RecordedCall = {
      method: req.method ?? 'GET',
      path,
      query: url.search,
      authorization: req.headers.authorization,
      body,
      ...(sentFiles.length > 0 ? { files: sentFiles } : {}),
    };
    recorder.record(call);
    const json = (status: number, value: unknown) => sendJson(res, status, value);
    const cdn = call.method === 'GET' ? files.get(path) : undefined;
    if (cdn) return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(cdn);
    if (call.authorization !== `Bot ${token}`)
      return json(401, { message: '401: Unauthorized', code: 0 });

    let m: RegExpMatchArray | null;
    if (call.method === 'GET' && path === '/gateway/bot')
      return json(200, {
        url: `ws://127.0.0.1:${port}`,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 },
      });
    if (call.method === 'GET' && path === '/users/@me')
      return json(200, { discriminator: '0', avatar: null, ...bot });
    if (call.method === 'POST' && (m = path.match(/^\/channels\/(\d+)\/typing$/)))
      return res.writeHead(204).end();
    if (call.method === 'POST' && (m = path.match(/^\/channels\/(\d+)\/messages$/))) {
      const msg = messageObject({
        id: nextId(),
        channelId: m[1]!,
        author: bot,
        content: String(body?.content ?? ''),
        components: body?.components,
      });
      messages.set(msg.id as string, msg);
      return json(200, msg);
    }
    if (call.method === 'PATCH' && (m = path.match(/^\/channels\/(\d+)\/messages\/(\d+)$/))) {
      const msg = messages.get(m[2]!);
      if (!msg) return json(404, { message: 'Unknown Message', code: 10008 });
      if (body && 'content' in body) msg.content = body.content;
      if (body && 'components' in body) msg.components = body.components;
      return json(200, msg);
    }
    if (call.method === 'DELETE' && (m = path.match(/^\/channels\/(\d+)\/messages\/(\d+)$/))) {
      if (!messages.delete(m[2]!)) return json(404, { message: 'Unknown Message', code: 10008 });
      return res.writeHead(204).end();
    }
    if (call.method === 'GET' && (m = path.match(/^\/channels\/(\d+)$/))) {
      const held = [...messages.values()].filter((x) => x.channel_id === m![1]);
      if (held.length === 0) return json(404, { message: 'Unknown Channel', code: 10003 });
      const guildId = held.find((x) => x.guild_id)?.guild_id;
      const other = held.map((x) => x.author as FakeUser).find((a) => a.id !== bot.id);
      return json(
        200,
        guildId
          ? { id: m[1], type: 0, guild_id: guildId, name: `channel ${m[1]}` }
          : {
              id: m[1],
              type: 1,
              recipients: other ? [{ discriminator: '0', avatar: null, ...other }] : [],
            },
      );
    }
    if (call.method === 'GET' && (m = path.match(/^\/channels\/(\d+)\/messages$/))) {
      // As Discord answers `after`: the messages after it, newest first.
      const after = BigInt(url.searchParams.get('after') ?? '0');
      const limit = Number(url.searchParams.get('limit') ?? '50');
      // The oldest `limit` after it, newest first, as Discord pages them.
      const found = [...messages.values()]
        .filter((x) => x.channel_id === m![1] && BigInt(x.id as string) > after)
        .sort((a, b) => (BigInt(a.id as string) < BigInt(b.id as string) ? -1 : 1))
        .slice(0, limit)
        .reverse();
      return json(200, found);
    }
    if (call.method === 'GET' && (m = path.match(/^\/channels\/(\d+)\/messages\/(\d+)$/))) {
      const msg = messages.get(m[2]!);
      return msg ? json(200, msg) : json(404, { message: 'Unknown Message', code: 10008 });
    }
    if (call.method === 'POST' && /^\/interactions\/\d+\/[^/]+\/callback$/.test(path))
      return res.writeHead(204).end();
    return json(404, { message: `fake Discord has no ${call.method} ${path}`, code: 0 });
  }

  const fake: FakeDiscord = {
    apiBase,
    bot,
    token,
    calls,
    received,
    messages,
    refuseIntents: false,
    ready: () => readyPromise,
    dispatchMessage(o) {
      const referenced = o.replyTo ? messages.get(o.replyTo) : undefined;
      if (o.replyTo && !referenced) throw new Error(`fake Discord holds no message ${o.replyTo}`);
      const msg = messageObject({ id: nextId(), ...o, referenced });
      messages.set(msg.id as string, msg);
      dispatch('MESSAGE_CREATE', {
        ...msg,
        channel_type: o.guildId ? 0 : 1,
        ...(o.guildId ? { member: { roles: [] } } : {}),
      });
      return msg;
    },
    addFile(bytes, name, options = {}) {
      const id = nextId();
      const path = `/attachments/${id}/${name}`;
      files.set(path, bytes);
      return {
        id,
        filename: name,
        size: options.size ?? bytes.length,
        url: `${http.url}${path}`,
        proxy_url: `${http.url}${path}`,
        ...(options.contentType ? { content_type: options.contentType } : {}),
      };
    },
    holdMessage(o) {
      const msg = messageObject({ id: nextId(), ...o });
      messages.set(msg.id as string, msg);
      return msg;
    },
    pressButton(o) {
      const message = messages.get(o.messageId);
      if (!message) throw new Error(`fake Discord holds no message ${o.messageId}`);
      const id = nextId();
      const user = { discriminator: '0', avatar: null, ...o.user };
      dispatch('INTERACTION_CREATE', {
        id,
        application_id: bot.id,
        type: 3,
        token: `interaction-token-${id}`,
        version: 1,
        channel_id: message.channel_id,
        channel: { id: message.channel_id, type: o.guildId ? 0 : 1 },
        ...(o.guildId
          ? { guild_id: o.guildId, member: { user, roles: [], permissions: '0' } }
          : { user }),
        message,
        data: { custom_id: o.customId, component_type: 2 },
        locale: 'en-US',
        app_permissions: '0',
        entitlements: [],
        authorizing_integration_owners: {},
      });
      return { id };
    },
    waitForCall: async (test) => (await recorder.waitFor(test))[0]!,
    async close() {
      for (const client of wss.clients) client.terminate();
      wss.close();
      await http.close();
    },
  };
  return fake;
}
