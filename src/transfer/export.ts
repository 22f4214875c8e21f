import { z } from 'zod';
import { isoOfMillis, isoSql } from '../clock.js';
import type { BrainContext } from '../context.js';
import { BrainError } from '../errors.js';
import { messageIdSql, threadIdSql } from '../ids.js';
import { threadRowId } from '../messaging/threads.js';
import { exportAttachments } from '../attachments/transfer.js';
import { parseInput, threadId } from '../validation.js';
import { exportAssistant, noAssistant } from './export-assistant.js';
import { EXPORT_FORMAT, EXPORT_VERSION, type ExportDocument } from './format.js';

const exportInput = z.strictObject({ thread_id: threadId.optional() });
export type ExportInput = z.input<typeof exportInput>;

/**
 * Everything (or one thread with the knowledge derived from it) as one JSON document: every table
 * that holds data, the assistant's included (TABLES in assistant-format.ts says what is rebuilt
 * instead). Rows come in insertion order and carry no export time, so export → import → export
 * is identical.
 */
export function exportBrain(
  ctx: BrainContext,
  input: ExportInput = {},
  dbPath = '',
): ExportDocument {
  const args = parseInput(exportInput, input);
  return ctx.db.transaction((): ExportDocument => {
    let scope = { thread: null as number | null };
    if (args.thread_id) {
      const thread = threadRowId(ctx, args.thread_id);
      if (thread === undefined)
        throw new BrainError('NOT_FOUND', `thread_id: no thread ${args.thread_id}`);
      scope = { thread };
    }
    const p = { thread: scope.thread };
    const inScope = `(@thread IS NULL OR m.thread_id = @thread)`;
    const sourceInScope = (alias: string) =>
      `(@thread IS NULL OR ${alias}.source_message_id IN (SELECT id FROM messages WHERE thread_id = @thread))`;

    const threads = ctx.q
      .get<
        [typeof p],
        {
          id: string;
          subject: string;
          status: 'active';
          tags: string;
          created_by: string;
          created_at: string;
          last_message_at: string;
          message_count: number;
        }
      >(
        `SELECT ${threadIdSql('t.uid')} AS id, t.subject, t.status,
                (SELECT json_group_array(tag) FROM (SELECT tag FROM thread_tags WHERE thread_id = t.id ORDER BY tag)) AS tags,
                a.name AS created_by, ${isoSql('t.created_at')} AS created_at,
                ${isoSql('t.last_message_at')} AS last_message_at, t.message_count
         FROM threads t JOIN agents a ON a.id = t.created_by
         WHERE (@thread IS NULL OR t.id = @thread) ORDER BY t.id`,
      )
      .all(p)
      .map((t) => ({ ...t, tags: JSON.parse(t.tags) as string[] }));

    const receipts = ctx.q.get<[number], { agent: string; read_at: number | null }>(
      `SELECT a.name AS agent, d.read_at FROM deliveries d JOIN agents a ON a.id = d.agent_id WHERE d.message_id = ? ORDER BY a.id`,
    );
    const acks = ctx.q.get<[number], { agent: string; body: string | null; created_at: string }>(
      `SELECT a.name AS agent, k.body, ${isoSql('k.created_at')} AS created_at FROM acks k JOIN agents a ON a.id = k.agent_id WHERE k.message_id = ? ORDER BY a.id`,
    );
    const messages = ctx.q
      .get<
        [typeof p],
        {
          rowid: number;
          id: string;
          thread_id: string;
          from: string;
          to: string | null;
          reply_to: string | null;
          priority: 'normal';
          subject: string | null;
          body: string;
          metadata: string | null;
          created_at: string;
        }
      >(
        `SELECT m.id AS rowid, ${messageIdSql('m.uid')} AS id, ${threadIdSql('t.uid')} AS thread_id, fa.name AS "from", ta.name AS "to",
                ${messageIdSql('p.uid')} AS reply_to, m.priority, m.subject, m.body, m.metadata,
                ${isoSql('m.created_at')} AS created_at
         FROM messages m JOIN threads t ON t.id = m.thread_id JOIN agents fa ON fa.id = m.from_agent
         LEFT JOIN agents ta ON ta.id = m.to_agent LEFT JOIN messages p ON p.id = m.reply_to
         WHERE ${inScope} ORDER BY m.id`,
      )
      .all(p)
      .map(({ rowid, metadata, ...m }) => {
        const files = exportAttachments(ctx, dbPath, rowid);
        return {
          ...m,
          metadata: metadata ? (JSON.parse(metadata) as Record<string, unknown>) : null,
          receipts: receipts
            .all(rowid)
            .map((d) => ({ agent: d.agent, read_at: isoOfMillis(d.read_at) })),
          acks: acks.all(rowid),
          ...(files ? { attachments: files } : {}),
        };
      });

    const stm = ctx.q
      .get<
        [typeof p],
        {
          id: string;
          agent: string;
          content: string;
          categories: string;
          importance: number;
          source_message_id: string | null;
          created_at: string;
          expires_at: string | null;
          access_count: number;
          last_accessed_at: string | null;
          extractor: string | null;
          about: string | null;
          superseded_by: string | null;
          occurred_at: string | null;
          sources: string;
        }
      >(
        `SELECT s.uid AS id, a.name AS agent, s.content,
                (SELECT json_group_array(category) FROM (SELECT category FROM stm_categories WHERE stm_id = s.id ORDER BY category)) AS categories,
                s.importance, ${messageIdSql('m.uid')} AS source_message_id, ${isoSql('s.created_at')} AS created_at,
                ${isoSql('s.expires_at')} AS expires_at, s.access_count, ${isoSql('s.last_accessed_at')} AS last_accessed_at,
                s.extractor, s.about, (SELECT n.uid FROM stm n WHERE n.id = s.superseded_by) AS superseded_by,
                ${isoSql('s.occurred_at')} AS occurred_at,
                (SELECT json_group_array(json_object('message_id', ${messageIdSql('sm.uid')}, 'extractor', src.extractor,
                          'read_from', ${messageIdSql('rm.uid')}))
                   FROM (SELECT * FROM stm_sources WHERE stm_id = s.id ORDER BY added_at, message_id) src
                   JOIN messages sm ON sm.id = src.message_id
                   LEFT JOIN messages rm ON rm.id = src.read_from) AS sources
         FROM stm s JOIN agents a ON a.id = s.agent_id LEFT JOIN messages m ON m.id = s.source_message_id
         WHERE ${sourceInScope('s')} ORDER BY s.id`,
      )
      .all(p)
      .map((s) => ({
        ...s,
        categories: JSON.parse(s.categories) as string[],
        sources: JSON.parse(s.sources) as Array<{
          message_id: string;
          extractor: string | null;
          read_from: string | null;
        }>,
      }));

    const atoms = ctx.q
      .get<[typeof p], ExportDocument['atoms'][number]>(
        `SELECT t.uid AS id, a.name AS agent, t.subject, t.action, t.outcome, t.consequences, t.confidence,
                ${messageIdSql('m.uid')} AS source_message_id, ${isoSql('t.created_at')} AS created_at,
                ${isoSql('t.occurred_at')} AS occurred_at
         FROM atoms t JOIN agents a ON a.id = t.agent_id LEFT JOIN messages m ON m.id = t.source_message_id
         WHERE ${sourceInScope('t')} ORDER BY t.id`,
      )
      .all(p);

    const atomIds = new Set(atoms.map((a) => a.id));
    const atom_links = ctx.q
      .get<[], ExportDocument['atom_links'][number]>(
        `SELECT f.uid AS "from", t.uid AS "to", l.link_type AS type, l.strength, ${isoSql('l.created_at')} AS created_at
         FROM atom_links l JOIN atoms f ON f.id = l.from_atom JOIN atoms t ON t.id = l.to_atom
         ORDER BY l.from_atom, l.to_atom, l.link_type`,
      )
      .all()
      .filter((l) => atomIds.has(l.from) && atomIds.has(l.to));

    const used = new Set<string>();
    for (const t of threads) used.add(t.created_by);
    for (const m of messages) {
      used.add(m.from);
      if (m.to) used.add(m.to);
      for (const r of m.receipts) used.add(r.agent);
      for (const a of m.acks) used.add(a.agent);
    }
    for (const k of [...stm, ...atoms]) used.add(k.agent);
    const agents = ctx.q
      .get<
        [],
        {
          name: string;
          display_name: string | null;
          capabilities: string;
          created_at: string;
          last_seen_at: string;
        }
      >(
        `SELECT name, display_name, capabilities, ${isoSql('created_at')} AS created_at,
                ${isoSql('last_seen_at')} AS last_seen_at FROM agents ORDER BY id`,
      )
      .all()
      .filter((a) => scope.thread === null || used.has(a.name))
      .map((a) => ({ ...a, capabilities: JSON.parse(a.capabilities) as string[] }));

    return {
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      agents,
      threads,
      messages,
      stm,
      atoms,
      atom_links,
      // The assistant's state belongs to the whole brain, not to one thread.
      ...(scope.thread === null ? exportAssistant(ctx) : noAssistant()),
    };
  })();
}
