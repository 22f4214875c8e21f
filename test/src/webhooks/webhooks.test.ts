import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { verifySignature, signPayload, type Webhook } from '../../../src/index.js';
import { readBody, serveHttp, type HttpFake } from '../../fakes/http.js';
import { fixedClock, tempBrain, type TempBrain } from '../../helpers.js';

const SECRET = 'a-secret-of-sixteen-or-more';

/** The receiver of docs/webhooks.md, as written there (the clock made a parameter). */
function docsVerify(header: string | undefined, body: string, nowSeconds: number): boolean {
  if (!header) return false;
  let t: number | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const i = part.indexOf('=');
    const [key, value] = [part.slice(0, i).trim(), part.slice(i + 1).trim()];
    if (key === 't') t = Number(value);
    if (key === 'v1') v1.push(value);
  }
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t!) > 300) return false;
  const expected = createHmac('sha256', SECRET).update(`${t}.${body}`).digest();
  return v1.some((sig) => {
    const given = Buffer.from(sig, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A loopback receiver answering with the statuses it is given, in turn (the last one repeats). */
async function receiver(statuses: number[]): Promise<HttpFake & { got: Received[] }> {
  const got: Received[] = [];
  const fake = await serveHttp(async (req, res) => {
    got.push({ headers: req.headers, body: await readBody(req) });
    res.writeHead(statuses[Math.min(got.length - 1, statuses.length - 1)]!).end();
  });
  return Object.assign(fake, { got });
}

function hook(url: string, over: Partial<Webhook> = {}): Webhook {
  return {
    name: 'ci',
    url,
    secret: SECRET,
    events: ['message', 'mention', 'thread.closed', 'knowledge'],
    agents: undefined,
    includeBodies: false,
    maxAttempts: 3,
    ...over,
  };
}

let t: TempBrain | undefined;
let fake: (HttpFake & { got: Received[] }) | undefined;
afterEach(async () => {
  await fake?.close();
  t?.cleanup();
  t = fake = undefined;
});

describe('webhooks out', () => {
  it('posts a signed, ids-only payload that a receiver written from the docs verifies', async () => {
    const clock = fixedClock('2026-11-24T10:00:00.000Z');
    t = await tempBrain({ clock });
    fake = await receiver([204]);
    const worker = t.brain.webhooks.worker([hook(`${fake.url}/hook`)]);
    await worker.tick(); // the marks start at the newest rows: history is not posted
    const sent = t.brain.messages.send({
      from: 'helios',
      to: 'nova',
      subject: 'fees',
      body: 'the secret plan @nova',
    });
    const result = await worker.tick();
    expect(result).toEqual({ queued: 2, delivered: 2, failed: 0 });
    expect(fake.got).toHaveLength(2);
    const now = clock().getTime() / 1000;
    for (const r of fake.got) {
      expect(docsVerify(r.headers['brain-signature'] as string, r.body, now)).toBe(true);
      // The same request, a byte changed, or too late: refused.
      expect(docsVerify(r.headers['brain-signature'] as string, `${r.body} `, now)).toBe(false);
      expect(docsVerify(r.headers['brain-signature'] as string, r.body, now + 301)).toBe(false);
      expect(r.body).not.toContain('secret plan');
    }
    const events = fake.got.map((r) => JSON.parse(r.body) as { event: string; data: unknown });
    expect(events).toEqual([
      {
        event: 'message',
        occurred_at: '2026-11-24T10:00:00.000Z',
        data: { message_id: sent.id, thread_id: sent.thread_id, from: 'helios', to: ['nova'] },
      },
      {
        event: 'mention',
        occurred_at: '2026-11-24T10:00:00.000Z',
        data: {
          message_id: sent.id,
          thread_id: sent.thread_id,
          from: 'helios',
          mentioned: ['nova'],
        },
      },
    ]);
    const [delivered] = t.brain.webhooks.deliveries({ status: 'delivered' });
    expect(delivered).toMatchObject({ hook: 'ci', attempts: 1, last_code: 204 });
    expect(fake.got[1]!.headers['brain-delivery']).toBe(delivered!.id);
  });

  it('tells of closed threads and new knowledge, filters by agent, and adds bodies only when asked', async () => {
    t = await tempBrain({ clock: fixedClock() });
    fake = await receiver([200]);
    const worker = t.brain.webhooks.worker([
      hook(`${fake.url}/a`, { name: 'nova-only', agents: ['nova'], includeBodies: true }),
    ]);
    await worker.tick();
    t.brain.messages.send({ from: 'helios', to: 'atlas', subject: 's', body: 'not for nova' });
    const m = t.brain.messages.send({ from: 'helios', to: 'nova', subject: 's', body: 'for nova' });
    t.brain.messages.setThreadStatus(m.thread_id, 'closed');
    const s = t.brain.knowledge.remember({
      agent: 'nova',
      content: 'fees are due',
      source_message_id: m.id,
    });
    await worker.tick();
    const bodies = fake.got.map(
      (r) => JSON.parse(r.body) as { event: string; data: Record<string, unknown> },
    );
    expect(bodies.map((b) => b.event)).toEqual(['message', 'knowledge', 'thread.closed']);
    expect(bodies[0]!.data.body).toBe('for nova');
    expect(bodies[1]!.data).toMatchObject({ type: 'stm', id: s.id, source_message_id: m.id });
    expect(bodies[2]!.data).toEqual({ thread_id: m.thread_id });
  });

  it('retries with doubling waits by the clock, then drops to the dead letters, and replays', async () => {
    const clock = fixedClock();
    t = await tempBrain({ clock });
    fake = await receiver([500, 503, 500, 204]);
    const failures: string[] = [];
    const worker = t.brain.webhooks.worker([hook(`${fake.url}/h`, { events: ['message'] })], {
      onFailure: (name, reason) => failures.push(`${name}: ${reason}`),
    });
    await worker.tick();
    t.brain.messages.send({ from: 'helios', to: 'nova', subject: 's', body: 'x' });
    expect(await worker.tick()).toEqual({ queued: 1, delivered: 0, failed: 1 });
    let [d] = t.brain.webhooks.deliveries();
    expect(d).toMatchObject({ status: 'pending', attempts: 1, last_code: 500 });
    expect(d!.next_attempt_at).toBe('2026-01-01T00:00:01.000Z');
    clock.tick(999);
    await worker.tick();
    expect(fake.got).toHaveLength(1); // not due yet
    clock.tick(1);
    await worker.tick();
    expect(fake.got).toHaveLength(2);
    [d] = t.brain.webhooks.deliveries();
    expect(d).toMatchObject({
      attempts: 2,
      last_code: 503,
      next_attempt_at: '2026-01-01T00:00:03.000Z',
    });
    clock.tick(2000);
    await worker.tick();
    [d] = t.brain.webhooks.deliveries({ status: 'dead' });
    expect(d).toMatchObject({ attempts: 3, last_error: 'HTTP 500', next_attempt_at: null });
    expect(failures.at(-1)).toBe('ci: HTTP 500 (dead letter)');
    clock.tick(3_600_000);
    await worker.tick();
    expect(fake.got).toHaveLength(3); // a dead letter is not tried again by itself
    const replayed = t.brain.webhooks.replay(d!.id);
    expect(replayed).toMatchObject({ status: 'pending', attempts: 0 });
    await worker.tick();
    expect(fake.got).toHaveLength(4);
    expect(fake.got[3]!.body).toBe(fake.got[0]!.body);
    expect(t.brain.webhooks.deliveries({ status: 'delivered' })).toHaveLength(1);
    expect(t.brain.webhooks.deliveries({ status: 'dead' })).toHaveLength(0);
    expect(() => t!.brain.webhooks.replay('whd_999')).toThrow(/no webhook delivery whd_999/);
    expect(() => t!.brain.webhooks.replay('nope')).toThrow(/id: must be a delivery id/);
  });

  it('never follows a redirect: a 3xx answer is a failure, retried', async () => {
    t = await tempBrain({ clock: fixedClock() });
    fake = await receiver([302]);
    const worker = t.brain.webhooks.worker([hook(`${fake.url}/r`, { events: ['message'] })]);
    await worker.tick();
    t.brain.messages.send({ from: 'helios', to: 'nova', subject: 's', body: 'x' });
    await worker.tick();
    expect(t.brain.webhooks.deliveries()[0]).toMatchObject({ status: 'pending', last_code: 302 });
    expect(fake.got).toHaveLength(1);
  });
  it('two servers with the same hook post each event once; a server with another hook tells its own', async () => {
    t = await tempBrain({ clock: fixedClock() });
    fake = await receiver([204]);
    const other = await t.reopen();
    const same = hook(`${fake.url}/same`, { events: ['message'] });
    const serve = t.brain.webhooks.worker([same]);
    const agent = other.webhooks.worker([
      same,
      hook(`${fake.url}/own`, { name: 'own', events: ['message'] }),
    ]);
    await Promise.all([serve.tick(), agent.tick()]);
    t.brain.messages.send({ from: 'helios', to: 'nova', subject: 's', body: 'x' });
    other.messages.send({ from: 'nova', to: 'helios', subject: 's', body: 'y' });
    await Promise.all([serve.tick(), agent.tick()]);
    await Promise.all([serve.tick(), agent.tick()]);
    const urls = fake.got.map((r) => JSON.parse(r.body) as { data: { from: string } });
    expect(urls.map((u) => u.data.from).sort()).toEqual(['helios', 'helios', 'nova', 'nova']);
    expect(t.brain.webhooks.deliveries({ hook: 'ci' })).toHaveLength(2);
    expect(t.brain.webhooks.deliveries({ hook: 'own' })).toHaveLength(2);
  });
});

describe('the signature', () => {
  it('refuses a missing, malformed, stale or wrong signature and accepts a rotated one', () => {
    const body = '{"event":"message"}';
    const header = signPayload(SECRET, body, 1_000_000);
    expect(verifySignature(SECRET, body, header, 1_000_100)).toEqual({
      ok: true,
      timestamp: 1_000_000,
    });
    expect(verifySignature(SECRET, body, undefined, 1_000_000)).toEqual({
      ok: false,
      reason: 'missing',
    });
    expect(verifySignature(SECRET, body, 'v1=zz', 1_000_000)).toEqual({
      ok: false,
      reason: 'malformed',
    });
    expect(verifySignature(SECRET, body, header, 1_000_301)).toEqual({
      ok: false,
      reason: 'stale',
    });
    expect(verifySignature('another-secret-entirely', body, header, 1_000_000)).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    const rotated = `${signPayload('the-old-secret-0000', body, 1_000_000)},${header.split(',')[1]}`;
    expect(verifySignature(SECRET, body, rotated, 1_000_000).ok).toBe(true);
  });
});
