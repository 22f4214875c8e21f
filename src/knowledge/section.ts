import {
  atomChain,
  createAtom,
  getAtom,
  linkAtoms,
  type AtomInput,
  type ChainInput,
  type LinkInput,
} from './atoms.js';
import { flushAccesses } from './access-counts.js';
import { findProvenance, type ProvenanceInput } from './provenance.js';
import { getStm, listStm, remember, type ListStmInput, type RememberInput } from './stm.js';
import {
  forgetProfileFact,
  profileFacts,
  setProfileFact,
  type ProfileFact,
  type ProfileWho,
} from './profile.js';
import { derivedFromMessages } from '../messaging/overview.js';
import {
  extractPass,
  extractStatus,
  type ExtractOptions,
  type ExtractResult,
  type ExtractStatus,
} from './extract/drain.js';
import { listInsights, type Insight } from './extract/insights.js';
import {
  listChanges,
  reflect,
  undoChange,
  type KnowledgeChange,
  type ReflectOptions,
  type ReflectResult,
} from './extract/reflect.js';
import {
  summarizeThread,
  summaryPass,
  threadSummary,
  type Summarizer,
  type SummaryPassOptions,
  type SummaryPassResult,
  type ThreadSummary,
} from './extract/summary.js';
import type { InsightsInput } from './input.js';
import type { Extractor } from './extract/types.js';
import {
  startExtractionWorker,
  type ExtractionWorker,
  type ExtractionWorkerOptions,
} from './extract/worker.js';

import type { BrainContext } from '../context.js';

/** What was learned: short-term memories, atoms and their links, each traced to its message. */
export interface KnowledgeSection {
  remember: (input: RememberInput) => ReturnType<typeof remember>;
  getStm: (id: string) => ReturnType<typeof getStm>;
  listStm: (input?: ListStmInput) => ReturnType<typeof listStm>;
  createAtom: (input: AtomInput) => ReturnType<typeof createAtom>;
  getAtom: (id: string) => ReturnType<typeof getAtom>;
  link: (input: LinkInput) => ReturnType<typeof linkAtoms>;
  chain: (input: ChainInput) => ReturnType<typeof atomChain>;
  provenance: (input: ProvenanceInput) => ReturnType<typeof findProvenance>;
  /** What was learned (STM, atoms) from each of these messages. */
  derivedFromMessages: (ids: string[]) => ReturnType<typeof derivedFromMessages>;
  /** Read the messages `extractor` has not read yet into knowledge (one pass). */
  extract: (extractor: Extractor, options?: ExtractOptions) => Promise<ExtractResult>;
  /** How far `extractor` has read, and what it learned. */
  extractStatus: (extractor: Extractor | string) => ExtractStatus;
  /** Extract in the background until stopped (long-running processes). */
  startExtracting: (extractor: Extractor, options?: ExtractionWorkerOptions) => ExtractionWorker;
  /** What extractors learned, newest first, each with its sources. */
  insights: (input?: InsightsInput) => Insight[];
  /** Summarize a thread now and store it (superseding its older summary); undefined: no words. */
  summarize: (threadId: string, summarizer: Summarizer) => Promise<ThreadSummary | undefined>;
  /** The latest current summary of a thread, or undefined. */
  threadSummary: (threadId: string) => ThreadSummary | undefined;
  /** Summarize the threads that need it: closed or archived ones, and long ones grown since. */
  summarizeThreads: (
    summarizer: Summarizer,
    options?: SummaryPassOptions,
  ) => Promise<SummaryPassResult>;
  /** Go over what was learned since the last reflection: merge, raise, let lapse, propose. */
  reflect: (options?: ReflectOptions) => ReflectResult;
  /** Reflection's changes, newest first. */
  knowledgeChanges: (options?: { limit?: number }) => KnowledgeChange[];
  /** Put back what one of reflection's changes altered. */
  undoChange: (id: number) => KnowledgeChange;
  /** The owner's profile (STM of category `profile` that come from the owner), newest first. */
  profile: (who: ProfileWho, limit?: number) => ProfileFact[];
  /** Add a fact to the profile; a keyed one replaces the current one with its key. */
  setProfileFact: (input: Parameters<typeof setProfileFact>[1]) => ProfileFact;
  /** Take a fact out of the profile (it lapses; nothing is deleted). */
  forgetProfileFact: (id: string) => void;
}

export function knowledgeSection(ctx: BrainContext, _dbPath: string): KnowledgeSection {
  ctx.noted.add(flushAccesses); // listings and provenance note the memories they return
  return {
    remember: (input) => remember(ctx, input),
    getStm: (id) => getStm(ctx, id),
    listStm: (input) => listStm(ctx, input),
    createAtom: (input) => createAtom(ctx, input),
    getAtom: (id) => getAtom(ctx, id),
    link: (input) => linkAtoms(ctx, input),
    chain: (input) => atomChain(ctx, input),
    provenance: (input) => findProvenance(ctx, input),
    derivedFromMessages: (ids) => derivedFromMessages(ctx, ids),
    extract: (extractor, options) => extractPass(ctx, extractor, options),
    extractStatus: (extractor) => extractStatus(ctx, extractor),
    startExtracting: (extractor, options) => startExtractionWorker(ctx, extractor, options),
    insights: (input) => listInsights(ctx, input),
    summarize: (threadId, summarizer) => summarizeThread(ctx, threadId, summarizer),
    threadSummary: (threadId) => threadSummary(ctx, threadId),
    summarizeThreads: (summarizer, options) => summaryPass(ctx, summarizer, options),
    reflect: (options) => reflect(ctx, options),
    knowledgeChanges: (options) => listChanges(ctx, options),
    undoChange: (id) => undoChange(ctx, id),
    profile: (who, limit) => profileFacts(ctx, who, limit),
    setProfileFact: (input) => setProfileFact(ctx, input),
    forgetProfileFact: (id) => forgetProfileFact(ctx, id),
  };
}
