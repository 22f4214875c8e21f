import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { spawn, type ChildProcess } from 'node:child_process';
import {
  StdioClientTransport,
  getDefaultEnvironment,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, type CreateMcpServerOptions } from '../../mcp/server.js';
import type { Brain } from '../../src/index.js';
import { CLI } from '../helpers.js';

export interface Connected {
  client: Client;
  close(): Promise<void>;
}

/**
 * The real SDK client, connected and having listed the tools first, as Claude Code and every
 * client on the official SDK do at start: from then on the SDK validates each tool's
 * `structuredContent` against its declared output schema, so a result that breaks it fails here.
 */
export async function connectClient(transport: Transport): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(transport);
  await client.listTools();
  return client;
}

/** The real SDK client and our server, linked in memory. */
export async function connectInMemory(
  brain: Brain,
  options: CreateMcpServerOptions,
): Promise<Connected> {
  const server = createMcpServer(brain, options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = await connectClient(clientSide);
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
  const client = await connectClient(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

export interface SpawnedServe {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** Spawn the built `brain serve` (pass `--port 0`) and wait for the URL it prints on stderr. */
export function spawnServe(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<SpawnedServe> {
  const child = spawn(process.execPath, [CLI, 'serve', ...args], {
    env: { ...process.env, BRAIN_EMBEDDER: 'none', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
      if (url)
        resolve({
          url,
          child,
          stderr: () => stderr,
          stop: () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
    });
    void exited.then((code) => reject(new Error(`brain serve exited ${code}: ${stderr}`)));
  });
}
