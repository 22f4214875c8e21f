import {
  DEFAULT_SEARCH_LIMIT,
  MAX_SEARCH_LIMIT,
  SEARCH_TYPES,
  type SearchType,
} from '../vocabulary.js';
import { MAX_QUERY_CHARS, type SearchArgs } from './search-run.js';

const KEYS = new Set(['query', 'types', 'limit', 'since', 'until', 'thread', 'agent']);

/**
 * The checked input of a plainly valid search, without zod: a query of words, perhaps types and a
 * limit, no filters. Anything else (a filter, an odd limit, any doubt) is undefined, and the caller
 * hands the input to the schema in search.ts, whose answers and error messages stay the only ones.
 * Whatever this accepts, the schema accepts and checks to the same value (test/search/quick-input).
 */
export function quickSearchArgs(input: unknown): SearchArgs | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  const record = input as Record<string, unknown>;
  for (const key of Object.keys(record)) if (!KEYS.has(key)) return undefined;
  for (const key of ['since', 'until', 'thread', 'agent'])
    if (record[key] !== undefined) return undefined;

  const { query, types, limit } = record;
  if (typeof query !== 'string' || query.length > MAX_QUERY_CHARS) return undefined;
  if (query.trim().length === 0 || query.includes('\0') || !query.isWellFormed()) return undefined;

  let checkedTypes: SearchType[];
  if (types === undefined) checkedTypes = [...SEARCH_TYPES];
  else if (Array.isArray(types) && types.length > 0 && types.every(isSearchType))
    checkedTypes = [...types];
  else return undefined;

  let checkedLimit: number;
  if (limit === undefined) checkedLimit = DEFAULT_SEARCH_LIMIT;
  else if (typeof limit === 'string' && /^[1-9][0-9]{0,2}$/.test(limit))
    checkedLimit = Number(limit);
  else if (typeof limit === 'number' && Number.isInteger(limit)) checkedLimit = limit;
  else return undefined;
  if (checkedLimit < 1 || checkedLimit > MAX_SEARCH_LIMIT) return undefined;

  return { query, types: checkedTypes, limit: checkedLimit };
}

function isSearchType(value: unknown): value is SearchType {
  return (SEARCH_TYPES as readonly unknown[]).includes(value);
}
