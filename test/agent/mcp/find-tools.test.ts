import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { searchTools } from '../../../agent/mcp/find-tools.js';
import { createMcpManager, type McpManager } from '../../../agent/mcp/manager.js';
import { exposedName } from '../../../agent/mcp/tools.js';
import type { Tool } from '../../../agent/tools/types.js';
import { byName, FIXTURE, manualTimers, stdio, toolContext } from './helpers.js';

let manager: McpManager | undefined;
afterEach(async () => {
  await manager?.stop();
  manager = undefined;
});

const tool = (name: string, description: string): Tool => ({
  name,
  description,
  schema: z.any(),
  readOnly: true,
  run: async () => ({ content: '' }),
});

describe('find_tools', { timeout: 60_000 }, () => {
  it('ranks an exact name first, then name matches above description matches', () => {
    const tools = [
      tool('mcp__gh__list_issues', 'List issues of a repository'),
      tool('mcp__fs__read_file', 'Read a file; can list issues found in it'),
      tool('mcp__gh__create_issue', 'Open an issue'),
    ];
    expect(searchTools(tools, 'list issues', 5).map((t) => t.name)).toEqual([
      'mcp__gh__list_issues',
      'mcp__fs__read_file',
    ]);
    expect(searchTools(tools, 'mcp__gh__create_issue', 1).map((t) => t.name)).toEqual([
      'mcp__gh__create_issue',
    ]);
    expect(searchTools(tools, 'calendar', 5)).toEqual([]);
  });

  it('starts a lazy server on first use and loads what it finds for that session only', async () => {
    manager = createMcpManager({
      config: {
        servers: [stdio('later', [FIXTURE], { lazy: true })],
        errors: [],
        toolBudgetTokens: 8000,
      },
      timers: manualTimers().timers,
    });
    await manager.start();
    expect(manager.status()[0]).toMatchObject({ state: 'idle', connected: false });
    expect(manager.tools('a').map((t) => t.name)).toEqual(['find_tools']);

    const found = await byName(manager.tools('a'), 'find_tools').run(
      { query: 'echo', limit: 5 },
      toolContext(undefined, 'a'),
    );
    expect(found.content).toContain('mcp__later__echo');
    expect(manager.status()[0]!.connected).toBe(true);
    expect(manager.tools('a').map((t) => t.name)).toEqual(['find_tools', 'mcp__later__echo']);
    expect(manager.tools('b').map((t) => t.name)).toEqual(['find_tools']);
    const echoed = await byName(manager.tools('a'), 'mcp__later__echo').run(
      { id: 'x' },
      toolContext(),
    );
    expect(echoed.content).toBe('echo x');
  });
});

describe('MCP tool names', () => {
  it('are mcp__server__tool, with other characters made _ and long ones cut to 64 with a hash', () => {
    expect(exposedName('gh', 'list.issues')).toBe('mcp__gh__list_issues');
    const long = exposedName('server', 'x'.repeat(100));
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^mcp__server__x+_[0-9a-f]{8}$/);
    expect(exposedName('server', 'x'.repeat(100) + 'y')).not.toBe(long);
  });
});
