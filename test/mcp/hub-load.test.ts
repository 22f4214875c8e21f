import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runHubLoad } from '../../bench/hub-run.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the hub under load (bench/hub-load.ts, briefly)', () => {
  it('serves several agents at once with no failed call, every send stored once and pushed', async () => {
    dir = mkdtempSync(join(tmpdir(), 'brain-hub-test-'));
    const r = await runHubLoad({ dir, agents: 4, seconds: 1.5, thinkMs: 20 });
    expect(r.errorSamples).toEqual([]);
    expect(r.errors).toBe(0);
    expect(r.acked).toBeGreaterThan(10);
    expect(r.missing).toBe(0);
    expect(r.doubled).toBe(0);
    expect(r.notify.count).toBe(r.acked);
    expect(r.notify.missed).toBe(0);
    expect(r.ops.search.count + r.ops.poll.count).toBeGreaterThan(0);
  });
});
