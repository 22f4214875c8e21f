import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, tempDir } from '../helpers.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram.js';

/**
 * The built `brain agent` as a real process against the loopback Telegram and Anthropic: one
 * folder with the brain, the workspace and the config (the owner `ann`, Telegram user `owner`,
 * the chats `allowedChatIds`), the environment a user would set, and a way to start the service
 * as often as a crash drill needs. Everything it starts is stopped by `cleanups`.
 */

export interface AgentSetup {
  tg: FakeTelegram;
  model: FakeAnthropic;
  /** The brain file. */
  db: string;
  env: Record<string, string>;
  /** Start `brain agent` (stdout ignored, stderr kept). */
  start(): AgentProcess;
}

export interface AgentProcess {
  child: ChildProcess;
  /** The exit code, or null when a signal ended it. */
  exited: Promise<number | null>;
  stderr(): string;
  /** Send `signal` unless it has ended; resolves when it has. */
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

export async function agentSetup(
  cleanups: Array<() => unknown>,
  options: { prefix: string; owner: number; allowedChatIds?: number[] },
): Promise<AgentSetup> {
  const { dir, cleanup } = tempDir(options.prefix);
  cleanups.push(cleanup);
  const tg = await startFakeTelegram();
  cleanups.push(() => tg.close());
  const model = await startFakeAnthropic();
  cleanups.push(() => model.close());
  mkdirSync(join(dir, 'ws'));
  const config = join(dir, 'assistant.json');
  writeFileSync(
    config,
    JSON.stringify({
      agent: 'assistant',
      owner: { name: 'ann', telegram: options.owner },
      workspace: join(dir, 'ws'),
      models: {
        endpoints: [{ provider: 'anthropic', model: 'claude-fake', baseUrl: model.baseUrl }],
      },
      telegram: { allowedChatIds: options.allowedChatIds ?? [options.owner], apiRoot: tg.apiRoot },
    }),
  );
  const env = {
    BRAIN_DB: join(dir, 'brain.db'),
    BRAIN_ASSISTANT_CONFIG: config,
    XDG_CONFIG_HOME: join(dir, 'cfg'),
    ANTHROPIC_API_KEY: 'sk-test',
    TELEGRAM_BOT_TOKEN: tg.token,
  };
  const start = (): AgentProcess => {
    const child = spawn(process.execPath, [CLI, 'agent'], {
      env: { ...process.env, BRAIN_EMBEDDER: 'none', NO_COLOR: '1', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const kill = (signal: NodeJS.Signals) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    };
    cleanups.push(() => kill('SIGKILL'));
    return { child, exited, stderr: () => stderr, kill };
  };
  return { tg, model, db: env.BRAIN_DB, env, start };
}
