import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StdioClientTransport,
  getDefaultEnvironment,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, type CreateMcpServerOptions } from '../../mcp/server.js';
import type { Brain } from '../../src/index.js';
import { CLI } from '../helpers.js';

export interface Connected {
  client: Client;
  close(): Promise<void>;
}

/** The real SDK client and our server, linked in memory. */
export async function connectInMemory(
  brain: Brain,
  options: CreateMcpServerOptions,
): Promise<Connected> {
  const server = createMcpServer(brain, options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test', version: '1.0.0' });
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** Call a tool; the structured result, or a thrown error with the tool's message. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(textOf(result));
  return result.structuredContent as any;
}

export async function callRaw(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

/** The real SDK client talking to a spawned `brain mcp` (the built bin) over stdio. */
export async function connectStdio(
  dbPath: string,
  agent: string,
): Promise<Connected & { stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--agent', agent, '--db', dbPath],
    env: { ...getDefaultEnvironment(), BRAIN_EMBEDDER: 'none' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}
