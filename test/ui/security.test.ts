import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startUi } from '../../ui/server.js';
import { tempBrain } from '../helpers.js';
import { csrfOf, startFixture, TOKEN, type UiFixture } from './helpers.js';

let f: UiFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
});

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

async function approve(
  fx: UiFixture,
  headers: Record<string, string>,
  fields: Record<string, string>,
) {
  return fx.get(`/approvals/${fx.seeded.approval}`, {
    method: 'POST',
    headers: { ...FORM, ...headers },
    body: form(fields),
  });
}

describe('approvals through the page', () => {
  it('approves a pending request with the CSRF token from this origin', async () => {
    f = await startFixture();
    const csrf = csrfOf(await (await f.get('/assistant')).text());
    const res = await approve(f, { Origin: f.base }, { csrf, decision: 'approved' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/^\/assistant\?done=/);
    expect(f.brain.assistant.getApproval(f.seeded.approval)).toMatchObject({
      decision: 'approved',
      decided_by: 'owner',
    });
  });

  it.each([
    ['a foreign Origin', (_base: string) => ({ Origin: 'http://evil.example' }), true],
    ['no Origin', () => ({}), true],
    ['no CSRF token', (base: string) => ({ Origin: base }), false],
  ])('refuses a POST with %s and changes nothing', async (_name, headers, withCsrf) => {
    f = await startFixture();
    const csrf = csrfOf(await (await f.get('/assistant')).text());
    const fields: Record<string, string> = { decision: 'approved', ...(withCsrf ? { csrf } : {}) };
    const res = await approve(f, headers(f.base), fields);
    expect(res.status).toBe(403);
    expect(f.brain.assistant.getApproval(f.seeded.approval)?.decision).toBe('pending');
  });

  it('refuses a wrong CSRF token and a decision that is neither approve nor deny', async () => {
    f = await startFixture();
    const csrf = csrfOf(await (await f.get('/assistant')).text());
    expect(
      (await approve(f, { Origin: f.base }, { csrf: csrf.slice(1) + 'x', decision: 'approved' }))
        .status,
    ).toBe(403);
    expect((await approve(f, { Origin: f.base }, { csrf, decision: 'allow' })).status).toBe(400);
    expect(f.brain.assistant.getApproval(f.seeded.approval)?.decision).toBe('pending');
  });
});

describe('who may look', () => {
  it('refuses to start beyond loopback without tokens', async () => {
    const temp = await tempBrain();
    try {
      await expect(
        startUi({ host: '0.0.0.0', port: 0, reader: temp.brain, writer: temp.brain }),
      ).rejects.toThrow(/--host: 0\.0\.0\.0 is not loopback, so --tokens FILE is required/);
    } finally {
      temp.cleanup();
    }
  });

  it('answers only loopback Host names on loopback (DNS rebinding)', async () => {
    f = await startFixture();
    // fetch may not set Host: ask with node:http, as a rebound page's browser would.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(f!.base + '/', { headers: { Host: 'evil.example:7338' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(421);
    expect((await f.get('/')).status).toBe(200);
  });

  it('with tokens, asks for one once and then keeps the viewer in an HttpOnly SameSite=Strict cookie', async () => {
    f = await startFixture({ tokens: true });
    const first = await f.get('/');
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/login');
    expect((await f.get('/events')).status).toBe(401);
    expect(await (await f.get('/login')).text()).toContain('type="password"');

    const wrong = await f.get('/login', {
      method: 'POST',
      headers: { ...FORM, Origin: f.base },
      body: form({ token: 'not-the-token-at-all' }),
    });
    expect(wrong.status).toBe(401);
    const foreign = await f.get('/login', {
      method: 'POST',
      headers: { ...FORM, Origin: 'http://evil.example' },
      body: form({ token: TOKEN }),
    });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('set-cookie')).toBeNull();

    const ok = await f.get('/login', {
      method: 'POST',
      headers: { ...FORM, Origin: f.base },
      body: form({ token: TOKEN }),
    });
    expect(ok.status).toBe(303);
    const cookie = ok.headers.get('set-cookie')!;
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    expect(cookie).not.toMatch(/Secure/);
    const session = cookie.split(';')[0]!;
    const home = await f.get('/', { headers: { Cookie: session } });
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('as owner');
    expect((await f.get('/', { headers: { Cookie: 'brain_ui=forged' } })).status).toBe(303);
  });

  it('with tokens, a POST without the session cookie is refused and changes nothing', async () => {
    f = await startFixture({ tokens: true });
    const res = await approve(f, { Origin: f.base }, { csrf: 'x', decision: 'approved' });
    expect(res.status).toBe(401);
    expect(f.brain.assistant.getApproval(f.seeded.approval)?.decision).toBe('pending');
  });

  it("with tokens, one session's CSRF token does not work for another", async () => {
    f = await startFixture({ tokens: true });
    const login = async () => {
      const ok = await f!.get('/login', {
        method: 'POST',
        headers: { ...FORM, Origin: f!.base },
        body: form({ token: TOKEN }),
      });
      return ok.headers.get('set-cookie')!.split(';')[0]!;
    };
    const a = await login();
    const b = await login();
    const pageA = await (await f.get('/assistant', { headers: { Cookie: a } })).text();
    expect(pageA).toContain('Only the owner answers these.');
    expect(pageA).toMatch(/<button[^>]*disabled/);
    const csrfA = csrfOf(pageA);
    const res = await approve(
      f,
      { Origin: f.base, Cookie: b },
      { csrf: csrfA, decision: 'denied' },
    );
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('CSRF');
    // Its own token passes the CSRF check; an agent's login still does not answer for the owner.
    const own = await approve(
      f,
      { Origin: f.base, Cookie: a },
      { csrf: csrfA, decision: 'denied' },
    );
    expect(own.status).toBe(403);
    expect(await own.text()).toContain('Only the owner answers');
    expect(f.brain.assistant.getApproval(f.seeded.approval)?.decision).toBe('pending');
  });
});
