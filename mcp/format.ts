import type {
  AtomRecord,
  MessageRecord,
  SearchHit,
  StmRecord,
  ThreadRecord,
} from '../src/index.js';

/*
 * Compact text renderings for the model: ids in full (so it can act on them), times to the
 * minute, bodies in full (they are the content), everything else terse. No colour, no padding.
 */

export function shortTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}

function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function messageText(m: MessageRecord): string {
  const flag = m.priority === 'normal' ? '' : ` [${m.priority}]`;
  const reply = m.reply_to ? ` re ${m.reply_to}` : '';
  return [
    `${m.id} ${shortTime(m.created_at)} ${m.from} → ${m.to ?? 'all'}${flag}${reply} (${m.thread_id})`,
    `subject: ${m.subject}`,
    m.body,
    ...(m.attachments ?? []).map(
      (f) =>
        `attachment: ${f.name} (${f.media_type}, ${f.size} bytes) brain://attachment/${f.sha256}` +
        (f.text_skipped ? ` (text not extracted: ${f.text_skipped})` : ''),
    ),
  ].join('\n');
}

export function messagesText(messages: MessageRecord[], empty = 'no messages'): string {
  return messages.length === 0 ? empty : messages.map(messageText).join('\n\n');
}

export function threadLine(t: ThreadRecord): string {
  const tags = t.tags.length ? ` #${t.tags.join(' #')}` : '';
  return `${t.id} ${shortTime(t.last_message_at)} ${t.status} ${plural(t.message_count, 'msg')}: ${t.subject}${tags}`;
}

export function stmText(s: StmRecord): string {
  const cats = s.categories.length ? ` [${s.categories.join(', ')}]` : '';
  const source = s.source_message_id ? ` from ${s.source_message_id}` : '';
  return `${s.id} ${shortTime(s.created_at)} ${s.agent} importance ${s.importance}${cats}${source}\n${s.content}`;
}

export function atomText(a: AtomRecord): string {
  const source = a.source_message_id ? ` from ${a.source_message_id}` : '';
  const then = a.consequences ? `; then ${a.consequences}` : '';
  return `${a.id} ${shortTime(a.created_at)} ${a.agent} confidence ${a.confidence}${source}\n${a.subject}: ${a.action} → ${a.outcome}${then}`;
}

export function hitText(h: SearchHit, index: number): string {
  const thread = h.thread_id ? ` (${h.thread_id})` : '';
  const from = h.attachment ? `in attachment ${h.attachment}: ` : '';
  const happened = h.occurred_at
    ? ` (happened ${shortTime(h.occurred_at)}${h.matched_time === 'occurred' ? ', in the time asked' : ''})`
    : '';
  return `${index + 1}. ${h.type} ${h.id} ${shortTime(h.time)}${happened} ${h.agent}${thread}: ${oneLine(h.title, 100)}\n   ${from}${oneLine(h.snippet)}`;
}
