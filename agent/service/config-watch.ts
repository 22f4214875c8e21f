import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { AssistantConfig } from '../config.js';
import type { Log } from '../log.js';

/**
 * Live reload of the assistant's config: the file's folder is watched (editors replace a file by
 * renaming a new one over it, which a watch on the file itself would miss), changes are
 * debounced, and the file is loaded again. A file that validates is handed to `apply`; one that
 * does not is refused: the error (its key paths) goes to a warn line and the running config stays.
 */

export interface DebounceTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface ConfigWatchOptions {
  path: string;
  /** Reads and validates the file (loadAssistantConfig with the service's env); throws when invalid. */
  load: () => AssistantConfig;
  /** Takes a config that validated: the host's setConfig and the components' reconfigure. */
  apply: (config: AssistantConfig) => Promise<void> | void;
  log: Log;
  /** Quiet time after the last change before loading (default 250 ms). */
  debounceMs?: number;
  timers?: DebounceTimers;
}

export interface ConfigWatch {
  /** Load the file now (what a change does after the debounce); true when applied. */
  reload(): Promise<boolean>;
  close(): void;
}

const realTimers: DebounceTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export function watchConfigFile(options: ConfigWatchOptions): ConfigWatch {
  const { path, log } = options;
  const timers = options.timers ?? realTimers;
  const debounceMs = options.debounceMs ?? 250;
  const name = basename(path);
  let timer: unknown;
  let closed = false;
  /** Reloads run one after another: a change during a reload loads again after it. */
  let chain: Promise<unknown> = Promise.resolve();

  const reload = async (): Promise<boolean> => {
    let next: AssistantConfig;
    try {
      next = options.load();
    } catch (err) {
      log('warn', 'config.refused', {
        file: path,
        error: (err as Error).message,
        kept: 'the running config',
      });
      return false;
    }
    try {
      await options.apply(next);
      log('info', 'config.reloaded', { file: path });
      return true;
    } catch (err) {
      log('error', 'config.apply_failed', { file: path, error: (err as Error).message });
      return false;
    }
  };

  const schedule = () => {
    if (closed) return;
    if (timer !== undefined) timers.clearTimeout(timer);
    timer = timers.setTimeout(() => {
      timer = undefined;
      chain = chain.then(() => (closed ? false : reload()));
    }, debounceMs);
  };

  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(path), { persistent: false }, (_event, file) => {
      if (file === null || file === name) schedule();
    });
    watcher.on('error', (err) => log('warn', 'config.watch_failed', { error: err.message }));
  } catch (err) {
    log('warn', 'config.watch_failed', { file: path, error: (err as Error).message });
  }

  return {
    reload: () => {
      const run = chain.then(() => reload());
      chain = run;
      return run;
    },
    close() {
      closed = true;
      if (timer !== undefined) timers.clearTimeout(timer);
      watcher?.close();
    },
  };
}
