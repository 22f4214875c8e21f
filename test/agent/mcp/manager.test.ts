import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMcpManager, type McpManager } from '../../../agent/mcp/manager.js';
import type { McpConfig } from '../../../agent/mcp/config.js';
import { toolSchemas } from '../../../agent/tools/registry.js';
import { byName, FIXTURE, manualTimers, stdio, toolContext } from './helpers.js';

let manager: McpManager | undefined;
afterEach(async () => {
  await manager?.stop();
  manager = undefined;
});

function config(servers: McpConfig['servers'], extra: Partial<McpConfig> = {}): McpConfig {
  return { servers, errors: [], toolBudgetTokens: 8000, ...extra };
}

async function started(c: McpConfig, timers = manualTimers()) {
  manager = createMcpManager({ config: c, timers: timers.timers });
  await manager.start();
  return manager;
}

const text = async (tool: Tool, input: unknown, signal?: AbortSignal) =>
  tool.run(input, toolContext(signal));
type Tool = ReturnType<McpManager['tools']>[number];

describe('the MCP manager against a real stdio server', { timeout: 60_000 }, () => {
  // Reads that change nothing share one manager and one fixture process.
  describe('one fixture server, shared', () => {
    let m: McpManager;
    beforeAll(async () => {
      m = createMcpManager({
        config: config([stdio('fix', [FIXTURE])]),
        timers: manualTimers().timers,
      });
      await m.start();
    });
    afterAll(() => m.stop());

    it('lists every page of tools and names them mcp__server__tool with the server schema', async () => {
      const names = m.tools('s').map((t) => t.name);
      // Six tools come in three pages of two: all of them are there.
      expect(names).toEqual([
        'mcp__fix__echo',
        'mcp__fix__hang',
        'mcp__fix__media',
        'mcp__fix__fail',
        'mcp__fix__grow',
        'mcp__fix__pid',
      ]);
      const [schema] = toolSchemas([byName(m.tools('s'), 'mcp__fix__echo')]);
      expect(schema!.input_schema).toEqual({
        type: 'object',
        properties: { id: { type: 'string' }, delayMs: { type: 'number' } },
        required: ['id'],
      });
      expect(byName(m.tools('s'), 'mcp__fix__echo').readOnly).toBe(true);
      expect(byName(m.tools('s'), 'mcp__fix__grow').readOnly).toBe(false);
    });

    it('answers text as untrusted, describes images and resources, and keeps isError', async () => {
      const media = await text(byName(m.tools('s'), 'mcp__fix__media'), {});
      expect(media.untrusted).toBe(true);
      expect(media.content).toBe(
        [
          'here they are',
          '[image: image/png, 2.9 KiB]',
          '[resource: file:///notes/a.txt, text/plain, 6 B]',
          'note A',
          '[resource link: file:///big.bin (big), application/octet-stream]',
        ].join('\n'),
      );
      const failed = await text(byName(m.tools('s'), 'mcp__fix__fail'), {});
      expect(failed).toEqual({ content: 'it broke', isError: true, untrusted: true });
    });

    it('gives each of 20 concurrent calls to one process its own answer', async () => {
      const echo = byName(m.tools('s'), 'mcp__fix__echo');
      // Later calls wait less, so the server answers them out of order.
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => text(echo, { id: `c${i}`, delayMs: (20 - i) * 5 })),
      );
      expect(answers.map((a) => a.content)).toEqual(
        Array.from({ length: 20 }, (_, i) => `echo c${i}`),
      );
    });
  });

  it('keeps only enabledTools, and drops disabledTools', async () => {
    const m = await started(
      config([
        stdio('a', [FIXTURE], { enabledTools: ['echo', 'pid'] }),
        stdio('b', [FIXTURE], { disabledTools: ['hang', 'grow', 'media', 'fail'] }),
      ]),
    );
    expect(m.tools('s').map((t) => t.name)).toEqual([
      'mcp__a__echo',
      'mcp__a__pid',
      'mcp__b__echo',
      'mcp__b__pid',
    ]);
  });

  it('refreshes a server tools when it sends tools/list_changed', async () => {
    const m = await started(config([stdio('fix', [FIXTURE])]));
    await text(byName(m.tools('s'), 'mcp__fix__grow'), {});
    await vi.waitFor(
      () => expect(m.tools('s').map((t) => t.name)).toContain('mcp__fix__extra_6'),
      15_000,
    );
    const ran = await text(byName(m.tools('s'), 'mcp__fix__extra_6'), {});
    expect(ran.content).toBe('ran extra_6');
  });

  it('fails a call that outlives timeoutSeconds, and one whose turn is cancelled', async () => {
    const m = await started(config([stdio('fix', [FIXTURE], { timeoutMs: 200 })]));
    const hang = byName(m.tools('s'), 'mcp__fix__hang');
    const timedOut = await text(hang, {});
    expect(timedOut.isError).toBe(true);
    expect(timedOut.content).toMatch(/timed out/i);
    const controller = new AbortController();
    const cancelled = text(hang, {}, controller.signal);
    controller.abort(new Error('turn cancelled'));
    expect((await cancelled).content).toMatch(/turn cancelled/);
  });

  it('takes a server that dies mid-call out, restarts it after backoff, and the next call works', async () => {
    const timers = manualTimers();
    const m = await started(config([stdio('fix', [FIXTURE])]), timers);
    const pid = Number((await text(byName(m.tools('s'), 'mcp__fix__pid'), {})).content);
    const pending = text(byName(m.tools('s'), 'mcp__fix__hang'), {});
    process.kill(pid, 'SIGKILL');
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/connection closed/i);
    await vi.waitFor(() => expect(m.status()[0]!.state).toBe('waiting'), 15_000);
    expect(m.tools('s')).toEqual([]);
    expect(m.status()[0]!.lastError).toMatch(/connection closed/);
    expect(timers.delays()).toEqual([1000]);
    timers.fire();
    await vi.waitFor(() => expect(m.status()[0]!.connected).toBe(true), 15_000);
    expect(m.status()[0]!.restarts).toBe(1);
    const again = await text(byName(m.tools('s'), 'mcp__fix__pid'), {});
    expect(Number(again.content)).not.toBe(pid);
  });

  it('waits 1 s, 2 s, 4 s … up to 60 s between attempts at a server that will not start', async () => {
    const timers = manualTimers();
    const m = await started(config([stdio('bad', ['-e', 'process.exit(3)'])]), timers);
    expect(m.status()[0]).toMatchObject({ connected: false, state: 'waiting', tools: 0 });
    expect(m.status()[0]!.lastError).toBeTruthy();
    const seen: number[] = [];
    for (let i = 0; i < 8; i++) {
      await vi.waitFor(() => expect(timers.delays()).toHaveLength(1), 15_000);
      seen.push(...timers.fire());
    }
    expect(seen).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000]);
  });

  it('applies a new mcpServers live: added servers start, removed stop, changed restart', async () => {
    const a = stdio('a', [FIXTURE], { enabledTools: ['pid'] });
    const b = stdio('b', [FIXTURE], { enabledTools: ['pid'] });
    const m = await started(config([a, b]));
    const pidOf = async (server: string) =>
      Number((await text(byName(m.tools('s'), `mcp__${server}__pid`), {})).content);
    const aPid = await pidOf('a');
    const bPid = await pidOf('b');
    await m.apply(
      config([
        a,
        { ...b, enabledTools: ['pid', 'echo'] },
        stdio('c', [FIXTURE], { enabledTools: ['pid'] }),
      ]),
    );
    expect(m.status().map((s) => [s.name, s.connected])).toEqual([
      ['a', true],
      ['b', true],
      ['c', true],
    ]);
    expect(await pidOf('a')).toBe(aPid);
    expect(await pidOf('b')).not.toBe(bPid);
    expect(m.tools('s').map((t) => t.name)).toContain('mcp__b__echo');
    await m.apply(config([a]));
    expect(m.tools('s').map((t) => t.name)).toEqual(['mcp__a__pid']);
    expect(() => process.kill(bPid, 0)).toThrow();
  });
});
