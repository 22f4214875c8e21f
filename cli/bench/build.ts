import type { Brain, LinkType, Priority } from '../../src/index.js';
import { createRandom, type Random } from './random.js';
import type { TextGenerator } from './text.js';

/** Twenty agents; the first ones talk more (they are picked with a skew). */
export const AGENTS = [
  'helios', 'nova', 'atlas', 'vega', 'orion', 'lyra', 'juno', 'kepler', 'sol', 'iris',
  'echo', 'rhea', 'titan', 'zephyr', 'ceres', 'pax', 'mira', 'onyx', 'dex', 'sage',
] as const; // prettier-ignore

/** Agents that stop reading their mail near the end: they hold unread backlogs. */
export const BACKLOG_AGENTS = ['onyx', 'dex', 'sage'] as const;
/** Every 500 messages (fewer in small brains), each agent reads its inbox with this probability. */
const sessionEvery = (n: number) => Math.max(10, Math.min(500, Math.floor(n / 40)));
const READ_CHANCE = 0.7;
/** Backlog agents stop reading for the last 3% of the build, and at least four sessions. */
const backlogFrom = (n: number) => n - Math.max(0.03 * n, 4 * sessionEvery(n));

export const BROADCAST_SHARE = 0.1;
/** STM entries and atoms: one each per ten messages, exactly. */
export const KNOWLEDGE_EVERY = 10;
const SOURCE_SHARE = 0.8;
const LINK_SHARE = 0.3;
/** Threads that never end (a team channel): the longest holds this share, at least MIN_LONG. */
const STANDING = [
  { subject: 'ops daily', share: 0.01 },
  { subject: 'research notes', share: 0.006 },
  { subject: 'incident room', share: 0.004 },
];
const MIN_LONG = 60;
/** How many ordinary threads are open at once. */
const OPEN_THREADS = 40;
const SPAN_MS = 365 * 24 * 3600 * 1000;
const CATEGORIES = [
  'decisions',
  'people',
  'plans',
  'ops',
  'research',
  'family',
  'travel',
  'hobbies',
];
const TAGS = ['ops', 'research', 'urgent', 'release', 'customer', 'infra'];
const LINK_TYPES: LinkType[] = ['causes', 'enables', 'precedes', 'correlates'];

export interface BuildOptions {
  messages: number;
  text: TextGenerator;
  seed?: number;
  /** Writes per transaction (default 2,000 messages with their knowledge and reads). */
  batch?: number;
  /** The build's last message is this long before now (ms since epoch; default Date.now()). */
  now?: number;
  /** Called after each batch. */
  onProgress?: (done: number, total: number) => void;
  /** Let the event loop breathe between batches (signals, progress). */
  yieldEvery?: () => Promise<void>;
}

export interface BuildStats {
  messages: number;
  broadcasts: number;
  replies: number;
  threads: number;
  stm: number;
  stm_with_source: number;
  atoms: number;
  atoms_with_source: number;
  links: number;
  /** Unread deliveries per agent at the end of the build. */
  unread: Record<string, number>;
  body_bytes: number;
  seconds: number;
  /** What the measurements need. */
  long_thread: { id: string; messages: number };
  knowledge_sample: string[];
}

interface OpenThread {
  uid?: string;
  last?: string;
  lastFrom?: string;
  members: string[];
  count: number;
  target: number;
  tags?: string[];
}

/** Thread lengths with a long tail: most are a few messages, some run to hundreds. */
function threadLength(r: Random): number {
  return Math.min(400, Math.max(1, Math.floor(1 / (1 - r.next()) ** 0.8)));
}

function priority(r: Random): Priority {
  const x = r.next();
  return x < 0.15 ? 'info' : x < 0.85 ? 'normal' : x < 0.95 ? 'action' : 'urgent';
}

/**
 * Build a brain of `messages` messages through the library's own write paths (send, read,
 * remember, createAtom, link), many per transaction. Deterministic for a given seed.
 */
