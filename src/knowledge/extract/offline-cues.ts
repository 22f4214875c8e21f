// The cue phrases of the offline extractor: what kind of knowledge a sentence holds, and what
// marks a sentence as talk about the talk rather than knowledge. Patterns of English only.
import type { ExtractCategory, ExtractedEntry } from './types.js';

/** What a rule finds in a turn: an entry, and how strongly it claims a place among the few kept. */
export interface Found {
  entry: ExtractedEntry;
  weight: number;
}

/*
 * Importance, 1.0 to 3.0, by what forgetting it would cost:
 *   3.0  an agreed decision, a "remind me", a commitment with a deadline;
 *   2.5  one's own decision, a commitment, a to-do with a deadline;
 *   2.0  a proposal ("let's"), a to-do, a strong preference (favourite, love, hate, allergic),
 *        who someone is (work, home, family, name);
 *   1.5  a milder preference (like, enjoy), something that happened (went, started, bought);
 *   1.0  any other statement a speaker makes about themselves.
 */
interface Cue {
  category: ExtractCategory;
  importance: number;
  pattern: RegExp;
}

export const CUES: Cue[] = [
  {
    category: 'decision',
    importance: 3,
    pattern:
      /\b(?:we(?:'ve| have)? (?:decided|agreed|settled on|chose|picked|went with)|(?:final|our) decision|it'?s decided|we(?:'ll| will) go (?:with|ahead with)|we(?:'re| are) going (?:with|ahead with)|let(?:'s| us) (?:go with|go ahead with|stick with|settle on))\b/,
  },
  {
    category: 'decision',
    importance: 2.5,
    pattern:
      /\b(?:i(?:'ve| have)? decided|i(?:'m| am) going (?:with|ahead with)|i(?:'ll| will) go (?:with|ahead with)|i (?:chose|picked|opted for|settled on)|(?:i|we) opted|the plan is)\b/,
  },
  {
    category: 'decision',
    importance: 2,
    pattern: /\blet's [a-z]+\b|\blet us [a-z]+\b/,
  },
  {
    category: 'todo',
    importance: 3,
    pattern: /\bremind me (?:to|about)\b|^i asked to be reminded\b/,
  },
  {
    category: 'todo',
    importance: 2,
    pattern:
      /\b(?:i|we) (?:really |still |also )?(?:need to|have to|must|should|gotta|got to|'ve got to|have got to)\b|\b(?:to-?do|don't (?:let me )?forget to)\b/,
  },
  {
    category: 'commitment',
    importance: 2.5,
    pattern:
      /\b(?:i|we)(?:'ll| will| shall) (?!(?:keep|bear) (?:that|it|this) in mind|let you know|see|try|think|miss|never|always|be (?:there|fine|ok))|\b(?:i|we)(?:'m| am|'re| are) (?:going to|gonna|planning (?:to|on)) |\b(?:i|we) (?:plan|promise|intend|aim) to\b/,
  },
  {
    category: 'preference',
    importance: 2,
    pattern:
      /\b(?:i (?:\w+ )?(?:love|hate|adore|can't stand|cannot stand|prefer|despise)|i(?:'m| am) (?:\w+ )?(?:allergic to|obsessed with|passionate about|a big fan of|a huge fan of)|my (?:favou?rite|fave|fav|top pick|go-to)|(?:is|are) my (?:favou?rite|fave|fav|top pick|go-to|thing)|i(?:'d| would) rather)\b/,
  },
  {
    category: 'preference',
    importance: 1.5,
    pattern:
      /\b(?:i (?:\w+ )?(?:like|enjoy|dislike|don't like|fancy)|i(?:'m| am) (?:\w+ )?(?:into|a fan of|fond of|keen on))\b/,
  },
  {
    category: 'fact',
    importance: 2,
    pattern:
      /\b(?:i (?:work|worked|live|lived|grew up|was born|moved|study|studied|graduated|teach|run|own)|i(?:'m| am) (?:a|an) |i(?:'m| am) from|my (?:name|job|work|career|company|team|boss|wife|husband|partner|sister|brother|mom|mum|mother|dad|father|son|daughter|kids|children|family|parents|grandma|grandmother|grandpa|grandfather|aunt|uncle|cousin|friend|best friend|dog|cat|pet|birthday|home|house|hometown))\b/,
  },
  {
    category: 'fact',
    importance: 1.5,
    pattern:
      /\b(?:i|we) (?:\w+ )?(?:went|visited|started|began|joined|finished|got|bought|adopted|lost|won|took|made|met|signed up|launched|opened|moved|attended|volunteered|tried|learned|learnt|read|watched|saw|traveled|travelled|built|created|wrote|painted|ran|received|became|quit|left|gave|hosted|organized|organised|completed|graduated|celebrated|had)\b|\bi(?:'ve| have) (?:\w+ )?(?:been|started|got|gotten|joined|finished|made|taken|had|learned|tried|seen|visited|bought|written)\b|\bi(?:'m| am) (?:\w+ )?(?:working on|learning|starting|training|taking|reading|writing|building|studying|volunteering|planning|hoping|looking|trying)\b/,
  },
];

/** A time something is due by. */
export const DEADLINE =
  /\b(?:by|before|until) (?:\w+day|tomorrow|tonight|the end of|next|eod|noon|\d)/;

/** First-person words that make a sentence about the speaker. */
export const FIRST_PERSON =
  /\b(?:i|i'm|i've|i'd|i'll|my|mine|we|we're|we've|we'll|we'd|our|let's)\b/;

/**
 * Talk about the talk rather than knowledge: reactions to what the other said (about the
 * listener, not the speaker), promises to reply, pointers to pictures, general praise.
 */
export const PHATIC = [
  /^(?:i|we)(?:'m| am|'re| are) (?:\w+ ){0,2}(?:glad|happy|sorry|proud|thrilled|stoked|delighted|grateful|thankful|impressed|amazed|inspired|moved|touched|here|with you)(?: (?:for|of|to hear|to see|that|about|with|by) (?:you|your|that|this|it|hearing|seeing|how you|what you)\b| (?:you|your)\b|[.!]*$)/,
  /^i (?:\w+ )?(?:agree|understand|know|see|bet|guess|hope|wish|appreciate|hear you|get|mean|can imagine|can't imagine)(?: (?:that|what|how|it|so|you|your|the feeling|too|with you|where)\b|[.!]*$)/,
  /^i (?:\w+ )?(?:agree|bet|guess|hear you|can't wait|cannot wait|can imagine|can't imagine)\b/,
  /^(?:i|we) (?:\w+ )?(?:love|like|admire|adore|appreciate) (?:that|this|it|your|you|how you|what you|seeing|hearing)\b/,
  /^(?:i|we)(?:'ll| will) (?:\w+ )?(?:try|keep (?:that|it|this) in mind|bear (?:that|it|this) in mind|let you know|talk|catch up|chat|see you|keep you posted|keep that up|keep it up|get through)\b/,
  /^let's (?:keep (?:it up|up|going|pushing|in touch|at it|each other)|do (?:it|this)|go\b(?! (?:with|ahead with|for)\b)|hope|see|stay|not|talk (?:again|soon|later)|catch up|chat)\b/,
  /^(?:here'?s|here is|here are|check (?:out )?(?:this|these|it|my|our)|look at (?:this|these|my)|this is (?:a|my) (?:pic|photo|picture|shot))\b/,
  /^(?:it'?s|it is|that'?s|that is|this is|what a) (?:\w+ ){0,2}(?:nice|great|good|amazing|awesome|cool|important|wonderful|crazy|funny|sad|hard|tough|inspiring|incredible|beautiful|lovely)\b/,
];

/** A subject left out, as in chat ("Gonna volunteer next month", "Just got back from Rome"). */
const DROPPED_SUBJECT: Array<[RegExp, string]> = [
  [
    /^(?:gonna|going to|planning to|planning on|hoping to|trying to|working on|thinking (?:of|about)|heading|off to|looking (?:for|into|forward)|getting ready)\b/i,
    "I'm ",
  ],
  [/^been\b/i, "I've "],
  [/^(?:need|gotta|have to|want|wanna|enjoyed)\b/i, 'I '],
  [
    /^(?:just|finally|recently|never|always|still|also|even) \w+ed\b|^(?:just|finally|recently|never|also|even) (?:had|got|went|saw|took|made|met|bought|found|won|lost|began|came|left|finished)\b/i,
    'I ',
  ],
  [
    /^(?:went|got|took|made|met|bought|found|won|lost|began|came|left|spent|started|finished|joined|visited|signed up|tried|learned|moved|adopted|launched|opened|attended|volunteered|finished)\b(?! (?:to|by|for) (?:you|me)\b)/i,
    'I ',
  ],
];

export function restoreSubject(sentence: string): string {
  for (const [pattern, subject] of DROPPED_SUBJECT) {
    if (pattern.test(sentence))
      return subject + sentence.charAt(0).toLowerCase() + sentence.slice(1);
  }
  return sentence;
}

/**
 * Encouragement in the form of a promise or a plan ("I'll keep pushing", "let's make a
 * difference"): it commits to nothing anyone could check, so it is kept as a plain statement,
 * not as a commitment or a decision.
 */
export const ENCOURAGEMENT =
  /^(?:i|we|let's)(?:'ll| will|'m| am|'re| are)? (?:\w+ )?(?:going to |gonna )?(?:keep (?:on )?(?:going|pushing|it up|at it|trying|believing|chasing|spreading|supporting|helping|motivating|inspiring|rocking|shining|moving|movin'|dreaming|smiling|fighting|working hard|doing (?:my|our) (?:best|part))|do (?:my|our) (?:best|part)|make (?:it|this|that) (?:happen|work)|make it\b|never (?:give up|quit|stop)|get through (?:this|it)|be (?:there|right) )|^let's keep \w+ing\b|^(?:let's|we(?:'ll| will| can|'re going to| are going to)) (?:\w+ )?(?:make (?:a |some )?(?:\w+ )?(?:difference|change|memories|impact)|make (?:it|this|that|tomorrow|them|things) \w+|work (?:hard|together)|get to work|join forces|spread|continue|help (?:those|others|people|each other)|have (?:some )?fun|live it up|cherish|show (?:them|the world|everyone))/;

/** Words too vague to make a sentence worth keeping on their own. */
const VAGUE = new Set(
  (
    'really so very just totally definitely absolutely much great good awesome amazing cool nice ' +
    'wow thanks thank glad happy sure know think feel hope agree love like lot lots things thing ' +
    'stuff always also still even way time today yeah yes okay ok fun super pretty kinda bit ' +
    'wait can get got make made keep going gonna'
  ).split(' '),
);

const STOP = new Set(
  (
    'a an the and or but if of to in on at by for with from as is are was were be been being am ' +
    'i me my we us our you your it its this that these those he she they them their his her do ' +
    'does did have has had will would can could should may might must not no so too very just ' +
    "than then there here what which who how when where why all any some i'm i've i'll i'd " +
    "it's that's let's don't can't"
  ).split(' '),
);

export function contentWords(lower: string): number {
  let n = 0;
  for (const w of lower.split(/[^a-z0-9']+/)) {
    if (w.length > 1 && !STOP.has(w) && !VAGUE.has(w)) n++;
  }
  return n;
}

/** Openings of a sentence that point back at what was said, so it cannot stand alone. */
export const POINTS_BACK =
  /^(?:it|it's|its|that|that's|this|these|those|they|they're|there|there's|he|she|he's|she's|what|which|who|how|why|when|where|sounds|looks|seems|must|can|could|would|should|maybe|hope|wish|good|great|nice|glad|wow|so|such|keep|don't|let|take|stay|go|enjoy|congrats|congratulations|thanks|thank|sorry|bye|see|talk|cheers|love|welcome|awesome|amazing|cool|oh|yay|aw|lol|haha)\b/;

/** Judgements of worth: a claim that something is great or important holds no fact. */
export const EVALUATIVE =
  /\b(?:is|are|was|were|be|been|feels?|seems?|sounds?|looks?) (?:\w+ )?(?:so |really |very |super |truly |always |such )?(?:a |an )?(?:amazing|awesome|great|good|nice|cool|important|crucial|key|essential|vital|rewarding|inspiring|tough|hard|priceless|wonderful|beautiful|special|incredible|fantastic|fun|lovely|powerful|meaningful|fulfilling|worth|best|the best|huge|tricky|scary|sad|crazy|perfect|awful|terrible)\b|^(?:\w+ing)\b/;
