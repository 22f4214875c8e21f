import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAssistant } from '../../../agent/assistant.js';
import { loadAssistantConfig } from '../../../agent/config.js';
import { createMcpManager } from '../../../agent/mcp/manager.js';
import type { ChatMessage, ToolSchema } from '../../../agent/models/types.js';
import { silentLog } from '../../../agent/log.js';
import { systemClock } from '../../../src/index.js';
import { tempBrain } from '../../helpers.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../fakes/anthropic.js';
import { byName, FIXTURE, manualTimers, MEMORY_SERVER, toolContext } from './helpers.js';

/**
 * The MCP tools through the real assistant: createAssistant with `moreTools` from the manager,
 * the real model client talking to the fake Anthropic server, which records every request.
 */

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(file: Record<string, unknown>) {
  const t = await tempBrain();
  cleanups.push(() => t.cleanup());
  const fake: FakeAnthropic = await startFakeAnthropic();
  cleanups.push(() => fake.close());
  const path = join(t.dir, 'assistant.json');
  writeFileSync(
    path,
    JSON.stringify({
      agent: 'assistant',
      owner: 'ann',
      workspace: t.dir,
      models: {
        endpoints: [{ provider: 'anthropic', model: 'claude-fake', baseUrl: fake.baseUrl }],
      },
      ...file,
    }),
  );
  const config = loadAssistantConfig({
    file: path,
    env: { HOME: t.dir, ANTHROPIC_API_KEY: 'sk-test', MEM_FILE: join(t.dir, 'memory.jsonl') },
  });
  const timers = manualTimers();
  const manager = createMcpManager({ config: config.mcp, timers: timers.timers });
  cleanups.push(() => manager.stop());
  await manager.start();
  const assistant = createAssistant({
    brain: t.brain,
    config,
    clock: systemClock,
    log: silentLog,
    moreTools: (session) => manager.tools(session),
  });
  const calls: string[] = [];
  const turn = (text: string, session = 'chat/default', onToolCall?: (name: string) => void) =>
    assistant.turn(
      session,
      text,
      {
        onText: () => {},
        onToolCall: (name) => {
          calls.push(name);
          onToolCall?.(name);
        },
      },
      { unattended: true },
    );
  return { fake, manager, turn, timers, calls };
}

const memory = {
  command: process.execPath,
  args: [MEMORY_SERVER],
  env: { MEMORY_FILE_PATH: '${MEM_FILE}' },
};
const toolsOf = (fake: FakeAnthropic, i: number) => fake.requests[i]!.body.tools as ToolSchema[];
const namesOf = (fake: FakeAnthropic, i: number) => toolsOf(fake, i).map((t) => t.name);
const lastResult = (fake: FakeAnthropic, i: number) =>
  (fake.requests[i]!.body.messages as ChatMessage[]).at(-1)!.content[0] as {
    type: string;
    content: string;
    is_error?: boolean;
  };

