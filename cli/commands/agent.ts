import type { Command } from 'commander';
import { println } from '../output.js';
import { creating, withBrain, type GlobalOptions } from '../run.js';
import { assistantEnv, loadAssistantConfigFile } from '../assistant-config.js';
import { logLevelGiven } from '../config.js';
import { createEmbedder } from '../../src/index.js';

interface AgentOptions {
  config?: string;
  check?: boolean;
}

/** Running turns get this long to finish after SIGTERM/SIGINT; then they are cancelled. */
const GRACE_MS = 5_000;
/** Whatever is still going this long after the signal, the process exits anyway (within 10 s). */
const HARD_STOP_MS = 9_500;

/**
 * `brain agent`: the assistant as a long-running service (agent/service/): its channels,
 * scheduler and MCP client, the inbox watcher, live config reload; logs on stderr, one line per
 * event. `--check` looks at the config, the brain, the model endpoints and each component, prints
 * one line per item, and exits 0 when all are ok, 1 otherwise.
 */
export function registerAgent(program: Command, globals: () => GlobalOptions): void {
  program
    .command('agent')
    .description(
      'run the assistant as a service (channels, scheduler, inbox); --check tests the setup',
    )
    .option(
      '--config <file>',
      'the assistant config (else BRAIN_ASSISTANT_CONFIG, else ~/.config/brain/assistant.json)',
    )
    .option('--check', 'check the config, the brain, the models and each component, then exit')
    .action(async (opts: AgentOptions) => {
      if (opts.check) return runCheck(globals(), opts);
      return runService(globals(), opts);
    });
}

async function runService(globals: GlobalOptions, opts: AgentOptions): Promise<void> {
  // A bad config is refused before the brain is opened: exit 2 with its key path.
  const config = await loadAssistantConfigFile(opts.config);
  await withBrain(creating(globals), async ({ brain, config: brainConfig }) => {
    const { streamLog, startService } = await import('../../agent/index.js');
    // A service reports its events at info unless BRAIN_LOG_LEVEL says otherwise.
    const minLevel = logLevelGiven() ? brainConfig.logLevel : 'info';
    const log = streamLog((line) => void process.stderr.write(`brain: ${line}`), minLevel);
    const embedder = await createEmbedder(brainConfig, { brain: brain.embed, purpose: 'search' });

    let onSignal: (signal: NodeJS.Signals) => void = () => {};
    const signalled = new Promise<NodeJS.Signals>((resolve) => (onSignal = resolve));
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    try {
      const service = await startService({
        brain,
        config,
        clock: () => new Date(),
        log,
        env: assistantEnv(),
        extractThreads: brainConfig.extractThreads,
        ...(embedder ? { embedder } : {}),
      });
      // Every timer of the service is unref'd: this one keeps the process up until a signal.
      const keepAlive = setInterval(() => {}, 1 << 30);
      const signal = await signalled;
      clearInterval(keepAlive);
      log('info', 'signal', { signal });
      // A second signal, or a stop that hangs, still ends the process in time.
      const force = (code: number) => () => {
        log('error', 'stop.forced', {});
        process.exit(code);
      };
      process.once('SIGTERM', force(1));
      process.once('SIGINT', force(130));
      const deadline = setTimeout(force(1), HARD_STOP_MS);
      deadline.unref();
      await service.stop({ graceMs: GRACE_MS });
      clearTimeout(deadline);
    } finally {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    }
  });
}

async function runCheck(globals: GlobalOptions, opts: AgentOptions): Promise<void> {
  const { formatCheckItem, checkService } = await import('../../agent/index.js');
  const items: Array<{ name: string; ok: boolean; detail: string }> = [];
  const report = () => {
    for (const item of items) println(formatCheckItem(item));
    process.exitCode = items.every((i) => i.ok) ? 0 : 1;
  };

  let config;
  try {
    config = await loadAssistantConfigFile(opts.config);
    items.push({
      name: 'config',
      ok: true,
      detail: config.fileFound ? config.file : `${config.file} absent: every default`,
    });
  } catch (err) {
    items.push({ name: 'config', ok: false, detail: (err as Error).message });
    return report();
  }

  try {
    await withBrain(creating(globals), async ({ brain, config: brainConfig }) => {
      items.push({ name: 'brain', ok: true, detail: `${brainConfig.dbPath} opens` });
      items.push(...(await checkService({ brain, config })));
    });
  } catch (err) {
    items.push({ name: 'brain', ok: false, detail: (err as Error).message });
  }
  report();
}
