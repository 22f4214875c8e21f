// Row ids of agents and threads by their names and public ids: lookups that search's filters
// need, free of the schemas of agents.ts and threads.ts.
import type { BrainContext } from '../context.js';
import { threadKey } from '../ids.js';

/** The agent's row id, or undefined for an agent never seen. Never writes. */
export function agentRowId(ctx: BrainContext, name: string): number | undefined {
  const row = ctx.q.get<[string], { id: number }>(`SELECT id FROM agents WHERE name = ?`).get(name);
  return row?.id;
}

/** The row id of a thread, by its public id. */
export function threadRowId(ctx: BrainContext, id: string): number | undefined {
  const key = threadKey(id);
  if (key === undefined) return undefined;
  return ctx.q.get<[Buffer], { id: number }>(`SELECT id FROM threads WHERE uid = ?`).get(key)?.id;
}
