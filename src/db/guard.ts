import { toStorageError } from './storage-errors.js';

/**
 * The one place where SQLite failures become BrainErrors: every method of `target` (sync or
 * async) is wrapped so a raw SQLITE_FULL, SQLITE_READONLY, SQLITE_BUSY … leaves the library as a
 * BrainError naming the file and what to do. `after` runs after each call that returned (the
 * WAL keeper's hook). `close` and `onIndexed` are passed through untouched.
 */
export function guardStorage<T extends object>(target: T, path: string, after: () => void): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(target)) {
    if (typeof value !== 'function' || key === 'close' || key === 'onIndexed') {
      out[key] = value;
      continue;
    }
    const fn = value as (...args: unknown[]) => unknown;
    out[key] = (...args: unknown[]): unknown => {
      let result: unknown;
      try {
        result = fn(...args);
      } catch (err) {
        throw toStorageError(err, path);
      }
      if (result instanceof Promise) {
        return result.then(
          (value: unknown) => {
            after();
            return value;
          },
          (err: unknown) => {
            throw toStorageError(err, path);
          },
        );
      }
      after();
      return result;
    };
  }
  return out as T;
}
