import { BrainError, type Brain, type Clock, type Embedder } from '../src/index.js';
import type { AssistantConfig } from './config.js';
import { createSessionCache, primeSession } from './compaction.js';
import type { Log } from './log.js';
import { runTurn, type TurnIo, type TurnResult } from './loop.js';
import { createPolicy, type JudgeCommand } from './permissions/policy.js';
import { judgeCommand } from './permissions/shell.js';
import type { Driver } from './permissions/trust.js';
import { createRunCommandTool } from './tools/run-command.js';
import { sandboxStatus } from './tools/sandbox.js';
import { createModels } from './models/create.js';
import { ModelError, type ModelPool } from './models/types.js';
import { fsWebTools } from './tools/fs-web.js';
import { createSaveMemoryTool } from './tools/save-memory.js';
import { createSearchMemoryTool } from './tools/search-memory.js';
import type { Tool } from './tools/types.js';
import { createSessionModels } from './conversation/commands.js';
import type { SessionModels } from './contracts.js';
import { createUserFile } from './profile.js';
import { createSkillCatalog } from './skills/catalog.js';

/** The assistant wired for one process: its models, its tools, and a turn of any session. */
export interface Assistant {
  config: AssistantConfig;
  turn(
    session: string,
    text: string,
    io: TurnIo,
    options?: {
      signal?: AbortSignal;
      source?: string;
      unattended?: boolean;
      /** Who said it (default the owner); another agent's words are untrusted data. */
      from?: string;
      /** The text is this message, already in the session's thread (agent/loop.ts `input`). */
      messageId?: string;
      /** Tools for this turn beside the built-in ones, asked for before each model call. */
      tools?: () => readonly Tool[];
      /** Who drives the turn (default: the owner unless `from` says otherwise). */
      driver?: Driver;
      /** Foreign content the turn starts with: its sources (agent/permissions/trust.ts). */
      taint?: readonly string[];
    },
  ): Promise<TurnResult>;
  /**
   * Read now what the session's first turn would (the search's lengths and, once per brain, its
   * census; the session's context), so that it costs what later turns do: for idle time.
   */
  warm(session: string): void;
  /** Each session's endpoint chosen with `/model` (agent/service/commands.ts). */
  readonly models: SessionModels;
}

export function createAssistant(options: {
  brain: Brain;
  config: AssistantConfig;
  clock: Clock;
  log: Log;
  embedder?: Embedder;
  /** Judges run_command's command lines (agent/permissions/shell.ts). */
  judgeCommand?: JudgeCommand;
  /** Tools beside the built-in ones, asked for at each turn (the service's components). */
  moreTools?: (session: string) => readonly Tool[];
  /** Each session's `/model` choice; kept by the host across reconfigurations. */
  sessionModels?: SessionModels;
}): Assistant {
  const { brain, config, clock, log } = options;
  const models: { pool: ModelPool; compaction: ModelPool } = createModels(
    config.models,
    config.secrets,
    { clock, log },
  );
  const sessionModels = options.sessionModels ?? createSessionModels(brain);
  // A pool of the one endpoint `/model` chose, built once per endpoint on first use.
  const chosenPools = new Map<number, ModelPool>();
  const poolOf = (session: string): ModelPool => {
    const index = sessionModels.get(session);
    const endpoint = index === undefined ? undefined : config.models.endpoints[index];
    if (index === undefined || !endpoint) return models.pool;
    let pool = chosenPools.get(index);
    if (!pool) {
      pool = createModels({ ...config.models, endpoints: [endpoint] }, config.secrets, {
        clock,
        log,
      }).pool;
      chosenPools.set(index, pool);
    }
    return pool;
  };
  const tools: Tool[] = [
    createSaveMemoryTool({ timeZone: config.timeZone }) as Tool,
    createSearchMemoryTool({ embedder: options.embedder, timeZone: config.timeZone }) as Tool,
    // Every tool goes through the permission policy before it runs (agent/permissions/).
    ...fsWebTools(config.tools, config.secrets),
    createRunCommandTool({ config: config.tools.runCommand, env: config.commandEnv }) as Tool,
  ];
  const cache = createSessionCache();
  const skills = createSkillCatalog(config.workspace, config.skills.budgetTokens);
  const userFile = createUserFile();
  const permissions = {
    policy: createPolicy({
      config: config.permissions,
      judgeCommand: options.judgeCommand ?? judgeCommand,
      commandRoots: [...config.tools.roots, ...config.tools.runCommand.roots],
      rules: () => brain.assistant.approvalRules(),
    }),
    timeoutMs: config.permissions.approvalTimeoutSeconds * 1000,
    profiles: config.permissions.profiles,
    // Probed once per process, at the first tainted turn that wants a command run.
    offline: () =>
      config.tools.runCommand.sandbox !== 'off' &&
      sandboxStatus(config.commandEnv.PATH ?? '').inUse,
  };
  return {
    config,
    models: sessionModels,
    warm(session) {
      brain.search.warmSearch();
      // While the owner types: the first question naming a time then finds the reader loaded.
      void brain.search.warmTimeWords(config.timeZone);
      const current = brain.assistant.session({
        name: session,
        agent: config.agent,
        owner: config.owner,
      });
      primeSession(cache, brain, current.thread_id, config);
    },
    async turn(session, text, io, turnOptions = {}) {
      try {
        return await runTurn({
          brain,
          pool: poolOf(session),
          compactionPool: models.compaction,
          tools,
          // Asked for again before each model call: find_tools can load MCP tools mid-turn.
          ...(options.moreTools || turnOptions.tools
            ? {
                liveTools: () => [
                  ...(options.moreTools?.(session) ?? []),
                  ...(turnOptions.tools?.() ?? []),
                ],
              }
            : {}),
          config,
          clock,
          session,
          input: {
            text,
            ...(turnOptions.from === undefined ? {} : { from: turnOptions.from }),
            ...(turnOptions.messageId === undefined ? {} : { messageId: turnOptions.messageId }),
          },
          io,
          signal: turnOptions.signal,
          source: turnOptions.source ?? 'chat',
          embedder: options.embedder,
          cache,
          skills,
          userFile,
          log,
          permissions,
          unattended: turnOptions.unattended ?? false,
          ...(turnOptions.driver ? { driver: turnOptions.driver } : {}),
          ...(turnOptions.taint?.length ? { taint: turnOptions.taint } : {}),
        });
      } catch (err) {
        // No endpoint answered: a runtime failure the user can act on, said once, without a stack.
        if (err instanceof ModelError)
          throw new BrainError('UPSTREAM_FAILED', err.message, {
            cause: err,
          });
        throw err;
      }
    },
  };
}
