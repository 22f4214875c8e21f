import type { Brain, Clock, Embedder, ExtractThreads } from '../../src/index.js';
import { loadAssistantConfig, type AssistantConfig, type Env } from '../config.js';
import type { Log } from '../log.js';
import { buildComponents } from './components.js';
import { watchConfigFile, type ConfigWatch, type DebounceTimers } from './config-watch.js';
import { createServiceHost, type RunningServiceHost, type ServiceHostOptions } from './host.js';
import { createInboxWatcher, type InboxOptions } from './inbox.js';
import { createResumer } from './resume.js';
import type { ServiceComponent } from '../contracts.js';

/**
 * `brain agent` without the command line: the host, the components (buildComponents' list, then
 * the inbox watcher), started in order; live reload of the config file; and an orderly stop.
 */

export interface StartServiceOptions {
  brain: Brain;
  config: AssistantConfig;
  clock: Clock;
  log: Log;
  embedder?: Embedder;
  /** The environment secrets are read from again on reload (default: none, so tests pass theirs). */
  env?: Env;
  /** Default: `buildComponents(config, …)`. */
  components?: readonly ServiceComponent[];
  /** The inbox watcher's options, or false to run without it. */
  inbox?: InboxOptions | false;
  /** Which threads the background extraction reads (BRAIN_EXTRACT_THREADS; default none). */
  extractThreads?: ExtractThreads;
  /** Watch the config file for changes (default: when the config came from a file). */
  watchConfig?: boolean;
  debounceMs?: number;
  timers?: DebounceTimers;
  /** Passed to createServiceHost (a test's own assistant). */
  assistant?: ServiceHostOptions['assistant'];
}

export interface RunningService {
  host: RunningServiceHost;
  components: readonly ServiceComponent[];
  /** Load the config file again now (as a change to it does). */
  reload(): Promise<boolean>;
  /**
   * Stop taking work (each component's stop), let running turns finish for `graceMs`, cancel
   * what is left and wait for it. The brain stays open: its owner closes it.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
}

export async function startService(options: StartServiceOptions): Promise<RunningService> {
  const { brain, clock, log } = options;
  const started = clock().getTime();
  const host = createServiceHost({
    brain,
    config: options.config,
    clock,
    log,
    ...(options.embedder ? { embedder: options.embedder } : {}),
    ...(options.assistant ? { assistant: options.assistant } : {}),
  });
  const components: ServiceComponent[] = [
    ...(options.components ??
      (await buildComponents(options.config, {
        brain,
        clock,
        log,
        extractThreads: options.extractThreads ?? 'none',
      }))),
    ...(options.inbox === false ? [] : [createInboxWatcher(options.inbox ?? {})]),
    // After the channels: what a crash cut short is answered or told through them.
    ...(options.components ? [] : [createResumer({ startedAt: started })]),
  ];
  host.setComponents(components);

  const running: ServiceComponent[] = [];
  try {
    for (const component of components) {
      await component.start(host);
      running.push(component);
      log('info', 'component.started', { component: component.name });
    }
  } catch (err) {
    log('error', 'component.start_failed', {
      component: components[running.length]?.name,
      error: (err as Error).message,
    });
    await stopAll(running, log);
    await host.close();
    throw err;
  }

  const apply = async (next: AssistantConfig) => {
    host.setConfig(next);
    for (const component of components) {
      try {
        await component.reconfigure?.(next);
      } catch (err) {
        log('warn', 'component.reconfigure_failed', {
          component: component.name,
          error: (err as Error).message,
        });
      }
    }
  };
  const file = options.config.file;
  const env = options.env ?? {};
  const load = () => loadAssistantConfig({ file, env });
  const watching = options.watchConfig ?? options.config.fileFound;
  let watch: ConfigWatch | undefined;
  if (watching) {
    watch = watchConfigFile({
      path: file,
      load,
      apply,
      log,
      ...(options.debounceMs !== undefined ? { debounceMs: options.debounceMs } : {}),
      ...(options.timers ? { timers: options.timers } : {}),
    });
  }

  log('info', 'ready', {
    components: components.map((c) => c.name),
    ms: clock().getTime() - started,
  });
  // Ready first, then what the first turn's memory search would otherwise load.
  brain.search.warmSearch();
  void brain.search.warmTimeWords(options.config.timeZone);

  let stopping: Promise<void> | undefined;
  return {
    host,
    components,
    reload: () =>
      watch
        ? watch.reload()
        : Promise.resolve()
            .then(load)
            .then(apply)
            .then(
              () => true,
              (err: unknown) => {
                log('warn', 'config.refused', { file, error: (err as Error).message });
                return false;
              },
            ),
    stop(stopOptions = {}) {
      stopping ??= (async () => {
        log('info', 'stopping', { running: host.lane.running, queued: host.lane.queued });
        watch?.close();
        // Components stop taking updates while the host lets running turns finish, then cancels.
        await Promise.all([
          stopAll([...running].reverse(), log),
          host.close({ graceMs: stopOptions.graceMs ?? 0 }),
        ]);
        log('info', 'stopped', {});
      })();
      return stopping;
    },
  };
}

async function stopAll(components: readonly ServiceComponent[], log: Log): Promise<void> {
  await Promise.all(
    components.map(async (component) => {
      try {
        await component.stop();
      } catch (err) {
        log('warn', 'component.stop_failed', {
          component: component.name,
          error: (err as Error).message,
        });
      }
    }),
  );
}
