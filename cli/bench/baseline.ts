import { closeSync, fsyncSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { AGENTS } from './build.js';
import { createRandom } from './random.js';
import type { TextGenerator } from './text.js';

/** A message as SYNAPSE's synapse.json held it. */
export interface SynapseMessage {
  id: string;
  from: string;
  to: string | null;
  subject: string;
  body: string;
  priority: string;
  thread: string;
  reply_to?: string;
  read_by: string[];
  timestamp: string;
}

/**
 * The design brain replaces: one JSON file `{"messages": […]}`, read whole, changed and
 * rewritten (and synced, since a send must survive a crash) on every send; read whole and
 * parsed on every poll, which counts the agent's unread messages.
 */
export interface JsonFileDesign {
  readonly path: string;
  send(message: SynapseMessage): void;
  poll(agent: string): number;
  bytes(): number;
}

export function createJsonFileDesign(path: string, messages: SynapseMessage[]): JsonFileDesign {
  const write = (doc: unknown) => {
    const fd = openSync(path, 'w');
    try {
      writeSync(fd, JSON.stringify(doc, null, 2));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  };
  const load = () => JSON.parse(readFileSync(path, 'utf8')) as { messages: SynapseMessage[] };
  write({ version: '1.3', agents: [...AGENTS], messages });
  return {
    path,
    send(message) {
      const doc = load();
      doc.messages.push(message);
      write(doc);
    },
    poll(agent) {
      let unread = 0;
      for (const m of load().messages) {
        const forMe = m.to === agent || (m.to === null && m.from !== agent);
        if (forMe && !m.read_by.includes(agent)) unread++;
      }
      return unread;
    },
    bytes: () => statSync(path).size,
  };
}

/** `n` messages like the brain's (same text, agents, broadcasts), most of them read. */
export function synapseMessages(n: number, text: TextGenerator, seed = 5): SynapseMessage[] {
  const r = createRandom(seed);
  const start = Date.now() - 30 * 86_400_000;
  const out: SynapseMessage[] = [];
  let thread = 't-0';
  for (let i = 0; i < n; i++) {
    const from = r.pick(AGENTS);
    const to = r.chance(0.1) ? null : r.pick(AGENTS.filter((a) => a !== from));
    if (r.chance(0.2)) thread = `t-${i}`;
    const recipients = to === null ? AGENTS.filter((a) => a !== from) : [to];
    out.push({
      id: `msg-${i}`,
      from,
      to,
      subject: text.subject(),
      body: text.body(),
      priority: r.pick(['normal', 'normal', 'normal', 'high', 'low']),
      thread,
      ...(i > 0 && r.chance(0.5) ? { reply_to: `msg-${i - 1}` } : {}),
      read_by: i < n * 0.97 ? recipients.filter(() => r.chance(0.98)) : [],
      timestamp: new Date(start + i * 60_000).toISOString(),
    });
  }
  return out;
}
