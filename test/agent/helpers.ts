import { createModels } from '../../agent/models/create.js';
import type { EndpointConfig } from '../../agent/models/config.js';
import { runTurn, type RunTurnOptions, type TurnConfig } from '../../agent/loop.js';
import { saveMemoryTool } from '../../agent/tools/save-memory.js';
import { createSearchMemoryTool } from '../../agent/tools/search-memory.js';
import type { Tool } from '../../agent/tools/types.js';
import { systemClock } from '../../src/index.js';
import { tempBrain, type TempBrain } from '../helpers.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';

export interface AssistantFixture {
  t: TempBrain;
  fake: FakeAnthropic;
  config: TurnConfig;
  tools: Tool[];
  /** Text streamed to io.onText, over all turns. */
  streamed: string[];
  toolCalls: string[];
  turn(text: string, overrides?: Partial<RunTurnOptions>): ReturnType<typeof runTurn>;
  close(): Promise<void>;
}

export function endpoint(baseUrl: string, extra: Partial<EndpointConfig> = {}): EndpointConfig {
  return {
    provider: 'anthropic',
    model: 'claude-test',
    baseUrl,
    tags: [],
    priority: 0,
    maxTokens: 1024,
    ...extra,
  };
}

/** A temp brain, a fake Anthropic server, and the real pool talking to it. */
export async function assistantFixture(
  config: Partial<TurnConfig> = {},
): Promise<AssistantFixture> {
  const t = await tempBrain();
  const fake = await startFakeAnthropic();
  const { pool, compaction } = createModels(
    { endpoints: [endpoint(fake.baseUrl)] },
    { anthropicApiKey: 'sk-test' },
    { clock: systemClock, log: () => {} },
  );
  const full: TurnConfig = {
    agent: 'assistant',
    owner: 'ann',
    workspace: t.dir,
    maxRounds: 20,
    compaction: { thresholdTokens: 100_000, keepRecentTokens: 20_000 },
    memory: { maxTokens: 1500, limit: 12 },
    ...config,
  };
  const streamed: string[] = [];
  const toolCalls: string[] = [];
  const tools: Tool[] = [saveMemoryTool as Tool, createSearchMemoryTool() as Tool];
  return {
    t,
    fake,
    config: full,
    tools,
    streamed,
    toolCalls,
    turn: (text, overrides = {}) =>
      runTurn({
        brain: t.brain,
        pool,
        compactionPool: compaction,
        tools,
        config: full,
        clock: systemClock,
        session: 'chat/default',
        input: { text },
        io: {
          onText: (d) => void streamed.push(d),
          onToolCall: (name) => void toolCalls.push(name),
        },
        source: 'chat',
        systemPrompt: () => 'You are a test assistant.',
        ...overrides,
      }),
    async close() {
      await fake.close();
      t.cleanup();
    },
  };
}
