/** Reading loosely-shaped legacy records: first present field among aliases, times in any common form. */

export type Loose = Record<string, unknown>;

export function pick(record: Loose, names: string[]): unknown {
  for (const name of names) {
    if (record[name] !== undefined && record[name] !== null) return record[name];
  }
  return undefined;
}

export function pickString(record: Loose, names: string[]): string | undefined {
  const value = pick(record, names);
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

/** ISO strings (with or without zone: UTC assumed), epoch seconds or milliseconds → ISO with ms. */
export function legacyTime(value: unknown): string | undefined {
  let ms: number;
  if (typeof value === 'number' && Number.isFinite(value)) {
    ms = value < 1e11 ? value * 1000 : value;
  } else if (typeof value === 'string' && value.trim()) {
    const s = value.trim();
    if (/^\d+(\.\d+)?$/.test(s)) return legacyTime(Number(s));
    const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(s) || !/\d{2}:\d{2}/.test(s) ? s : `${s}Z`;
    ms = Date.parse(zoned.replace(' ', 'T'));
  } else {
    return undefined;
  }
  if (!Number.isFinite(ms)) return undefined;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) || d.getUTCFullYear() < 1970 || d.getUTCFullYear() > 9999
    ? undefined
    : d.toISOString();
}

/** A list of names from an array, a comma-separated string, or an object keyed by name. */
export function nameList(value: unknown): string[] {
  if (Array.isArray(value))
    return value.filter((v): v is string => typeof v === 'string').map((s) => s.trim());
  if (typeof value === 'string')
    return value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  if (value && typeof value === 'object') return Object.keys(value);
  return [];
}

export interface SkippedRecord {
  /** Position in its file (0-based), and the file for directories of files. */
  index: number;
  file?: string;
  id?: string;
  reason: string;
}

export interface LegacyReport {
  source: 'synapse' | 'cortex';
  path: string;
  read: number;
  imported: number;
  existing: number;
  skipped: SkippedRecord[];
  /** Things kept with a change, e.g. a reply to a message not in the file. */
  notes: string[];
}
