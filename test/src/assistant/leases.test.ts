import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { leaseHolder } from '../../../src/index.js';
import { ROOT, fixedClock, tempBrain, type TempBrain } from '../../helpers.js';

let t: TempBrain | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

const KEY = 'session:chat/default';

describe('leases', () => {
  it('gives a lease to one connection at a time and to the other once it is released', async () => {
    t = await tempBrain();
    const a = t.brain;
    const b = await t.reopen();
    const first = leaseHolder('turn-1');
    const second = leaseHolder('turn-2');
    expect(a.assistant.acquireLease({ key: KEY, holder: first, ttl_ms: 60_000 })).toBe(true);
    expect(b.assistant.acquireLease({ key: KEY, holder: second, ttl_ms: 60_000 })).toBe(false);
    // Another key is another lease: sessions run side by side.
    expect(
      b.assistant.acquireLease({ key: 'session:chat/other', holder: second, ttl_ms: 60_000 }),
    ).toBe(true);
    // Only its holder releases it.
    b.assistant.releaseLease({ key: KEY, holder: second });
    expect(b.assistant.getLease(KEY)?.holder).toEqual(first);
    a.assistant.releaseLease({ key: KEY, holder: first });
    expect(b.assistant.acquireLease({ key: KEY, holder: second, ttl_ms: 60_000 })).toBe(true);
    expect(a.assistant.getLease(KEY)?.holder).toEqual(second);
  });

  it('lets its holder take it again (a renewal) and renew it', async () => {
    const clock = fixedClock('2026-03-01T10:00:00.000Z');
    t = await tempBrain({ clock });
    const me = leaseHolder('turn');
    expect(t.brain.assistant.acquireLease({ key: KEY, holder: me, ttl_ms: 1000 })).toBe(true);
    clock.tick(500);
    expect(t.brain.assistant.acquireLease({ key: KEY, holder: me, ttl_ms: 1000 })).toBe(true);
    expect(t.brain.assistant.getLease(KEY)).toMatchObject({
      acquired_at: '2026-03-01T10:00:00.000Z',
      expires_at: '2026-03-01T10:00:01.500Z',
    });
    expect(t.brain.assistant.renewLease({ key: KEY, holder: me, ttl_ms: 10_000 })).toBe(true);
    expect(t.brain.assistant.getLease(KEY)?.expires_at).toBe('2026-03-01T10:00:10.500Z');
  });

  it('is taken over once it expires, and its old holder can then neither renew nor release it', async () => {
    const clock = fixedClock('2026-03-01T10:00:00.000Z');
    t = await tempBrain({ clock });
    const a = t.brain;
    const b = await t.reopen();
    const first = leaseHolder('turn-1');
    const second = leaseHolder('turn-2');
    expect(a.assistant.acquireLease({ key: KEY, holder: first, ttl_ms: 30_000 })).toBe(true);
    clock.tick(29_999);
    expect(b.assistant.acquireLease({ key: KEY, holder: second, ttl_ms: 30_000 })).toBe(false);
    clock.tick(1);
    expect(b.assistant.acquireLease({ key: KEY, holder: second, ttl_ms: 30_000 })).toBe(true);
    expect(a.assistant.renewLease({ key: KEY, holder: first, ttl_ms: 30_000 })).toBe(false);
    a.assistant.releaseLease({ key: KEY, holder: first });
    expect(a.assistant.getLease(KEY)?.holder).toEqual(second);
  });

  it('waits for the expiry of a holder on another host, whose pid it cannot check', async () => {
    const clock = fixedClock();
    t = await tempBrain({ clock });
    const far = { pid: 2 ** 22 + 7, host: `${hostname()}-elsewhere`, label: 'turn' };
    expect(t.brain.assistant.acquireLease({ key: KEY, holder: far, ttl_ms: 5000 })).toBe(true);
    expect(
      t.brain.assistant.acquireLease({ key: KEY, holder: leaseHolder('x'), ttl_ms: 5000 }),
    ).toBe(false);
    clock.tick(5000);
    expect(
      t.brain.assistant.acquireLease({ key: KEY, holder: leaseHolder('x'), ttl_ms: 5000 }),
    ).toBe(true);
  });

  it('takes over at once from a process of this host that was killed holding it', async () => {
    t = await tempBrain();
    const script = `
      import { openBrain, leaseHolder } from ${JSON.stringify(join(ROOT, 'dist', 'src', 'index.js'))};
      const brain = await openBrain({ dbPath: process.argv[1] });
      const ok = brain.assistant.acquireLease({ key: ${JSON.stringify(KEY)}, holder: leaseHolder('turn'), ttl_ms: 3600000 });
      console.log(ok ? 'held ' + process.pid : 'refused');
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, t.path], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise((resolve) => child.on('close', resolve));
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('close', () => reject(new Error(`child exited: ${err}`)));
    });
    expect(line).toBe(`held ${child.pid}`);
    const me = leaseHolder('turn');
    // Alive, the child keeps it.
    expect(t.brain.assistant.acquireLease({ key: KEY, holder: me, ttl_ms: 60_000 })).toBe(false);
    child.kill('SIGKILL');
    await exited;
    expect(t.brain.assistant.getLease(KEY)?.holder.pid).toBe(child.pid);
    expect(t.brain.assistant.acquireLease({ key: KEY, holder: me, ttl_ms: 60_000 })).toBe(true);
    expect(t.brain.assistant.getLease(KEY)?.holder).toEqual(me);
  });

  it('refuses bad input naming the field', async () => {
    t = await tempBrain();
    expect(() =>
      t!.brain.assistant.acquireLease({ key: '', holder: leaseHolder('x'), ttl_ms: 1000 }),
    ).toThrow(/key: must not be empty/);
    expect(() =>
      t!.brain.assistant.acquireLease({
        key: KEY,
        holder: { pid: 0, host: 'h', label: '' },
        ttl_ms: 1000,
      }),
    ).toThrow(/holder\.pid:/);
    expect(() =>
      t!.brain.assistant.acquireLease({ key: KEY, holder: leaseHolder('x'), ttl_ms: 0 }),
    ).toThrow(/ttl_ms:/);
    expect(t!.brain.assistant.getLease(KEY)).toBeUndefined();
  });
});
