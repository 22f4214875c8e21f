import { createHash } from 'node:crypto';
import type { Brain } from '../src/index.js';
import type { fixedClock } from './helpers.js';

/**
 * A brain that has used every feature that keeps data: messages (direct, broadcast, replies,
 * receipts, acks, metadata, tags, an archived thread, an attachment), memories with categories and an expiry,
 * atoms and a link, and everything the assistant keeps: a session with two threads and one
 * conducted in another agent's thread, reminders (repeating, fired, cancelled, tainted), tasks
 * (done, tainted), cron runs (ok, skipped, error, still running), approvals (settled at once,
 * asked and answered, still waiting), an always-allow rule, pairings (pending, approved), an owner
 * target, model usage, scheduler state, and a lease. The assistant is `assistant`, its owner `ann`.
 */
export function useEveryFeature(brain: Brain, clock: ReturnType<typeof fixedClock>) {
  const tick = () => clock.tick(1000);
  brain.touchAgent('atlas');
  brain.messages.updateAgent({ name: 'atlas', display_name: 'Atlas', capabilities: ['maps'] });
  const m = brain.messages.send({
    from: 'helios',
    to: 'nova',
    subject: 'spread gate',
    body: 'zero power',
    metadata: { run: 7 },
    tags: ['trading'],
  });
  tick();
  const b = brain.messages.send({ from: 'helios', body: 'broadcast', priority: 'urgent' });
  tick();
  const notes = Buffer.from('fill ratio by hour\n');
  // A file prepared by hand (attach() is async; this fixture is not): what attach() would make.
  brain.messages.send({ from: 'nova', to: 'helios', body: 'agreed', reply_to: m.id }, [
    {
      name: 'notes.txt',
      declared_type: 'text/plain',
      media_type: 'text/plain',
      size: notes.length,
      sha256: createHash('sha256').update(notes).digest(),
      text: notes.toString().trim(),
      data: notes,
    },
  ]);
  brain.messages.read({ agent: 'nova' });
  brain.messages.ack({ message_id: m.id, agent: 'nova', body: 'ok' });
  brain.knowledge.remember({
    agent: 'nova',
    content: 'drop the gate',
    categories: ['x', 'y'],
    importance: 2,
    source_message_id: m.id,
    expires_at: '2027-01-01',
    occurred_at: '2025-12-24',
  });
  const a1 = brain.knowledge.createAtom({
    agent: 'nova',
    subject: 'gate',
    action: 'filter',
    outcome: 'none',
    source_message_id: m.id,
    occurred_at: '2025-12-30T10:00:00Z',
  });
  const a2 = brain.knowledge.createAtom({
    agent: 'nova',
    subject: 'halt',
    action: 'halt',
    outcome: 'less',
  });
  brain.knowledge.link({ from: a1.id, to: a2.id, type: 'enables', strength: 0.3 });
  brain.messages.setThreadStatus(b.thread_id, 'archived');

  // The assistant: a session with a turn, then /new and a turn in the fresh thread.
  const who = { name: 'chat/work', agent: 'assistant', owner: 'ann' };
  const first = brain.assistant.session(who);
  tick();
  const asked = brain.messages.send({
    from: 'ann',
    to: 'assistant',
    body: 'plan',
    thread: first.thread_id,
  });
  brain.messages.send({ from: 'assistant', to: 'ann', body: 'done', thread: first.thread_id });
  brain.messages.markRead({ message_id: asked.id, agent: 'assistant' });
  tick();
  const work = brain.assistant.newSession(who);
  tick();
  const turn = brain.messages.send({
    from: 'ann',
    to: 'assistant',
    body: 'next',
    thread: work.thread_id,
  });
  brain.messages.send({ from: 'assistant', to: 'ann', body: 'sure', thread: work.thread_id });
  brain.knowledge.remember({
    agent: 'assistant',
    content: 'summary: ann planned',
    categories: ['summary'],
    source_message_id: turn.id,
  });
  brain.assistant.sessionInThread({
    name: 'inbox/nova',
    agent: 'assistant',
    owner: 'ann',
    thread_id: m.thread_id,
  });

  tick();
  const repeating = brain.assistant.addReminder({
    text: 'stand up',
    mode: 'prompt',
    due_at: '2026-01-02T09:00:00.000Z',
    repeat: '0 9 * * *',
    time_zone: 'Europe/Zurich',
    message_id: turn.id,
    tainted_by: 'tool:web_fetch',
  });
  brain.assistant.fireReminder({
    id: repeating.id,
    due_at: repeating.due_at,
    late: true,
    next_due_at: '2026-01-03T09:00:00.000Z',
  });
  const once = brain.assistant.addReminder({
    text: 'call bob',
    due_at: '2026-01-01T12:00:00.000Z',
  });
  brain.assistant.fireReminder({ id: once.id, due_at: once.due_at });
  brain.assistant.cancelReminder(
    brain.assistant.addReminder({ text: 'never', due_at: '2026-02-01' }).id,
  );
  brain.assistant.addReminder({ text: 'later', due_at: '2026-03-01' });

  brain.assistant.completeTask(
    brain.assistant.addTask({ title: 'file taxes', priority: 'high' }).id,
  );
  brain.assistant.addTask({
    title: 'read the page',
    due_at: '2026-01-05',
    message_id: turn.id,
    tainted_by: 'agent:nova',
  });

  tick();
  const ok = brain.assistant.claimCronRun({ job: 'daily', due_at: '2026-01-01T07:00:00.000Z' })!;
  brain.assistant.finishCronRun({ id: ok.id, outcome: 'ok', delivered: true });
  brain.assistant.claimCronRun({
    job: 'daily',
    due_at: '2025-12-31T07:00:00.000Z',
    outcome: 'skipped',
    detail: 'missed while down',
  });
  const failed = brain.assistant.claimCronRun({
    job: 'weekly',
    due_at: '2025-12-29T07:00:00.000Z',
  })!;
  brain.assistant.finishCronRun({ id: failed.id, outcome: 'error', detail: 'no model answered' });
  brain.assistant.claimCronRun({ job: 'weekly', due_at: '2026-01-01T07:00:00.000Z', late: true });

  brain.assistant.recordApproval({
    tool: 'list_files',
    args: { path: '.' },
    summary: 'list_files .',
    decision: 'allow',
    decided_by: 'policy',
    reason: 'read-only',
    session: 'chat/work',
    message_id: turn.id,
  });
  const asking = brain.assistant.recordApproval({
    tool: 'run_command',
    args: { command: 'git push' },
    summary: 'git push',
    decision: 'pending',
    reason: 'writes outside',
    session: 'chat/work',
  });
  tick();
  brain.assistant.settleApproval({ id: asking.id, decision: 'approved', decided_by: 'owner' });
  brain.assistant.recordApproval({
    tool: 'write_file',
    args: { path: 'a.txt' },
    summary: 'write_file a.txt',
    decision: 'pending',
    reason: 'writes',
    session: 'telegram/42',
  });
  brain.assistant.addApprovalRule({ tool: 'run_command', pattern: 'exactly git log' });

  const pending = brain.assistant.requestPairing({
    channel: 'telegram',
    user_id: '7',
    name: 'Bob',
  });
  const approved = brain.assistant.requestPairing({
    channel: 'telegram',
    user_id: '8',
    name: 'Eve',
  });
  if (approved.status === 'pending')
    brain.assistant.decidePairing({ code: approved.code, decision: 'approve' });
  brain.assistant.setOwnerTarget({ agent: 'assistant', channel: 'telegram', chat_id: '42' });

  brain.assistant.recordUsage({
    source: 'chat',
    session: 'chat/work',
    model: 'claude-fake',
    endpoint: 'anthropic:claude-fake@0',
    input_tokens: 120,
    output_tokens: 30,
    cache_read_tokens: 10,
    message_id: turn.id,
  });
  brain.assistant.recordUsage({
    source: 'compaction',
    model: 'claude-fake',
    endpoint: 'anthropic:claude-fake@0',
    input_tokens: 900,
    output_tokens: 80,
    cache_write_tokens: 5,
  });
  brain.assistant.setSchedulerState('heartbeat:last', {
    at: '2026-01-01T00:00:00.000Z',
    text: 'all quiet',
  });
  brain.assistant.initSchedulerState('cron-since:daily', '2025-12-01T00:00:00.000Z');
  brain.assistant.acquireLease({
    key: 'session:chat/work',
    holder: { pid: process.pid, host: 'here', label: 'turn' },
    ttl_ms: 60_000,
  });
  return { message: m, session: work, firstThread: first.thread_id, pending };
}
