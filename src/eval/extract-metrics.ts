// How much of what was said an extractor knows, against LoCoMo's annotations: each session's
// observations (a fact about a speaker, with the turns that evidence it) and each session's
// summary. Pure functions: the caller runs the extractor and hands over what it returned, with
// turns named by their dia_ids.
import { z } from 'zod';
import { BrainError } from '../errors.js';
import { formatZodError } from '../validation.js';
import { readLocomo, splitEvidence, type LocomoSession } from './locomo-format.js';

/** An extracted entry as the metrics see it: its words and the dia_ids it cites. */
export interface ScoredEntry {
  content: string;
  sources: string[];
}

/** One annotated observation: a fact about `speaker`, evidenced by the turns in `evidence`. */
export interface LocomoObservation {
  text: string;
  speaker: string;
  session: number;
  evidence: string[];
}

export interface LocomoSummary {
  session: number;
  text: string;
}

/** One conversation's turns (by session) with its observations and session summaries. */
export interface LocomoAnnotated {
  id: string;
  speakers: [string, string];
  sessions: LocomoSession[];
  observations: LocomoObservation[];
  summaries: LocomoSummary[];
}

/**
 * The token F1 an entry needs against an observation to count as saying the same thing. Entries
 * are rewritten sentences of the turn and observations are an annotator's paraphrase of it, so
 * words differ even when the fact is the same; at 0.3 with stop words gone, the speaker's name
 * plus two or three content words in common pass, a name and one shared word do not.
 */
export const CONTENT_F1_THRESHOLD = 0.3;

/**
 * English function words (articles, pronouns, auxiliaries, prepositions, conjunctions), close to
 * the common NLTK list: they are shared by any two sentences and say nothing of the fact.
 */
const STOP_WORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being ' +
    'below between both but by can could did do does doing down during each few for from further ' +
    'had has have having he her here hers herself him himself his how i if in into is it its ' +
    'itself just me more most my myself no nor not now of off on once only or other our ours ' +
    'ourselves out over own same she should so some such than that the their theirs them ' +
    'themselves then there these they this those through to too under until up very was we were ' +
    'what when where which while who whom why will with would you your yours yourself yourselves ' +
    's t d ll m re ve don didn doesn isn wasn aren weren won wouldn couldn shouldn hasn haven hadn'
  ).split(' '),
);