describe('MCP tools in a turn', { timeout: 60_000 }, () => {
  it('gives every MCP tool directly while their schemas fit the budget', async () => {
    const s = await setup({ mcpServers: { memory } });
    await s.turn('hello');
    const names = namesOf(s.fake, 0);
    expect(names).toContain('mcp__memory__search_nodes');
    expect(names).not.toContain('find_tools');
  });

  it('hands over find_tools past the budget; the tool it finds is in the next request, for the rest of the session', async () => {
    const s = await setup({ mcpServers: { memory }, mcpToolBudgetTokens: 100 });
    s.fake.script.push(
      { toolUses: [{ name: 'find_tools', input: { query: 'search nodes', limit: 1 } }] },
      { toolUses: [{ name: 'mcp__memory__search_nodes', input: { query: 'Ada' } }] },
      { text: 'Nothing about Ada.' },
      { text: 'Still here.' },
      { text: 'Another session.' },
    );
    const result = await s.turn('what do you know about Ada?');
    expect(result.reply).toBe('Nothing about Ada.');
    const first = namesOf(s.fake, 0);
    expect(first).toContain('find_tools');
    expect(first.filter((n) => n.startsWith('mcp__'))).toEqual([]);
    expect(lastResult(s.fake, 1).content).toContain('mcp__memory__search_nodes');

    const loaded = toolsOf(s.fake, 1).find((t) => t.name === 'mcp__memory__search_nodes');
    expect(loaded?.input_schema).toMatchObject({
      type: 'object',
      properties: { query: { type: 'string' } },
    });
    // The call ran and its answer reached the model as data.
    expect(lastResult(s.fake, 2).is_error).toBeUndefined();
    expect(lastResult(s.fake, 2).content).toMatch(
      /^<untrusted source="tool:mcp__memory__search_nodes">\n\{/,
    );

    await s.turn('and now?');
    expect(namesOf(s.fake, 3)).toContain('mcp__memory__search_nodes');
    await s.turn('hi', 'chat/other');
    expect(namesOf(s.fake, 4)).not.toContain('mcp__memory__search_nodes');
    expect(s.manager.budget()).toMatchObject({ budget: 100, findTools: true });
  });

  it('asks before tools that change things (denied unattended) and allows read-only ones', async () => {
    const s = await setup({ mcpServers: { memory } });
    s.fake.script.push(
      {
        toolUses: [
          { name: 'mcp__memory__create_entities', input: { entities: [] } },
          { name: 'mcp__memory__read_graph', input: {} },
        ],
      },
      { text: 'ok' },
    );
    await s.turn('remember nothing');
    const results = (s.fake.requests[1]!.body.messages as ChatMessage[]).at(-1)!.content as Array<{
      content: string;
      is_error?: boolean;
    }>;
    expect(results[0]).toMatchObject({ is_error: true });
    expect(results[0]!.content).toMatch(/unattended/);
    expect(results[1]!.is_error).toBeUndefined();
    expect(s.calls).toEqual(['mcp__memory__read_graph']);
  });

  it('lets permissions name mcp__server__* to allow a server', async () => {
    const s = await setup({
      mcpServers: { memory },
      permissions: { tools: { 'mcp__memory__*': 'allow', mcp__memory__delete_entities: 'deny' } },
    });
    s.fake.script.push(
      {
        toolUses: [
          {
            name: 'mcp__memory__create_entities',
            input: { entities: [{ name: 'Ada', entityType: 'person', observations: [] }] },
          },
          { name: 'mcp__memory__delete_entities', input: { entityNames: ['Ada'] } },
        ],
      },
      { text: 'ok' },
    );
    await s.turn('remember Ada');
    expect(s.calls).toEqual(['mcp__memory__create_entities']);
  });

  it('answers a call whose server dies mid-call with an error; the server comes back for the next turn', async () => {
    // The owner is not there to approve hang (not read-only): the config allows the server.
    const s = await setup({
      mcpServers: { fix: { command: process.execPath, args: [FIXTURE] } },
      permissions: { tools: { 'mcp__fix__*': 'allow' } },
    });
    const pid = Number(
      (await byName(s.manager.tools('x'), 'mcp__fix__pid').run({}, toolContext())).content,
    );
    s.fake.script.push(
      { toolUses: [{ name: 'mcp__fix__hang', input: {} }] },
      { text: 'It broke.' },
      { toolUses: [{ name: 'mcp__fix__echo', input: { id: 'back' } }] },
      { text: 'It works.' },
    );
    await s.turn('hang', 'chat/default', (name) => {
      if (name === 'mcp__fix__hang') process.kill(pid, 'SIGKILL');
    });
    expect(lastResult(s.fake, 1)).toMatchObject({ is_error: true });
    expect(lastResult(s.fake, 1).content).toMatch(/connection closed/i);
    await vi.waitFor(() => expect(s.timers.delays()).toEqual([1000]), 15_000);
    s.timers.fire();
    await vi.waitFor(() => expect(s.manager.status()[0]!.connected).toBe(true), 15_000);
    await s.turn('again');
    expect(lastResult(s.fake, 3).content).toContain('echo back');
  });
});
