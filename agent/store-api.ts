import type { Brain, MessageRecord, StmRecord } from '../src/index.js';

/**
 * TEMPORARY: the session, lease and usage functions agent-store is adding to `Brain`, as agreed;
 * replaced by `Brain` itself once that branch is merged.
 */
export interface SessionRecord {
  name: string;
  thread_id: string;
  created_at: string;
}
type Holder = { pid: number; host: string; label: string } | string;
export type AssistantBrain = Brain & {
  session(input: { name: string; agent: string; owner: string }): SessionRecord;
  newSession(input: { name: string; agent: string; owner: string }): SessionRecord;
  sessionMessages(input: { thread_id: string; after?: string; limit?: number }): MessageRecord[];
  latestSummary(thread_id: string): { stm: StmRecord; covers_through: string } | undefined;
  acquireLease(input: { key: string; holder: Holder; ttl_ms: number }): boolean;
  renewLease(input: { key: string; holder: Holder; ttl_ms: number }): boolean;
  releaseLease(input: { key: string; holder: Holder }): void;
  recordUsage(input: {
    source: string;
    session?: string;
    model: string;
    endpoint: string;
    input_tokens: number;
    output_tokens: number;
    cache_read_tokens: number;
    cache_write_tokens: number;
    message_id?: string;
  }): void;
};
