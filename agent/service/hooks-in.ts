import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER, verifySignature } from '../../src/index.js';
import type { ServiceComponent, ServiceHost } from '../contracts.js';
import { scheduledTurn } from '../scheduler/turn.js';
import type { HookIn } from '../server-config.js';
import { untrusted } from '../untrusted.js';

/**
 * `brain agent`'s incoming hooks: one HTTP listener per hook (loopback unless configured
 * otherwise) that starts a turn with a signed POST's body as untrusted data (a CI result, a
 * monitoring alert, a mail relay). Whoever can sign is still not the owner: the body goes to the
 * model inside an untrusted block, the turn is driven as foreign text (agent/permissions/trust.ts)
 * and unattended, so it never gains the owner's authority. Nothing starts before the signature,
 * the timestamp, the size and the rate are checked.
 */

const MINUTE_MS = 60_000;

/** What a hook remembers: the turns it started in the last minute, the signatures it took. */
interface Seen {
  recent: number[];
  /** Each accepted signature until it falls out of the timestamp window: a replay is refused. */
  signatures: Map<string, number>;
}

export interface HooksInComponent extends ServiceComponent {
  /** Where each hook listens, by name, once started (`http://host:port/`). */
  urls(): Record<string, string>;
}

export function createHooksIn(hooks: readonly HookIn[]): HooksInComponent {
  const servers = new Map<string, Server>();
  return {
    name: 'hooks',
    async start(host) {
      for (const hook of hooks) {
        const seen: Seen = { recent: [], signatures: new Map() };
        const server = createServer((req, res) => void handle(host, hook, seen, req, res));
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(hook.port, hook.host, () => {
            server.off('error', reject);
            resolve();
          });
        });
        servers.set(hook.name, server);
        host.log('info', 'hook.listening', { hook: hook.name, url: urlOf(server) });
      }
    },
    async stop() {
      await Promise.all(
        [...servers.values()].map(
          (s) =>
            new Promise<void>((resolve) => {
              s.closeAllConnections();
              s.close(() => resolve());
            }),
        ),
      );
      servers.clear();
    },
    urls: () => Object.fromEntries([...servers].map(([name, s]) => [name, urlOf(s)])),
  };
}

function urlOf(server: Server): string {
  const { address, port } = server.address() as AddressInfo;
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}/`;
}

async function handle(
  host: ServiceHost,
  hook: HookIn,
  seen: Seen,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const refuse = (code: number, reason: string) => {
    host.log('warn', 'hook.refused', { hook: hook.name, code, reason });
    res.writeHead(code, { 'content-type': 'text/plain' }).end(`${reason}\n`);
  };
  if (req.method !== 'POST') return refuse(405, 'POST only');
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > hook.maxBodyBytes) {
    refuse(413, 'body too large');
    req.destroy();
    return;
  }
  const body = await readLimited(req, hook.maxBodyBytes);
  if (body === undefined) {
    refuse(413, 'body too large');
    req.destroy();
    return;
  }
  const now = host.clock().getTime();
  const check = verifySignature(
    hook.secret,
    body,
    req.headers[SIGNATURE_HEADER] as string | undefined,
    Math.floor(now / 1000),
  );
  if (!check.ok) return refuse(401, `signature ${check.reason}`);
  // A request captured and sent again within the window signs as well as the first: refused.
  const signature = String(req.headers[SIGNATURE_HEADER]);
  for (const [s, until] of seen.signatures) if (until <= now) seen.signatures.delete(s);
  if (seen.signatures.has(signature)) return refuse(409, 'already received');
  // The rate: turns started in the last minute, by the service's clock.
  const { recent } = seen;
  while (recent.length > 0 && recent[0]! <= now - MINUTE_MS) recent.shift();
  if (recent.length >= hook.perMinute) return refuse(429, 'rate limit');
  recent.push(now);
  seen.signatures.set(signature, check.timestamp * 1000 + 2 * DEFAULT_TOLERANCE_SECONDS * 1000);
  const text = [hook.prompt, '', untrusted(`hook:${hook.name}`, body)].join('\n');
  // A payload is someone else's words: the turn is not the owner's to drive, and nobody is
  // there to approve anything.
  scheduledTurn(host, { session: hook.session, text, source: 'hook', foreignText: true });
  host.log('info', 'hook.accepted', { hook: hook.name, bytes: Buffer.byteLength(body) });
  res.writeHead(202, { 'content-type': 'application/json' }).end('{"accepted":true}\n');
}

/** The body as text, or undefined once it passes `max` bytes (the rest is not read). */
function readLimited(req: IncomingMessage, max: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.removeAllListeners('data');
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
