import { z } from 'zod';
import { BrainError } from '../errors.js';
import { formatZodError } from '../validation.js';

/** A LoCoMo-format file (snap-research/LoCoMo `data/locomo10.json`): only the fields we read. */
const turn = z.looseObject({
  speaker: z.string().min(1),
  dia_id: z.string().min(1),
  text: z.string(),
  blip_caption: z.string().optional(),
});
export type LocomoTurn = z.infer<typeof turn>;

const qa = z.looseObject({
  question: z.string(),
  evidence: z.array(z.string()).default([]),
  category: z.number().int(),
});

const sample = z.looseObject({
  sample_id: z.string().optional(),
  conversation: z.looseObject({ speaker_a: z.string().min(1), speaker_b: z.string().min(1) }),
  qa: z.array(qa),
});
const locomoFile = z.array(sample).min(1, 'must hold at least one conversation');

export interface LocomoSession {
  index: number;
  date: string;
  turns: LocomoTurn[];
}

export interface LocomoConversation {
  id: string;
  speakers: [string, string];
  sessions: LocomoSession[];
  questions: Array<{ question: string; evidence: string[]; category: number }>;
}

const MONTHS: Record<string, number> = {
  january: 0,
  february: 1,
  march: 2,
  april: 3,
  may: 4,
  june: 5,
  july: 6,
  august: 7,
  september: 8,
  october: 9,
  november: 10,
  december: 11,
};

/** "1:56 pm on 8 May, 2023" → ISO time (UTC); other forms through Date.parse. */
export function parseLocomoDate(s: string): string | undefined {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})/i.exec(s);
  if (m) {
    const month = MONTHS[m[5]!.toLowerCase()];
    if (month === undefined) return undefined;
    const hour = (Number(m[1]) % 12) + (m[3]!.toLowerCase() === 'pm' ? 12 : 0);
    return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]))).toISOString();
  }
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

/** Evidence as written ("D8:6; D9:17" included) → turn ids. */
export function splitEvidence(evidence: string[]): string[] {
  return [
    ...new Set(evidence.flatMap((e) => e.split(/[;,\s]+/)).filter((e) => /^D\d+:\d+$/.test(e))),
  ];
}

/** Check a parsed LoCoMo file and put it in order: sessions by number, evidence split. */
export function readLocomo(doc: unknown): LocomoConversation[] {
  const parsed = locomoFile.safeParse(doc);
  if (!parsed.success) {
    throw new BrainError('INVALID_INPUT', `LoCoMo file: ${formatZodError(parsed.error)}`);
  }
  return parsed.data.map((s, n) => {
    const conv = s.conversation as Record<string, unknown>;
    const sessions: LocomoSession[] = [];
    for (const key of Object.keys(conv)) {
      const m = /^session_(\d+)$/.exec(key);
      if (!m) continue;
      const index = Number(m[1]);
      const turns = z.array(turn).safeParse(conv[key]);
      if (!turns.success) {
        throw new BrainError(
          'INVALID_INPUT',
          `LoCoMo file: ${n}.conversation.${key}: ${formatZodError(turns.error)}`,
        );
      }
      const rawDate = conv[`${key}_date_time`];
      const date = typeof rawDate === 'string' ? parseLocomoDate(rawDate) : undefined;
      if (!date) {
        throw new BrainError(
          'INVALID_INPUT',
          `LoCoMo file: ${n}.conversation.${key}_date_time: must be a date such as "1:56 pm on 8 May, 2023"`,
        );
      }
      sessions.push({ index, date, turns: turns.data });
    }
    sessions.sort((a, b) => a.index - b.index);
    return {
      id: s.sample_id ?? `conversation-${n + 1}`,
      speakers: [s.conversation.speaker_a, s.conversation.speaker_b],
      sessions,
      questions: s.qa.map((q) => ({
        question: q.question,
        evidence: splitEvidence(q.evidence),
        category: q.category,
      })),
    };
  });
}
