// What a summarizer is: it reads a thread's turns and says what the thread was, in a few sentences.
// The summary pass (summary.ts) hands it the turns and stores what it returns; it never writes.
import type { ExtractTurn } from './types.js';

export interface Summarizer {
  /** Recorded with every summary as `name@version`. */
  readonly name: string;
  readonly version: number;
  /** The summary of `turns` (a thread's, oldest first), in words that stand alone. */
  summarize(turns: ExtractTurn[]): Promise<string>;
}
