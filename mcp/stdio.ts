import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Readable, Writable } from 'node:stream';
import type { Brain, Embedder } from '../src/index.js';
import { startBackground, type BackgroundTask } from './background.js';
import type { Logger } from './log.js';
import { createMcpServer } from './server.js';

export interface StdioOptions {
  agent: string;
  log: Logger;
  background?: BackgroundTask[];
  embedder?: () => Embedder | undefined;
  /** Folders whose files send_message may attach by path. */
  attachRoots?: readonly string[];
  /** The owner's time zone, in which a query's time words are read; undefined: the system's. */
  timeZone?: string | undefined;
  stdin?: Readable;
  stdout?: Writable;
}

export interface RunningServer {
  /** Settles when the server has stopped: the client closed stdin, or close() was called. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * `brain mcp`: one agent's MCP server on stdin/stdout. stdout carries only JSON-RPC; logs go to
 * the logger (stderr). Ready as soon as the transport is connected: nothing slow happens first.
 */
export async function serveStdio(brain: Brain, options: StdioOptions): Promise<RunningServer> {
  const stdin = options.stdin ?? process.stdin;
  const server = createMcpServer(brain, {
    agent: options.agent,
    log: options.log,
    embedder: options.embedder,
    attachRoots: options.attachRoots,
    timeZone: options.timeZone,
  });
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  transport.onerror = (err) => options.log.warn(`stdio: ${err.message}`);

  let stopBackground: () => Promise<void> = async () => {};
  let closing: Promise<void> | undefined;
  let settle: () => void = () => {};
  const closed = new Promise<void>((resolve) => (settle = resolve));
  const close = () =>
    (closing ??= (async () => {
      stdin.off('end', onEnd);
      await stopBackground();
      await server.close();
      settle();
    })());
  const onEnd = () => void close();
  // The client going away ends the server (the SDK transport does not watch for it).
  stdin.on('end', onEnd);

  await server.connect(transport);
  stopBackground = startBackground(options.background ?? [], brain, options.log);
  options.log.info(`mcp: serving agent ${options.agent} on stdio`);
  return { closed, close };
}
