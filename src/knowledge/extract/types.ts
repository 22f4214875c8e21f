// What an extractor is: it reads turns of a conversation and says what was learned from them.
// The drain (queue.ts) hands it turns in thread order and stores what it returns; an extractor
// itself never writes.

/** The knowledge categories an extractor may give an entry. */
export const EXTRACT_CATEGORIES = ['decision', 'fact', 'commitment', 'todo', 'preference'] as const;
export type ExtractCategory = (typeof EXTRACT_CATEGORIES)[number];

/** One turn to read: a message, with who said it to whom and when. */
export interface ExtractTurn {
  /** The message's id (syn_…). */
  id: string;
  thread_id: string;
  /** Who said it (an agent's name). */
  sender: string;
  /** Whom it was said to. */
  recipients: string[];
  /** The thread's subject, when it has one. */
  subject: string | null;
  body: string;
  /** When it was said (ISO 8601, UTC). */
  created_at: string;
}

/** One thing learned, in words that stand alone (no "I", no "this"), and where it came from. */
export interface ExtractedEntry {
  content: string;
  category: ExtractCategory;
  /** 1.0 (worth keeping) to 3.0 (must not be forgotten), as STM's importance. */
  importance: number;
  /**
   * The ids of the turns it was learned from, among those given (the turn being read, and an
   * earlier one when the fact spans turns, as a question and its answer); never empty.
   */
  sources: string[];
  /**
   * What the entry is about, when the extractor can name it ("caroline|works at"): an entry whose
   * key matches an earlier one's and whose content differs supersedes it (a changed decision, a
   * new job). Without a key an entry only merges with near-duplicates.
   */
  key?: string;
  /** When what it says happened (ISO 8601, UTC), when the extractor knows it: its event time. */
  occurred_at?: string;
}

export interface Extractor {
  /** Recorded with every entry and every extraction: `name@version`. */
  readonly name: string;
  /** Raised when what it extracts changes: messages read by an older version are read again. */
  readonly version: number;
  /**
   * What was learned from `turn`. `before` holds the turns that precede it in its thread (oldest
   * first, a few at most), for facts that span turns; entries may cite them as sources.
   */
  extract(turn: ExtractTurn, before: readonly ExtractTurn[]): Promise<ExtractedEntry[]>;
}
