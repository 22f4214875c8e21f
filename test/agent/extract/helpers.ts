import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAssistantConfig, type AssistantConfig } from '../../../agent/config.js';
import type { LogLevel } from '../../../agent/log.js';

/** An assistant config file in `dir` with `file` as its body, loaded with a test key. */
export function assistantConfig(
  dir: string,
  file: Record<string, unknown>,
  env: Record<string, string> = { ANTHROPIC_API_KEY: 'sk-test-secret-key' },
): AssistantConfig {
  const path = join(dir, 'assistant.json');
  writeFileSync(path, JSON.stringify({ owner: 'ann', workspace: dir, ...file }));
  return loadAssistantConfig({ file: path, env });
}

/** A model's answer: the entries as the prompt asks for them. */
export function entriesJson(entries: Array<Record<string, unknown>>) {
  return JSON.stringify({ entries });
}

export function recordingLog() {
  const lines: Array<{ level: LogLevel; event: string; fields: Record<string, unknown> }> = [];
  return {
    lines,
    log: (level: LogLevel, event: string, fields: Record<string, unknown> = {}) =>
      void lines.push({ level, event, fields }),
  };
}
