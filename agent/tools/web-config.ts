import { runCommandConfig } from './run-command.js';
import { z } from 'zod';

/** Web search: Brave's API (key from BRAVE_API_KEY) or a SearXNG instance. */
export const webSearchConfigSchema = z.discriminatedUnion('provider', [
  z.strictObject({ provider: z.literal('brave'), baseUrl: z.url().optional() }),
  z.strictObject({ provider: z.literal('searxng'), baseUrl: z.url() }),
]);

export const webConfigSchema = z.strictObject({
  /** Host names or host:port that skip the address check (a server of your own on the LAN). */
  allowHosts: z.array(z.string().trim().min(1).max(255)).max(100).default([]),
  maxBytes: z
    .number()
    .int()
    .min(1024)
    .max(50 * 1024 * 1024)
    .default(2 * 1024 * 1024),
  timeoutSeconds: z.number().min(0.01).max(300).default(15),
  search: webSearchConfigSchema.optional(),
});

/**
 * `tools` in the assistant's config: the folders the file tools may use besides the workspace,
 * and the web tools' limits (`tools` in agent/config.ts).
 */
export const toolsConfigSchema = z.strictObject({
  roots: z.array(z.string().min(1, 'must not be empty')).max(50).default([]),
  web: webConfigSchema.prefault({}),
  /** run_command's timeouts, output cap and extra roots (agent/tools/run-command.ts). */
  runCommand: runCommandConfig,
});

export type WebConfig = z.output<typeof webConfigSchema>;
export type WebSearchConfig = z.output<typeof webSearchConfigSchema>;
export type ToolsConfig = z.output<typeof toolsConfigSchema>;
