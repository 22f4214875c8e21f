import { BrainError } from '../src/index.js';

/**
 * Query-string parameters of a page, read leniently where that is harmless (a missing or empty
 * value is absent) and strictly where it is not: a bad value is a 400 naming the parameter.
 */
export class Query {
  constructor(private readonly params: URLSearchParams) {}

  text(name: string, max: number): string | undefined {
    const v = this.params.get(name)?.trim();
    if (!v) return undefined;
    if (v.length > max) throw bad(name, `must be at most ${max} characters`);
    return v;
  }

  all(name: string): string[] {
    return this.params.getAll(name).filter((v) => v.trim() !== '');
  }

  int(name: string, fallback: number, max: number): number {
    const v = this.params.get(name)?.trim();
    if (!v) return fallback;
    if (!/^\d+$/.test(v) || Number(v) > max)
      throw bad(name, `must be a whole number from 0 to ${max}`);
    return Number(v);
  }

  oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
    const v = this.text(name, 100);
    if (v === undefined) return undefined;
    if (!(values as readonly string[]).includes(v))
      throw bad(name, `must be one of ${values.join(', ')}`);
    return v as T;
  }
}

function bad(name: string, message: string): BrainError {
  return new BrainError('INVALID_INPUT', `${name}: ${message}`);
}