export async function buildBrain(brain: Brain, options: BuildOptions): Promise<BuildStats> {
  const started = performance.now();
  const n = options.messages;
  const r = createRandom(options.seed ?? 42);
  const t = options.text;
  const batch = options.batch ?? 2000;
  const end = (options.now ?? Date.now()) - 60_000;
  const start = end - SPAN_MS;
  const stats: BuildStats = {
    messages: 0,
    broadcasts: 0,
    replies: 0,
    threads: 0,
    stm: 0,
    stm_with_source: 0,
    atoms: 0,
    atoms_with_source: 0,
    links: 0,
    unread: {},
    body_bytes: 0,
    seconds: 0,
    long_thread: { id: '', messages: 0 },
    knowledge_sample: [],
  };
  const pickAgent = () => AGENTS[r.skewed(AGENTS.length, 1.6)]!;
  const otherThan = (a: string) => {
    let b = pickAgent();
    while (b === a) b = r.pick(AGENTS);
    return b;
  };
  const newThread = (): OpenThread => {
    const a = pickAgent();
    const members = [a, otherThan(a)];
    while (r.chance(0.15) && members.length < 5) members.push(r.pick(AGENTS));
    return {
      members: [...new Set(members)],
      count: 0,
      target: threadLength(r),
      ...(r.chance(0.2) ? { tags: [r.pick(TAGS)] } : {}),
    };
  };
  const standing = STANDING.map((s) => ({
    ...s,
    p: Math.max(s.share, Math.min(0.05, MIN_LONG / n)),
    thread: { members: [...AGENTS], count: 0, target: Infinity } as OpenThread,
  }));
  const open = Array.from({ length: OPEN_THREADS }, newThread);
  const recentAtoms: string[] = [];
  // Reservoir of knowledge ids with a source, for find_provenance.
  const sample = stats.knowledge_sample;
  let sampled = 0;
  const keepSample = (id: string) => {
    sampled++;
    if (sample.length < 200) sample.push(id);
    else if (r.chance(200 / sampled)) sample[r.int(0, 199)] = id;
  };

  for (const a of AGENTS) brain.touchAgent(a);
  const backlogs = new Set<string>(BACKLOG_AGENTS);
  const stopReading = backlogFrom(n);
  const session = sessionEvery(n);

  const readAll = (agent: string) => {
    while (brain.messages.read({ agent, limit: 1000 }).length === 1000);
  };

  const step = (i: number) => {
    const at = start + ((i + r.next()) / n) * SPAN_MS;
    const atIso = new Date(at).toISOString();
    let thread: OpenThread | undefined;
    let x = r.next();
    for (const s of standing) {
      if (x < s.p) {
        thread = s.thread;
        break;
      }
      x -= s.p;
    }
    let slot = -1;
    if (!thread) {
      slot = r.int(0, open.length - 1);
      thread = open[slot]!;
    }
    const from =
      thread.members.length === 2
        ? thread.members[thread.count % 2]!
        : r.pick(thread.members.filter((m) => m !== thread.lastFrom));
    const broadcast = r.chance(BROADCAST_SHARE);
    const to = broadcast ? null : r.pick(thread.members.filter((m) => m !== from));
    const body = t.body();
    const reply = thread.last !== undefined && r.chance(0.7);
    const sent = brain.messages.send({
      from,
      to,
      body,
      priority: priority(r),
      ...(thread.uid ? { thread: thread.uid } : { subject: t.subject(), tags: thread.tags }),
      ...(reply ? { reply_to: thread.last } : {}),
      ...(r.chance(0.05) ? { metadata: { ticket: `OPS-${r.int(100, 9999)}` } } : {}),
      at: atIso,
    });
    if (!thread.uid) stats.threads++;
    thread.uid = sent.thread_id;
    thread.last = sent.id;
    thread.lastFrom = from;
    thread.count++;
    stats.messages++;
    stats.body_bytes += Buffer.byteLength(body);
    if (broadcast) stats.broadcasts++;
    if (reply) stats.replies++;
    if (slot >= 0 && thread.count >= thread.target) {
      if (r.chance(0.1)) brain.messages.setThreadStatus(thread.uid, 'archived');
      open[slot] = newThread();
    }

    const knowledgeAt = new Date(at + 1000).toISOString();
    const author = to ?? from;
    if (i % KNOWLEDGE_EVERY === 3) {
      const withSource = r.chance(SOURCE_SHARE);
      const stm = brain.knowledge.remember({
        agent: author,
        content: r.chance(0.5) ? `${from} said: ${t.sentence()}` : t.sentence(),
        categories: Array.from({ length: r.int(0, 2) }, () => r.pick(CATEGORIES)),
        importance: r.int(10, 30) / 10,
        ...(withSource ? { source_message_id: sent.id } : {}),
        ...(r.chance(0.15)
          ? { expires_at: new Date(at + r.int(7, 90) * 86_400_000).toISOString() }
          : {}),
        at: knowledgeAt,
      });
      stats.stm++;
      if (withSource) {
        stats.stm_with_source++;
        keepSample(stm.id);
      }
    }
    if (i % KNOWLEDGE_EVERY === 7) {
      const withSource = r.chance(SOURCE_SHARE);
      const atom = brain.knowledge.createAtom({
        agent: author,
        subject: t.subject(),
        action: t.sentence(),
        outcome: t.sentence(),
        consequences: r.chance(0.5) ? t.sentence() : '',
        confidence: r.int(1, 10) / 10,
        ...(withSource ? { source_message_id: sent.id } : {}),
        at: knowledgeAt,
      });
      stats.atoms++;
      if (withSource) {
        stats.atoms_with_source++;
        keepSample(atom.id);
      }
      if (recentAtoms.length > 0 && r.chance(LINK_SHARE)) {
        brain.knowledge.link({
          from: r.pick(recentAtoms),
          to: atom.id,
          type: r.pick(LINK_TYPES),
          strength: r.int(1, 10) / 10,
        });
        stats.links++;
      }
      recentAtoms.push(atom.id);
      if (recentAtoms.length > 50) recentAtoms.shift();
    }

    // Agent k's reading sessions fall k/20 of a session apart, so the unread counts vary.
    const late = i >= stopReading;
    AGENTS.forEach((agent, k) => {
      if ((i + 1 + Math.floor((k * session) / AGENTS.length)) % session !== 0) return;
      if (late && backlogs.has(agent)) return;
      if (r.chance(READ_CHANCE)) readAll(agent);
    });
  };

  for (let i = 0; i < n;) {
    const stop = Math.min(n, i + batch);
    brain.batch(() => {
      for (; i < stop; i++) step(i);
    });
    options.onProgress?.(i, n);
    await options.yieldEvery?.();
  }

  for (const agent of AGENTS) stats.unread[agent] = brain.messages.poll(agent).unread;
  const longest = standing.map((s) => s.thread).reduce((a, b) => (b.count > a.count ? b : a));
  stats.long_thread = { id: longest.uid ?? '', messages: longest.count };
  stats.seconds = (performance.now() - started) / 1000;
  return stats;
}
