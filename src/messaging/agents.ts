import { isoSql } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { check, object, type InputOf } from '../input/check.js';
import { agentName, list, lookupKey, text } from '../input/fields.js';
import { writeAgent } from './store.js';

export { agentRowId } from './row-ids.js';

export interface AgentRecord {
  name: string;
  display_name: string | null;
  capabilities: string[];
  created_at: string;
  last_seen_at: string;
}

interface AgentRow {
  name: string;
  display_name: string | null;
  capabilities: string;
  created_at: string;
  last_seen_at: string;
}

const AGENT_COLUMNS = `name, display_name, capabilities, ${isoSql('created_at')} AS created_at,
  ${isoSql('last_seen_at')} AS last_seen_at`;

function toRecord(row: AgentRow): AgentRecord {
  return { ...row, capabilities: JSON.parse(row.capabilities) as string[] };
}

/** The agent's row id, registering it on first use. Call inside a write transaction. */
export function ensureAgent(ctx: BrainContext, name: string): number {
  return writeAgent(ctx, { name, at: ctx.clock().getTime() }).id;
}

export function getAgent(ctx: BrainContext, name: string): AgentRecord | undefined {
  lookupKey(name, 'name');
  const row = ctx.q
    .get<[string], AgentRow>(`SELECT ${AGENT_COLUMNS} FROM agents WHERE name = ?`)
    .get(name);
  return row && toRecord(row);
}

export function listAgents(ctx: BrainContext): AgentRecord[] {
  return ctx.q
    .get<[], AgentRow>(`SELECT ${AGENT_COLUMNS} FROM agents ORDER BY name`)
    .all()
    .map(toRecord);
}

export const updateAgentInput = object({
  name: agentName(),
  display_name: text(200).optional(),
  capabilities: list(text(100), { max: 100 }).optional(),
});
export type UpdateAgentInput = InputOf<typeof updateAgentInput>;

export function updateAgent(ctx: BrainContext, input: UpdateAgentInput): AgentRecord {
  const args = check(updateAgentInput, input);
  const tx = ctx.db.transaction(() => {
    ensureAgent(ctx, args.name);
    if (args.display_name !== undefined) {
      ctx.q
        .get(`UPDATE agents SET display_name = ? WHERE name = ?`)
        .run(args.display_name, args.name);
    }
    if (args.capabilities !== undefined) {
      ctx.q
        .get(`UPDATE agents SET capabilities = ? WHERE name = ?`)
        .run(JSON.stringify(args.capabilities), args.name);
    }
  });
  tx.immediate();
  const agent = getAgent(ctx, args.name);
  if (!agent) throw new BrainError('NOT_FOUND', `agent ${args.name} not found`);
  return agent;
}
