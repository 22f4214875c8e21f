import type { Brain } from '../../src/index.js';

export const HOSTILE = {
  script: '<script>window.__pwned = 1</script>',
  img: '<img src=x onerror="window.__pwned = 2">',
  link: '<a href="javascript:window.__pwned=3">click me</a>',
  long: 'x'.repeat(5000),
  rtl: '\u202Eevil\u202C مرحبا بالعالم שלום',
};
export const HOSTILE_TEXT = Object.values(HOSTILE).join(' ');

export interface Seeded {
  thread: string;
  hostileThread: string;
  message: string;
  stm: string;
  atoms: string[];
  approval: number;
}

/**
 * A small brain with everything the pages show: three agents, a conversation with receipts, an
 * ack and knowledge, an atom chain, assistant data (a session, usage, a pending approval), and
 * hostile text in bodies, subjects, tags and a display name.
 */
export function seedBrain(brain: Brain): Seeded {
  brain.messages.updateAgent({ name: 'nova', display_name: 'Nova, the planner' });
  brain.messages.updateAgent({ name: 'helios', display_name: `Helios ${HOSTILE.img}` });
  const first = brain.messages.send({
    from: 'nova',
    to: 'helios',
    subject: 'Deploy of the search service',
    body: 'The deploy of the search service failed: the disk is full on db-2.',
    priority: 'urgent',
    tags: ['ops', 'deploy'],
  });
  const reply = brain.messages.send({
    from: 'helios',
    to: 'nova',
    thread: first.thread_id,
    reply_to: first.id,
    body: 'I cleared old WAL files on db-2; the deploy went through.',
  });
  brain.messages.send({
    from: 'atlas',
    to: null,
    thread: first.thread_id,
    body: 'Noted for the weekly report.',
    priority: 'info',
  });
  brain.messages.read({ agent: 'helios' });
  brain.messages.ack({ message_id: first.id, agent: 'helios', body: 'on it' });
  const stm = brain.knowledge.remember({
    agent: 'helios',
    content: 'db-2 fills its disk with WAL files when checkpoints stall',
    categories: ['ops'],
    importance: 2,
    source_message_id: reply.id,
  });
  const full = brain.knowledge.createAtom({
    agent: 'helios',
    subject: 'disk full on db-2',
    action: 'deploy',
    outcome: 'failed',
    source_message_id: first.id,
  });
  const cleared = brain.knowledge.createAtom({
    agent: 'helios',
    subject: 'WAL files cleared',
    action: 'cleanup',
    outcome: 'space freed',
    source_message_id: reply.id,
  });
  const deployed = brain.knowledge.createAtom({
    agent: 'helios',
    subject: 'search service deployed',
    action: 'deploy',
    outcome: 'succeeded',
  });
  const report = brain.knowledge.createAtom({
    agent: 'atlas',
    subject: 'weekly report',
    action: 'write',
    outcome: 'sent',
  });
  brain.knowledge.link({ from: full.id, to: cleared.id, type: 'causes', strength: 0.9 });
  brain.knowledge.link({ from: cleared.id, to: deployed.id, type: 'enables', strength: 0.8 });
  brain.knowledge.link({ from: deployed.id, to: report.id, type: 'precedes', strength: 0.4 });

  const hostile = brain.messages.send({
    from: 'mallory',
    to: 'nova',
    subject: `Hostile ${HOSTILE.script}`,
    body: HOSTILE_TEXT,
    tags: [HOSTILE.img.slice(0, 60), 'rtl\u202Etag'],
  });
  brain.knowledge.remember({
    agent: 'mallory',
    content: `memory ${HOSTILE_TEXT}`,
    source_message_id: hostile.id,
  });

  brain.assistant.session({ name: 'chat/default', agent: 'assistant', owner: 'owner' });
  brain.assistant.recordUsage({
    source: 'chat',
    model: 'claude-sonnet',
    endpoint: 'anthropic:0',
    input_tokens: 1200,
    output_tokens: 300,
    at: '2026-11-20T10:00:00.000Z',
  });
  brain.assistant.recordUsage({
    source: 'chat',
    model: 'llama3',
    endpoint: 'ollama:0',
    input_tokens: 800,
    output_tokens: 200,
    at: '2026-11-21T10:00:00.000Z',
  });
  brain.assistant.recordUsage({
    source: 'heartbeat',
    model: 'claude-sonnet-4-5',
    endpoint: 'anthropic:0',
    input_tokens: 1_000_000,
    output_tokens: 100_000,
    at: '2026-11-22T10:00:00.000Z',
  });
  brain.assistant.claimCronRun({ job: 'morning-briefing', due_at: '2026-11-22T07:00:00.000Z' });
  brain.assistant.addReminder({
    text: `reminder ${HOSTILE.script} ${HOSTILE.img}`,
    due_at: '2030-01-01T09:00:00.000Z',
  });
  brain.assistant.addTask({ title: 'Renew the passport' });
  const approval = brain.assistant.recordApproval({
    tool: 'shell',
    args: { command: 'rm -rf /tmp/cache' },
    summary: 'rm -rf /tmp/cache',
    decision: 'pending',
  });
  return {
    thread: first.thread_id,
    hostileThread: hostile.thread_id,
    message: first.id,
    stm: stm.id,
    atoms: [full.id, cleared.id, deployed.id, report.id],
    approval: approval.id,
  };
}
