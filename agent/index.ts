import type { Brain, Clock } from '../src/index.js';
import type { AssistantConfig, Env } from './config.js';
import type { Log } from './log.js';
import type { ServerStatus } from './mcp/connection.js';
import type { McpConfig } from './mcp/config.js';
import type { ChatOptions, Chat } from './chat-run.js';
import type { PageChat, PageChatOptions } from './page-chat.js';
import type { CheckItem } from './contracts.js';
import type { SkillsReport } from './skills/report.js';
import type { RunNowOptions } from './scheduler/run-now.js';
import type { StartServiceOptions, RunningService } from './service/service.js';
import type { SandboxStatus } from './tools/sandbox.js';
import type { ConfiguredExtractor } from './extract/create.js';

/**
 * The assistant's front door: what the command line (and any other adapter) may use. Each entry
 * loads its part of the assistant when called, so a command that does not start the assistant
 * pays nothing for it, and one that does loads only what it runs (grammY and discord.js only
 * with their channel, a model SDK on its first request).
 *
 * - `loadAssistantConfig`: the config file checked, with the environment's secrets.
 * - `startService`: `brain agent`, the long-running service; `checkService`: `--check`.
 * - `runHeartbeat`, `runCron`: one scheduled turn now, delivered through the channels.
 * - `openChat`: `brain chat`, in the terminal or one message at a time.
 * - `openPageChat`: the chat page of `brain ui`.
 * - `checkMcpServers`: the configured MCP servers, connected once and let go.
 * - `sandboxStatus`: whether commands run under bubblewrap here.
 * - `configuredExtractor`: the model extractor `extract.model` names (`brain extract`), if any.
 */

export type { AssistantConfig, Env } from './config.js';
export type { Log, LogLevel } from './log.js';
export type { CheckItem } from './contracts.js';
export type { StartServiceOptions, RunningService } from './service/service.js';
export type { Delivery, CronRunResult, HeartbeatOutcome } from './scheduler/run-now.js';
export type { Chat, ChatOptions, SaidResult } from './chat-run.js';
export type { ReplStreams } from './chat.js';
export type {
  PageApproval,
  PageChat,
  PageChatOptions,
  PageChatState,
  PageEvent,
  PageSaid,
} from './page-chat.js';
export type { TurnResult } from './loop.js';
export type { SandboxStatus } from './tools/sandbox.js';
export type { SkillsReport } from './skills/report.js';
export type { ConfiguredExtractor } from './extract/create.js';
export { formatCheckItem } from './contracts.js';
export { streamLog, silentLog } from './log.js';

export async function loadAssistantConfig(options: {
  file?: string | undefined;
  env: Env;
}): Promise<AssistantConfig> {
  return (await import('./config.js')).loadAssistantConfig(options);
}

export async function startService(options: StartServiceOptions): Promise<RunningService> {
  return (await import('./service/service.js')).startService(options);
}

export async function checkService(options: {
  brain: Brain;
  config: AssistantConfig;
}): Promise<CheckItem[]> {
  return (await import('./service/check.js')).checkService(options);
}

export async function runHeartbeat(options: RunNowOptions & { force?: boolean }) {
  return (await import('./scheduler/run-now.js')).runHeartbeat(options);
}

export async function runCron(options: RunNowOptions & { job: string }) {
  return (await import('./scheduler/run-now.js')).runCron(options);
}

export async function openChat(options: ChatOptions): Promise<Chat> {
  return (await import('./chat-run.js')).openChat(options);
}

export async function openPageChat(options: PageChatOptions): Promise<PageChat> {
  return (await import('./page-chat.js')).openPageChat(options);
}

export interface McpServersReport {
  servers: ServerStatus[];
  refused: McpConfig['errors'];
  budget: { tokens: number; budget: number; findTools: boolean };
}

/** Connects each configured MCP server once (lazy ones stay idle), reports, and lets them go. */
export async function checkMcpServers(options: {
  config: AssistantConfig;
  log: Log;
}): Promise<McpServersReport> {
  const { createMcpManager } = await import('./mcp/manager.js');
  const manager = createMcpManager({ config: options.config.mcp, log: options.log });
  try {
    await manager.check();
    return { servers: manager.status(), refused: manager.refused(), budget: manager.budget() };
  } finally {
    await manager.stop();
  }
}

/** The workspace's skills, each with its MCP servers, and every folder that is wrong (`brain skills`). */
export async function skillsReport(config: AssistantConfig): Promise<SkillsReport> {
  return (await import('./skills/report.js')).skillsReport({
    workspace: config.workspace,
    serversOf: config.skills.mcpServers,
    // As the service fills a skill's ${VAR}s: from the commands' environment, secrets left out.
    env: config.commandEnv,
  });
}

export async function sandboxStatus(path: string): Promise<SandboxStatus> {
  return (await import('./tools/sandbox.js')).sandboxStatus(path);
}

export async function configuredExtractor(
  config: AssistantConfig,
  deps: { brain?: Pick<Brain, 'assistant'>; log: Log; clock: Clock },
): Promise<ConfiguredExtractor | undefined> {
  return (await import('./extract/create.js')).configuredExtractor(config, deps);
}
