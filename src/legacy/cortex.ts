import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { BrainContext } from '../context.js';
import { millisOf } from '../clock.js';
import { BrainError } from '../errors.js';
import { ID_PATTERNS, derivedId } from '../ids.js';
import { ensureAgent } from '../messaging/agents.js';
import { messageRowId } from '../messaging/messages.js';
import { insertStm } from '../knowledge/store.js';
import { agentName, filePath, parseInput } from '../validation.js';
import {
  legacyTime,
  nameList,
  pick,
  pickString,
  type LegacyReport,
  type Loose,
  type SkippedRecord,
} from './fields.js';
import { readJsonFile } from '../transfer/json-file.js';

interface CortexEntry {
  uid: string;
  agent: string;
  content: string;
  categories: string[];
  importance: number;
  createdAt: string;
  expiresAt: string | null;
  accessCount: number;
  source: string | undefined;
}

/**
 * Import Cortex STM entries from a JSON file (an array, `{entries|stm|memories: [...]}` or one entry)
 * or a directory of such files (regular files directly inside it; links are not followed).
 */
export function migrateCortex(
  ctx: BrainContext,
  path: string,
  defaultAgent = 'cortex',
): LegacyReport {
  parseInput(filePath, path, { '': 'cortex' });
  parseInput(agentName, defaultAgent, { '': 'cortex_agent' });
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) throw new BrainError('NOT_FOUND', `cortex: no file or directory at ${path}`);
  const files = stat.isDirectory()
    ? readdirSync(path, { withFileTypes: true })
        .filter((d) => d.isFile() && d.name.endsWith('.json'))
        .map((d) => join(path, d.name))
        .sort()
    : [path];

  const skipped: SkippedRecord[] = [];
  const notes: string[] = [];
  const entries: CortexEntry[] = [];
  let read = 0;
  for (const file of files) {
    let doc: unknown;
    try {
      doc = readJsonFile(file, 'cortex');
    } catch (err) {
      if (!stat.isDirectory()) throw err;
      skipped.push({ index: -1, file, reason: (err as Error).message });
      continue;
    }
    const list = Array.isArray(doc)
      ? doc
      : ((pick((doc ?? {}) as Loose, ['entries', 'stm', 'memories', 'items']) as
          unknown[] | undefined) ?? [doc]);
    if (!Array.isArray(list)) {
      skipped.push({ index: -1, file, reason: 'no list of entries' });
      continue;
    }
    list.forEach((record, index) => {
      read += 1;
      const result = normalize(record, index, defaultAgent);
      if ('reason' in result)
        skipped.push({ ...result, ...(files.length > 1 || stat.isDirectory() ? { file } : {}) });
      else entries.push(result);
    });
  }

  let imported = 0;
  let existing = 0;
  ctx.db
    .transaction(() => {
      for (const e of entries) {
        let source: number | null = null;
        if (e.source) {
          const uid = ID_PATTERNS.message.test(e.source)
            ? e.source
            : derivedId('message', `synapse:${e.source}`);
          source = messageRowId(ctx, uid) ?? null;
          if (source === null)
            notes.push(`${e.uid}: source message ${e.source} is not in the brain; kept without it`);
        }
        const rowid = insertStm(ctx, {
          uid: e.uid,
          agent_id: ensureAgent(ctx, e.agent),
          content: e.content,
          importance: e.importance,
          source_message_id: source,
          created_at: millisOf(e.createdAt),
          expires_at: e.expiresAt === null ? null : millisOf(e.expiresAt),
          access_count: e.accessCount,
          categories: e.categories,
        });
        if (rowid === undefined) existing += 1;
        else imported += 1;
      }
    })
    .immediate();
  return { source: 'cortex', path, read, imported, existing, skipped, notes };
}

function normalize(
  record: unknown,
  index: number,
  defaultAgent: string,
): CortexEntry | SkippedRecord {
  if (!record || typeof record !== 'object' || Array.isArray(record))
    return { index, reason: 'not an object' };
  const r = record as Loose;
  const rawId = pickString(r, ['id', 'uid', 'key']);
  const skip = (reason: string): SkippedRecord => ({
    index,
    ...(rawId ? { id: rawId } : {}),
    reason,
  });

  const content = pickString(r, ['content', 'text', 'memory', 'summary', 'note']);
  if (!content || !content.trim()) return skip('no content');
  if (content.includes('\0') || !content.isWellFormed())
    return skip('content has NUL characters or invalid Unicode');
  if (content.length > 100_000) return skip('content longer than 100000 characters');

  const createdAt = legacyTime(
    pick(r, ['created_at', 'createdAt', 'timestamp', 'time', 'date', 'ts']),
  );
  if (!createdAt) return skip('no valid created_at');

  const rawImportance = pick(r, ['importance', 'weight', 'priority']);
  const importance = rawImportance === undefined ? 1 : Number(rawImportance);
  if (!Number.isFinite(importance) || importance < 1 || importance > 3) {
    return skip(`importance ${JSON.stringify(rawImportance)} is not between 1.0 and 3.0`);
  }

  let expiresAt: string | null = null;
  const rawExpires = pick(r, ['expires_at', 'expiresAt', 'expires', 'expiry']);
  if (rawExpires !== undefined) {
    expiresAt = legacyTime(rawExpires) ?? null;
    if (!expiresAt) return skip('expires_at is not a valid time');
  } else {
    const ttl = Number(pick(r, ['ttl', 'ttl_seconds']));
    if (Number.isFinite(ttl) && ttl > 0)
      expiresAt = new Date(Date.parse(createdAt) + ttl * 1000).toISOString();
  }

  const agent = pickString(r, ['agent', 'author', 'owner', 'agent_id'])?.trim() || defaultAgent;
  if (!agentName.safeParse(agent).success)
    return skip(`agent ${JSON.stringify(agent)} is not a valid agent name`);

  const categories = [
    ...new Set(
      nameList(pick(r, ['categories', 'tags', 'category', 'labels']))
        .map((c) => c.toLowerCase())
        .filter((c) => c && c.length <= 64 && !c.includes('\0')),
    ),
  ];
  const accessRaw = Number(pick(r, ['access_count', 'accessCount', 'accesses']) ?? 0);
  const key = rawId ?? `${createdAt}|${content.slice(0, 500)}`;
  return {
    uid: ID_PATTERNS.stm.test(key) ? key : derivedId('stm', `cortex:${key}`),
    agent,
    content,
    categories,
    importance,
    createdAt,
    expiresAt,
    accessCount: Number.isInteger(accessRaw) && accessRaw >= 0 ? accessRaw : 0,
    source: pickString(r, ['source_message_id', 'sourceMessageId', 'source', 'message_id']),
  };
}
