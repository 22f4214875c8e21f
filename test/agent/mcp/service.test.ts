import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadAssistantConfig } from '../../../agent/config.js';
import { buildComponents } from '../../../agent/service/components.js';
import type { ServiceComponent } from '../../../agent/contracts.js';
import type { ToolSchema } from '../../../agent/models/types.js';
import {
  configFileBody,
  serviceFixture,
  TEST_ENV,
  type ServiceFixture,
} from '../service/helpers.js';
import { FIXTURE, MEMORY_SERVER } from './helpers.js';

/** The MCP client as `brain agent` runs it: built by buildComponents, started on the real host. */

let s: ServiceFixture | undefined;
let mcp: ServiceComponent | undefined;
afterEach(async () => {
  await mcp?.stop();
  await s?.close();
  mcp = s = undefined;
});

const fix = (tools: string[]) => ({
  command: process.execPath,
  args: [FIXTURE],
  enabledTools: tools,
});

describe('the mcp component in the service', { timeout: 60_000 }, () => {
  it('gives its tools to turns queued on the host, and reloads mcpServers live', async () => {
    s = await serviceFixture({
      file: { mcpServers: { a: fix(['echo']), broken: { command: '' } } },
    });
    mcp = (
      await buildComponents(s.config, { brain: s.t.brain, clock: s.host.clock, log: s.log })
    ).find((c) => c.name === 'mcp')!;
    s.host.setComponents([mcp]);
    await mcp.start(s.host);
    expect(s.logs).toContainEqual({
      level: 'warn',
      event: 'mcp.config_refused',
      fields: { server: 'broken', error: 'mcpServers.broken.command: must not be empty' },
    });

    s.fake.script.push(
      { toolUses: [{ name: 'mcp__a__echo', input: { id: 'one' } }] },
      { text: 'done' },
    );
    const turn = s.host.enqueue({
      session: 'telegram/1',
      text: 'echo one',
      source: 'channel',
      priority: 'owner',
      unattended: true,
      io: { onText() {} },
    });
    expect((await turn.done).reply).toBe('done');
    const names = (i: number) =>
      (s!.fake.requests[i]!.body.tools as ToolSchema[]).map((t) => t.name);
    expect(names(0)).toContain('mcp__a__echo');
    expect(JSON.stringify(s.fake.requests[1]!.body.messages)).toContain('echo one');

    // The file changes: a is gone, memory is added.
    const body = configFileBody(s.fake.baseUrl, s.t.dir, {
      mcpServers: {
        memory: {
          command: process.execPath,
          args: [MEMORY_SERVER],
          env: { MEMORY_FILE_PATH: join(s.t.dir, 'm.jsonl') },
        },
      },
    });
    writeFileSync(s.configPath, JSON.stringify(body));
    await mcp.reconfigure!(loadAssistantConfig({ file: s.configPath, env: TEST_ENV }));
    const origin = {
      owner: true,
      driver: 'owner',
      priority: 'owner',
      source: 'channel',
      unattended: false,
    } as const;
    const tools = mcp.tools!('telegram/1', origin).map((t) => t.name);
    expect(tools).toContain('mcp__memory__read_graph');
    expect(tools).not.toContain('mcp__a__echo');

    const checks = await mcp.check!(s.host);
    expect(checks).toEqual([
      { name: 'mcp memory', ok: true, detail: 'connected (stdio), 9 tools' },
    ]);
  });
});
