/**
 * Cut a reply into messages a chat service accepts (Discord: 2,000 characters, Telegram: 4,096).
 * Cuts fall on a paragraph break, else a line break, else a space, else anywhere; a code fence
 * open at a cut is closed at the end of that part and opened again (with its language) at the
 * start of the next, so every part renders as code where the whole did. No part is empty or only
 * whitespace; the parts, in order, carry all of the text.
 */
export function splitMessage(text: string, limit: number): string[] {
  if (limit < 40) throw new RangeError('splitMessage: limit must be at least 40');
  const parts: string[] = [];
  let rest = text;
  // The fence line to reopen at the start of the next part, when a cut fell inside code.
  let reopen = '';
  while (rest.length > 0) {
    const head = reopen ? `${reopen}\n` : '';
    if (head.length + rest.length <= limit) {
      // The last part; a fence the text itself never closes is left as written.
      push(parts, head + rest);
      break;
    }
    // Room for the part's text, keeping space for a closing fence line ("\n```" or longer).
    const budget = limit - head.length - (maxFenceLength(head + rest) + 1);
    const cut = cutPoint(rest, Math.max(budget, 1));
    const piece = head + rest.slice(0, cut.end);
    const open = openFenceAfter(piece);
    push(parts, open === undefined ? piece : `${piece.replace(/\n*$/, '')}\n${open.marker}`);
    // A long info string would eat the next part's room: reopen with the bare marker then.
    reopen = open === undefined ? '' : open.line.length <= 30 ? open.line : open.marker;
    rest = rest.slice(cut.resume);
  }
  return parts;
}

function push(parts: string[], part: string) {
  if (part.trim() !== '') parts.push(part);
}

/** Where to end this part (`end`) and where the next starts (`resume`, past the break itself). */
function cutPoint(text: string, budget: number): { end: number; resume: number } {
  const window = text.slice(0, budget + 1);
  // Too early a break wastes a message: take one only past the first third of the budget.
  const floor = Math.floor(budget / 3);
  for (const sep of ['\n\n', '\n', ' ']) {
    const at = window.lastIndexOf(sep, budget - sep.length + 1);
    if (at > floor) return { end: at, resume: at + sep.length };
  }
  let end = budget;
  // Do not split a surrogate pair.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return { end, resume: end };
}

interface OpenFence {
  /** The opening line as written (```ts). */
  line: string;
  /** What closes it (```). */
  marker: string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** The fence still open at the end of the text, if any. */
function openFenceAfter(text: string): OpenFence | undefined {
  let open: OpenFence | undefined;
  for (const line of text.split('\n')) {
    const m = FENCE.exec(line);
    if (!m) continue;
    const marker = m[1]!;
    if (open === undefined) {
      if (marker[0] === '`' && m[2]!.includes('`')) continue;
      open = { line: line.trimStart(), marker };
    } else if (
      marker[0] === open.marker[0] &&
      marker.length >= open.marker.length &&
      m[2]!.trim() === ''
    ) {
      open = undefined;
    }
  }
  return open;
}

function maxFenceLength(text: string): number {
  let longest = 3;
  for (const m of text.matchAll(/^ {0,3}(`{3,}|~{3,})/gm))
    longest = Math.max(longest, m[1]!.length);
  return longest;
}