/** Lower-cased words without stop words: letters and digits, apostrophes dropped. */
export function contentTokens(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/['’]/g, ' ')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0 && !STOP_WORDS.has(w));
}

/** Token F1 of two texts (words counted with their multiplicity, as in SQuAD). */
export function tokenF1(candidate: string, reference: string): number {
  const c = contentTokens(candidate);
  const r = contentTokens(reference);
  if (c.length === 0 || r.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const w of r) counts.set(w, (counts.get(w) ?? 0) + 1);
  let common = 0;
  for (const w of c) {
    const n = counts.get(w) ?? 0;
    if (n > 0) {
      common++;
      counts.set(w, n - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / c.length;
  const recall = common / r.length;
  return (2 * precision * recall) / (precision + recall);
}

/** A summary against LoCoMo's summary of the same session: token F1, as for entries. */
export function summaryF1(candidate: string, reference: string): number {
  return tokenF1(candidate, reference);
}

export interface ExtractMetrics {
  /** Annotated observations at least one entry cites an evidence turn of, over all of them. */
  provenance_recall: number;
  /** Of the observations cited, those with a citing entry at token F1 ≥ the threshold. */
  content_recall: number;
  entries_per_observation: number;
  /** Entries citing at least one turn that evidences some observation, over all entries. */
  evidence_share: number;
  observations: number;
  entries: number;
  cited: number;
  matched: number;
  evidence_entries: number;
}

/**
 * Scores one conversation's entries against its observations (several conversations: call once
 * per conversation and add the counts with `combineMetrics`, as dia_ids repeat between them).
 */
export function scoreExtraction(
  entries: readonly ScoredEntry[],
  observations: readonly LocomoObservation[],
  threshold = CONTENT_F1_THRESHOLD,
): ExtractMetrics {
  const bySource = new Map<string, ScoredEntry[]>();
  for (const e of entries) {
    for (const s of new Set(e.sources)) {
      const list = bySource.get(s);
      if (list) list.push(e);
      else bySource.set(s, [e]);
    }
  }
  const evidenceTurns = new Set(observations.flatMap((o) => o.evidence));
  let cited = 0;
  let matched = 0;
  for (const o of observations) {
    const citing = new Set(o.evidence.flatMap((id) => bySource.get(id) ?? []));
    if (citing.size === 0) continue;
    cited++;
    for (const e of citing) {
      if (tokenF1(e.content, o.text) >= threshold) {
        matched++;
        break;
      }
    }
  }
  const evidenceEntries = entries.filter((e) => e.sources.some((s) => evidenceTurns.has(s))).length;
  return metricsOf({
    observations: observations.length,
    entries: entries.length,
    cited,
    matched,
    evidence_entries: evidenceEntries,
  });
}

type Counts = Pick<
  ExtractMetrics,
  'observations' | 'entries' | 'cited' | 'matched' | 'evidence_entries'
>;

function ratio(n: number, d: number): number {
  return d === 0 ? 0 : n / d;
}

function metricsOf(c: Counts): ExtractMetrics {
  return {
    provenance_recall: ratio(c.cited, c.observations),
    content_recall: ratio(c.matched, c.cited),
    entries_per_observation: ratio(c.entries, c.observations),
    evidence_share: ratio(c.evidence_entries, c.entries),
    ...c,
  };
}

/** The metrics over several conversations: counts added, then the shares taken (micro average). */
export function combineMetrics(parts: readonly ExtractMetrics[]): ExtractMetrics {
  const sum: Counts = { observations: 0, entries: 0, cited: 0, matched: 0, evidence_entries: 0 };
  for (const p of parts) {
    sum.observations += p.observations;
    sum.entries += p.entries;
    sum.cited += p.cited;
    sum.matched += p.matched;
    sum.evidence_entries += p.evidence_entries;
  }
  return metricsOf(sum);
}

const observationItem = z.tuple([z.string(), z.union([z.string(), z.array(z.string())])]);
const annotations = z.looseObject({
  observation: z.record(z.string(), z.record(z.string(), z.array(observationItem))).optional(),
  session_summary: z.record(z.string(), z.string()).optional(),
});

/**
 * A parsed LoCoMo file → per conversation its turns, observations and session summaries, in
 * session order. A conversation without annotations has empty lists; a malformed one is refused.
 */
export function readLocomoObservations(doc: unknown): LocomoAnnotated[] {
  const conversations = readLocomo(doc);
  const raw = doc as unknown[];
  return conversations.map((conv, n) => {
    const parsed = annotations.safeParse(raw[n]);
    if (!parsed.success) {
      throw new BrainError('INVALID_INPUT', `LoCoMo file: ${n}: ${formatZodError(parsed.error)}`);
    }
    const observations: LocomoObservation[] = [];
    for (const [key, bySpeaker] of Object.entries(parsed.data.observation ?? {})) {
      const m = /^session_(\d+)_observation$/.exec(key);
      if (!m) continue;
      for (const [speaker, items] of Object.entries(bySpeaker)) {
        for (const [text, evidence] of items) {
          observations.push({
            text,
            speaker,
            session: Number(m[1]),
            evidence: splitEvidence(typeof evidence === 'string' ? [evidence] : evidence),
          });
        }
      }
    }
    observations.sort((a, b) => a.session - b.session);
    const summaries: LocomoSummary[] = [];
    for (const [key, text] of Object.entries(parsed.data.session_summary ?? {})) {
      const m = /^session_(\d+)_summary$/.exec(key);
      if (m) summaries.push({ session: Number(m[1]), text });
    }
    summaries.sort((a, b) => a.session - b.session);
    return { ...conv, observations, summaries };
  });
}
