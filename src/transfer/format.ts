import { z } from 'zod';
import {
  LINK_TYPES,
  PRIORITIES,
  THREAD_STATUSES,
  agentName,
  atomId,
  jsonObject,
  messageId,
  stmId,
  text,
  threadId,
} from '../validation.js';
import { assistantSections } from './assistant-format.js';
import { storedTime } from './stored-time.js';

export const exportAgent = z.strictObject({
  name: agentName,
  display_name: text(200).nullable(),
  capabilities: z.array(text(100)),
  created_at: storedTime,
  last_seen_at: storedTime,
});

export const exportThread = z.strictObject({
  id: threadId,
  subject: text(10_000),
  status: z.enum(THREAD_STATUSES),
  tags: z.array(text(64)),
  created_by: agentName,
  created_at: storedTime,
  last_message_at: storedTime,
  message_count: z.number().int().min(0),
});

export const exportMessage = z.strictObject({
  id: messageId,
  thread_id: threadId,
  from: agentName,
  to: agentName.nullable(),
  reply_to: messageId.nullable(),
  priority: z.enum(PRIORITIES),
  subject: text(10_000).nullable(),
  body: text(Number.MAX_SAFE_INTEGER),
  metadata: jsonObject.nullable(),
  created_at: storedTime,
  receipts: z.array(z.strictObject({ agent: agentName, read_at: storedTime.nullable() })),
  acks: z.array(
    z.strictObject({ agent: agentName, body: text(10_000).nullable(), created_at: storedTime }),
  ),
  /** Present only on messages that carry files: the bytes in base64 (docs/attachments.md). */
  attachments: z
    .array(
      z.strictObject({
        name: text(255),
        media_type: text(255),
        declared_type: text(255).nullable(),
        size: z.number().int().min(0),
        sha256: z.string().regex(/^[0-9a-f]{64}$/),
        text: text(Number.MAX_SAFE_INTEGER).nullable(),
        /** Present only when reading the file's text passed a limit. */
        text_skipped: z.enum(['timeout', 'memory']).optional(),
        data: z.base64(),
      }),
    )
    .max(16)
    .optional(),
});

export const exportStm = z.strictObject({
  id: stmId,
  agent: agentName,
  content: text(100_000),
  categories: z.array(text(64)),
  importance: z.number().min(1).max(3),
  source_message_id: messageId.nullable(),
  created_at: storedTime,
  expires_at: storedTime.nullable(),
  access_count: z.number().int().min(0),
  last_accessed_at: storedTime.nullable(),
  // Knowledge an extractor learned (absent from exports made before extraction existed).
  extractor: text(128).nullable().optional(),
  about: text(10_000).nullable().optional(),
  superseded_by: stmId.nullable().optional(),
  // Event time (absent from exports made before it existed).
  occurred_at: storedTime.nullable().optional(),
  sources: z
    .array(
      z.strictObject({
        message_id: messageId,
        extractor: text(128).nullable(),
        read_from: messageId.nullable().optional(),
      }),
    )
    .optional(),
});

export const exportAtom = z.strictObject({
  id: atomId,
  agent: agentName,
  subject: text(10_000),
  action: text(10_000),
  outcome: text(10_000),
  consequences: text(10_000),
  confidence: z.number().min(0).max(1),
  source_message_id: messageId.nullable(),
  created_at: storedTime,
  // Event time (absent from exports made before it existed).
  occurred_at: storedTime.nullable().optional(),
});

export const exportLink = z.strictObject({
  from: atomId,
  to: atomId,
  type: z.enum(LINK_TYPES),
  strength: z.number().min(0).max(1),
  created_at: storedTime,
});

export const EXPORT_FORMAT = 'brain-export';
/** 1: messages and knowledge; 2: the assistant's tables too (assistant-format.ts). */
export const EXPORT_VERSION = 2;

const knowledgeSections = {
  format: z.literal(EXPORT_FORMAT),
  agents: z.array(exportAgent),
  threads: z.array(exportThread),
  messages: z.array(exportMessage),
  stm: z.array(exportStm),
  atoms: z.array(exportAtom),
  atom_links: z.array(exportLink),
};

/** What a version 1 export (before the assistant's tables were carried) holds: still imported. */
const exportDocumentV1 = z.strictObject({ version: z.literal(1), ...knowledgeSections });

const exportDocumentV2 = z.strictObject({
  version: z.literal(EXPORT_VERSION),
  ...knowledgeSections,
  ...assistantSections,
});

/** What every export starts with; checked first, so a wrong file is named as such. */
export const exportHeader = z.object({
  format: z.literal(EXPORT_FORMAT),
  version: z.union([z.literal(1), z.literal(EXPORT_VERSION)], {
    error: `must be 1 or ${EXPORT_VERSION} (the export versions this brain reads)`,
  }),
});

export const exportDocument = z.discriminatedUnion('version', [exportDocumentV1, exportDocumentV2]);

/** What `exportBrain` writes: always the current version. */
export type ExportDocument = z.infer<typeof exportDocumentV2>;
/** What `importBrain` reads: the current version or an older one. */
export type ImportDocument = z.infer<typeof exportDocument>;
