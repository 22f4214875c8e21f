/**
 * Rendered Telegram HTML cut into messages of at most `limit` characters (Telegram's 4,096),
 * counted on the HTML itself so a part is never over the limit however Telegram counts. Cuts
 * fall on a paragraph break, else a line break, else a space, else anywhere between two
 * characters (never inside a tag or an entity). Tags open at a cut are closed at the end of
 * the part and opened again at the start of the next, so a code block cut in two is two
 * balanced `<pre>` blocks. Parts that would show nothing are dropped.
 */
export const TELEGRAM_MESSAGE_LIMIT = 4096;

interface Unit {
  text: string;
  /** For a tag: its name, and whether it opens or closes. */
  tag?: { name: string; open: boolean };
}

interface Cut {
  /** The index of the first unit after the cut. */
  at: number;
  stack: string[];
}

export function splitTelegramHtml(html: string, limit = TELEGRAM_MESSAGE_LIMIT): string[] {
  if (html.length <= limit) return visible(html) ? [html.trim()] : [];
  const units = tokenize(html);
  const parts: string[] = [];
  let start = 0;
  let prefix: string[] = [];
  while (start < units.length) {
    const opening = prefix.join('');
    let length = opening.length;
    let stack = [...prefix];
    let para: Cut | undefined;
    let line: Cut | undefined;
    let space: Cut | undefined;
    let i = start;
    for (; i < units.length; i++) {
      const unit = units[i]!;
      const next = applyTag(stack, unit);
      if (length + unit.text.length + closing(next).length > limit) break;
      stack = next;
      length += unit.text.length;
      if (unit.text === '\n') {
        if (units[i - 1]?.text === '\n') para = { at: i + 1, stack };
        else line = { at: i + 1, stack };
      } else if (unit.text === ' ') space = { at: i + 1, stack };
    }
    let cut: Cut;
    if (i >= units.length) cut = { at: units.length, stack };
    else {
      const half = start + (i - start) / 2;
      cut =
        (para && para.at > half ? para : undefined) ??
        line ??
        para ??
        space ??
        // Nothing to cut at: at least one unit goes, so the loop always moves on.
        (i > start ? { at: i, stack } : { at: i + 1, stack: applyTag(stack, units[i]!) });
    }
    const body = units
      .slice(start, cut.at)
      .map((u) => u.text)
      .join('');
    const part = (opening + body).replace(/\s+$/, '') + closing(cut.stack);
    if (visible(part)) parts.push(part.replace(/^\s+/, ''));
    prefix = cut.stack;
    start = cut.at;
  }
  return parts;
}

/** Tags, entities and single characters; our renderer's output has no `<` outside a tag. */
function tokenize(html: string): Unit[] {
  const units: Unit[] = [];
  const re = /<(\/?)([a-z-]+)[^>]*>|&[#a-z0-9]+;|[\s\S]/giy;
  let m: RegExpExecArray | null;
  while ((m = re.exec(html)) !== null) {
    if (m[2]) units.push({ text: m[0], tag: { name: m[2].toLowerCase(), open: m[1] !== '/' } });
    else units.push({ text: m[0] });
  }
  return units;
}

/** The open-tag stack after a unit: each entry is the opening tag as written, to open it again. */
function applyTag(stack: string[], unit: Unit): string[] {
  if (!unit.tag) return stack;
  if (unit.tag.open) return [...stack, unit.text];
  const at = stack.map(tagName).lastIndexOf(unit.tag.name);
  return at < 0 ? stack : stack.slice(0, at);
}

const tagName = (opening: string) => /^<([a-z-]+)/i.exec(opening)![1]!.toLowerCase();

function closing(stack: string[]): string {
  return stack
    .map((t) => `</${tagName(t)}>`)
    .reverse()
    .join('');
}

/** Whether a part shows anything once its tags are gone. */
function visible(html: string): boolean {
  return html.replace(/<[^>]*>/g, '').trim() !== '';
}
