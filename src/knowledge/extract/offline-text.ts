// The text the offline extractor reads: a message body cut into sentences, without code,
// emoji, greetings and the fillers of talk, each sentence short enough to be an entry.

/** How much of a body is read: a long message's first part says what it is about. */
export const MAX_BODY_CHARS = 4000;
const MAX_SENTENCES = 40;
/** Words an entry keeps: one clause or sentence. */
export const MAX_ENTRY_WORDS = 30;

const ABBREVIATION = /\b(?:mr|mrs|ms|dr|st|vs|etc|e\.g|i\.e|approx|no)\.$/i;

/** A line of code or a shell prompt rather than words; a quoted line ("> …") is another's words. */
function isCodeLine(line: string): boolean {
  const symbols = line.match(/[{}();=<>[\]|$\\]/g)?.length ?? 0;
  return (
    /^\s*(?:\$ |> |#!|\/\/|\/\*|import |export |const |let |var |function |def |class |return )/.test(
      line,
    ) ||
    (symbols >= 3 && symbols / Math.max(line.length, 1) > 0.04)
  );
}

/** The sentences of a body, in order, code blocks and code lines left out. */
export function sentencesOf(body: string): string[] {
  const text = body
    .slice(0, MAX_BODY_CHARS)
    .replace(/```[\s\S]*?(?:```|$)/g, '\n')
    .replace(/`([^`\n]*)`/g, '$1')
    .replace(/https?:\/\/\S+/g, '')
    // An attachment's description ("[shares a photo of …]") says what was sent, not what was said.
    .replace(/\[shares? [^\]]*\]/gi, '');
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (isCodeLine(line)) continue;
    const pieces = line.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, '').split(/(?<=[.!?…])\s+|\s+[-–—]\s+/);
    let pending = '';
    for (const piece of pieces) {
      const s = pending ? `${pending} ${piece}` : piece;
      if (ABBREVIATION.test(s)) {
        pending = s;
        continue;
      }
      pending = '';
      if (s.trim()) out.push(s.trim());
      if (out.length >= MAX_SENTENCES) return out;
    }
    if (pending.trim()) out.push(pending.trim());
    if (out.length >= MAX_SENTENCES) return out;
  }
  return out;
}

const EMOJI = /\p{Extended_Pictographic}|\p{Emoji_Modifier}|\u{FE0F}|\u{200D}/gu;

/** Interjections and discourse markers that open a sentence and carry nothing of its fact. */
const OPENER =
  /^(?:(?:thanks|thank you|thx)(?: so much| a lot| a bunch)? for [^,.!;]+[,.!;]+|hey|hi|hello|yo|oh|ooh|wow|whoa|yeah|yes|yep|yup|yay|no|nope|nah|ok|okay|sure|well|so|thanks|thank you|thx|haha+|hehe|lol|aww+|ah+|hmm+|um+|uh|cool|great|awesome|nice|sweet|totally|definitely|absolutely|of course|right|also|and|but|plus|btw|by the way|anyway|anyways|actually|honestly|omg|sounds good|true|exactly|indeed|gosh|man|dude|guys|again|good point|fair enough|fyi|note|heads up|ps|p\.s)\b[\s,!.:;-]*/i;

/** Patterns of the people of a turn named as address ("Thanks, Gina!", "…, Jon."). */
export function vocativesOf(people: readonly string[]): RegExp[] {
  const out: RegExp[] = [];
  for (const name of new Set(people)) {
    if (!name) continue;
    const n = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    out.push(
      new RegExp(
        `^(?:(?:hey|hi|hello|thanks|thank you|yo|oh|wow|yeah|yes|sorry)\\s+)?${n}\\s*[,!.:;-]+\\s*`,
        'i',
      ),
      new RegExp(`,\\s*${n}(?=\\s*[.!?]*$)`, 'i'),
    );
    // A short form of the name ("Mel, I'm…" to Melanie).
    if (name.length > 4) {
      const short = n.slice(0, 3);
      out.push(new RegExp(`^${short}[a-z]{0,3},\\s+(?=[A-Za-z])`));
    }
  }
  return out;
}

/** A sentence without emoji, vocatives and opening fillers, casual forms spelt out. */
export function cleanSentence(sentence: string, vocatives: readonly RegExp[]): string {
  let s = sentence.replace(EMOJI, '').replace(/\s+/g, ' ').trim();
  s = s
    .replace(/\bgonna\b/gi, 'going to')
    .replace(/\bwanna\b/gi, 'want to')
    .replace(/\bgotta\b/gi, 'have to')
    .replace(/(^|\s)'cause\b/gi, '$1because')
    .replace(/(^|\s)'em\b/gi, '$1them');
  for (let i = 0; i < 6; i++) {
    let next = s.replace(OPENER, '');
    for (const v of vocatives) next = next.replace(v, '');
    if (next === s) break;
    s = next;
  }
  return s.trim();
}

/** Cut to one clause when long: at the last clause boundary before the limit, else at it. */
export function shorten(sentence: string): string {
  const words = sentence.split(/\s+/);
  if (words.length <= MAX_ENTRY_WORDS) return sentence;
  const head = words.slice(0, MAX_ENTRY_WORDS).join(' ');
  const cut = Math.max(head.lastIndexOf(', '), head.lastIndexOf('; '), head.lastIndexOf(' - '));
  return cut > head.length / 2 ? head.slice(0, cut) : head;
}

/** One full stop at the end and the first letter up, unless it starts a name spelt otherwise. */
export function finish(sentence: string, names: readonly string[] = []): string {
  const s = sentence.replace(/[\s,;:.!…-]+$/, '').trim();
  if (!s) return s;
  const keep = names.some((n) => n && s.startsWith(n));
  return `${keep ? s.charAt(0) : s.charAt(0).toUpperCase()}${s.slice(1)}.`;
}
