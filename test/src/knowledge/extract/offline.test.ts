import { describe, expect, it } from 'vitest';
import {
  createOfflineExtractor,
  extractOffline,
} from '../../../../src/knowledge/extract/offline.js';
import {
  EXTRACT_CATEGORIES,
  type ExtractedEntry,
  type ExtractTurn,
} from '../../../../src/knowledge/extract/types.js';

// Wednesday 8 May 2024, so "by Friday" is the 10th and "yesterday" the 7th.
const AT = '2024-05-08T13:56:00.000Z';
let seq = 0;

function turn(
  sender: string,
  body: string,
  to = sender === 'Alice' ? 'Bob' : 'Alice',
): ExtractTurn {
  seq++;
  return {
    id: `syn_${seq}`,
    thread_id: 'thr_1',
    sender,
    recipients: [to],
    subject: null,
    body,
    created_at: AT,
  };
}

function one(body: string, sender = 'Alice'): ExtractedEntry {
  const t = turn(sender, body);
  const got = extractOffline(t, []);
  expect(got).toHaveLength(1);
  expect(got[0]!.sources).toEqual([t.id]);
  return got[0]!;
}

describe('the offline extractor', () => {
  it('names itself offline, version 1, and answers through the Extractor interface', async () => {
    const ex = createOfflineExtractor();
    expect(ex.name).toBe('offline');
    expect(ex.version).toBe(1);
    const t = turn('Alice', 'I work at Acme as a data engineer.');
    await expect(ex.extract(t, [])).resolves.toEqual(extractOffline(t, []));
  });

  it('notes decisions, and what those who talk decided names them both', () => {
    const we = one("We'll go with Postgres for the queue.");
    expect(we).toMatchObject({ category: 'decision', importance: 3 });
    expect(we.content).toBe('Alice and Bob will go with Postgres for the queue.');
    const decided = one('We decided to ship the beta on Monday.');
    expect(decided.category).toBe('decision');
    expect(decided.content).toBe('Alice and Bob decided to ship the beta on Monday (13 May 2024).');
    const settled = one("Let's go with Redis for the cache.");
    expect(settled).toMatchObject({ category: 'decision', importance: 3 });
    const proposal = one("Let's use pnpm instead of npm.");
    expect(proposal).toMatchObject({ category: 'decision', importance: 2 });
    expect(proposal.content).toBe('Alice and Bob will use pnpm instead of npm.');
  });

  it('notes facts about people in the third person, with the speaker named', () => {
    expect(one('I work at Acme as a data engineer.')).toMatchObject({
      category: 'fact',
      importance: 2,
      content: 'Alice works at Acme as a data engineer.',
    });
    expect(one('My sister is a nurse in Leeds.').content).toBe(
      "Alice's sister is a nurse in Leeds.",
    );
    const went = one('Hey Bob! I went to a support group yesterday and it was so powerful.');
    expect(went.content).toBe(
      'Alice went to a support group yesterday (7 May 2024) and it was so powerful.',
    );
    expect(one('The deploy window is Tuesday at 3pm.').content).toBe(
      'Alice says: The deploy window is Tuesday at 3pm.',
    );
  });

  it('notes commitments and to-dos, a deadline raising their importance', () => {
    const send = one("I'll send the report by Friday.");
    expect(send).toMatchObject({
      category: 'commitment',
      importance: 3,
      content: 'Alice will send the report by Friday (10 May 2024).',
    });
    expect(one('I will review the migration.')).toMatchObject({
      category: 'commitment',
      importance: 2.5,
      content: 'Alice will review the migration.',
    });
    expect(one('Remind me to renew the certificate next week.')).toMatchObject({
      category: 'todo',
      importance: 3,
      content:
        'Alice asked to be reminded to renew the certificate next week (the week after 8 May 2024).',
    });
    expect(one('I need to update the docs.')).toMatchObject({
      category: 'todo',
      importance: 2,
      content: 'Alice needs to update the docs.',
    });
  });

  it('notes preferences, strong ones above mild ones', () => {
    expect(one('I love hiking in the mountains.')).toMatchObject({
      category: 'preference',
      importance: 2,
      content: 'Alice loves hiking in the mountains.',
    });
    expect(one('My favourite editor is Helix.').content).toBe("Alice's favourite editor is Helix.");
    expect(one('I prefer tabs over spaces.').content).toBe('Alice prefers tabs over spaces.');
    expect(one('I enjoy long walks by the river.')).toMatchObject({
      category: 'preference',
      importance: 1.5,
    });
  });

  it('reads labelled decisions and to-dos, and requests to the listener', () => {
    expect(one('Decision: we ship on Monday.')).toMatchObject({
      category: 'decision',
      importance: 3,
      content: 'Alice and Bob decided to ship on Monday (13 May 2024).',
    });
    expect(one('TODO: update the changelog')).toMatchObject({
      category: 'todo',
      content: 'Alice noted a to-do: update the changelog.',
    });
    expect(one('Please send me the logs by Friday.')).toMatchObject({
      category: 'todo',
      importance: 2.5,
      content: 'Alice asked Bob to send Alice the logs by Friday (10 May 2024).',
    });
  });

  it('keeps encouragement worded as a promise as a plain statement, not a commitment', () => {
    expect(one("I'll keep pushing and working hard on the studio.")).toMatchObject({
      category: 'fact',
      importance: 1,
    });
    expect(one("I'll keep the staging server running until Friday.").category).toBe('commitment');
    expect(one("Let's make a difference in our town together.")).toMatchObject({
      category: 'fact',
      importance: 1,
    });
    // "lets" is a verb, not "let's".
    expect(one('Painting lets me relax after work.').category).toBe('fact');
  });

  it('reads the items of a list, and leaves out quoted lines and code', () => {
    const body = [
      'Plan for the week:',
      '* I will send the report by Friday.',
      '- We decided to use Postgres.',
      '> I hate tabs',
      '1. I need to fix the flaky test',
      '```',
      'I love this code',
      '```',
    ].join('\n');
    expect(extractOffline(turn('Alice', body), []).map((e) => [e.category, e.content])).toEqual([
      ['commitment', 'Alice will send the report by Friday (10 May 2024).'],
      ['decision', 'Alice and Bob decided to use Postgres.'],
      ['todo', 'Alice needs to fix the flaky test.'],
    ]);
  });

  it('finds nothing in greetings, acknowledgements, praise and questions', () => {
    for (const body of [
      'Hi Bob!',
      'ok',
      'Thanks, Bob! That is awesome!',
      "I'm so happy for you!",
      'I totally agree.',
      'What do you think about the plan?',
      'Did you hear any inspiring stories?',
      "Here's a pic of my desk.",
      'Talk to you soon!',
    ]) {
      expect(extractOffline(turn('Alice', body), []), body).toEqual([]);
    }
  });

  it('makes one entry of a question and its yes or no, citing both turns', () => {
    const ask = turn('Alice', 'Can we meet Tuesday?');
    const yes = turn('Bob', 'Yes, Tuesday works.');
    expect(extractOffline(yes, [ask])).toEqual([
      {
        content: 'Alice and Bob agreed to meet Tuesday.',
        category: 'decision',
        importance: 3,
        sources: [ask.id, yes.id],
      },
    ]);
    const request = turn('Alice', 'Could you send me the logs by Friday?');
    const sure = turn('Bob', 'Sure, no problem.');
    expect(extractOffline(sure, [request])).toEqual([
      expect.objectContaining({
        content: 'Bob agreed to send Alice the logs by Friday (10 May 2024).',
        category: 'commitment',
        sources: [request.id, sure.id],
      }),
    ]);
    const rome = turn('Alice', 'Have you ever been to Rome?');
    const no = turn('Bob', 'No, never.');
    expect(extractOffline(no, [rome]).map((e) => [e.content, e.sources])).toEqual([
      ['Bob has not been to Rome.', [rome.id, no.id]],
    ]);
  });

  it('makes a decision of a proposal to both and the agreement that answers it', () => {
    const proposal = turn(
      'Alice',
      'The runner has 2 cores. I think we should cap the workers at 2.',
    );
    const agreed = turn('Bob', 'Agreed.');
    expect(extractOffline(agreed, [proposal])).toEqual([
      {
        content: 'Alice and Bob agreed to cap the workers at 2.',
        category: 'decision',
        importance: 3,
        sources: [proposal.id, agreed.id],
      },
    ]);
    // Without a proposal before it, an agreement is no decision.
    expect(extractOffline(agreed, [turn('Alice', 'The runner has 2 cores.')])).toEqual([]);
  });

  it('makes a decision of a question offering two and an answer naming one, citing both', () => {
    const ask = turn('Alice', 'Should we use Postgres or SQLite for the hub?');
    for (const body of ['SQLite.', 'OK, SQLite it is.', "Let's go with SQLite, it is one file."]) {
      const answer = turn('Bob', body);
      expect(extractOffline(answer, [ask])[0]).toEqual({
        content: 'Alice and Bob agreed to use SQLite for the hub.',
        category: 'decision',
        importance: 3,
        sources: [ask.id, answer.id],
      });
    }
    const which = turn('Alice', 'Which database should the hub use, Postgres or SQLite?');
    const pick = turn('Bob', 'Postgres, for the replicas.');
    expect(extractOffline(pick, [which])[0]).toMatchObject({
      content: 'Bob chose Postgres over SQLite (Alice asked: Which database should the hub use).',
      category: 'decision',
      sources: [which.id, pick.id],
    });
    // Naming both, or neither, settles nothing between them.
    expect(extractOffline(turn('Bob', 'SQLite or Postgres, both fine.'), [which])).toEqual([]);
  });

  it('makes a fact of a "what is your…" question and a short answer naming it', () => {
    const ask = turn('Alice', "Nice! What's your favourite colour?");
    const blue = turn('Bob', 'Blue!');
    expect(extractOffline(blue, [ask])).toEqual([
      {
        content: "Bob's favourite colour is Blue.",
        category: 'preference',
        importance: 2,
        sources: [ask.id, blue.id],
      },
    ]);
    // A long answer is read as statements of its own, citing only itself.
    const long = turn('Bob', 'I think blue, because it reminds me of the sea where I grew up.');
    const own = extractOffline(long, [ask]);
    expect(own.length).toBeGreaterThan(0);
    expect(own.every((e) => e.sources.length === 1 && e.sources[0] === long.id)).toBe(true);
  });

  it('links no answer to a question it did not follow, nor to its own speaker', () => {
    const ask = turn('Alice', 'Can we meet Tuesday? Anyway, see you.');
    expect(extractOffline(turn('Bob', 'Yes, sure.'), [ask])).toEqual([]);
    const self = turn('Alice', 'Can we meet Tuesday?');
    expect(extractOffline(turn('Alice', 'Yes, Tuesday works.'), [self])).toEqual([]);
  });

  it('gives each entry a known category, an importance from 1 to 3 and a source', () => {
    const body =
      "Hey Bob! Lost my job as a banker yesterday, so I'm going to start my own business. " +
      'I love dancing and my favourite style is contemporary. We decided to rent a studio.';
    const got = extractOffline(turn('Alice', body), []);
    expect(got.length).toBeGreaterThan(0);
    expect(got.length).toBeLessThanOrEqual(3);
    for (const e of got) {
      expect(EXTRACT_CATEGORIES).toContain(e.category);
      expect(e.importance).toBeGreaterThanOrEqual(1);
      expect(e.importance).toBeLessThanOrEqual(3);
      expect(e.sources.length).toBeGreaterThan(0);
      expect(e.content).not.toMatch(/\b(?:I|my|me)\b/);
    }
    expect(got[0]!.content).toMatch(/^Alice lost their job as a banker yesterday \(7 May 2024\)/);
  });

  it('gives the same entries for the same turn every time', () => {
    const before = [turn('Bob', 'Do you like cooking?')];
    const t = turn('Alice', 'Yes, I do! I went to a cooking class last week and I will go again.');
    const first = extractOffline(t, before);
    expect(first.length).toBeGreaterThan(1);
    for (let i = 0; i < 5; i++) expect(extractOffline(t, before)).toEqual(first);
  });

  it('never throws on empty, odd or huge bodies, and reads only the start of a long one', () => {
    const odd = [
      '',
      '   \n\n ',
      '🎉🎉🎉 👋🏽',
      '```ts\nconst x = { a: 1 };\nexport function f() { return x; }\n```',
      'const y = [1, 2, 3].map((n) => n * 2);',
      '????!!!...',
      '\u0000\u0001 I \uD800',
      'I'.repeat(50_000),
    ];
    for (const body of odd) {
      expect(() => extractOffline(turn('Alice', body), []), body.slice(0, 20)).not.toThrow();
    }
    expect(extractOffline(turn('Alice', odd[3]!), [])).toEqual([]);
    const filler = 'The sky was grey. '.repeat(400);
    const late = extractOffline(turn('Alice', `${filler}I work at Acme.`), []);
    expect(late.map((e) => e.content)).not.toContain('Alice works at Acme.');
    const broken = { id: 'syn_x', body: 'I love tea.' } as unknown as ExtractTurn;
    expect(() => extractOffline(broken, [null as unknown as ExtractTurn])).not.toThrow();
    const odd2 = { ...turn('', 'I love tea.'), recipients: [] };
    expect(extractOffline(odd2, [])[0]?.content).toBe('Someone loves tea.');
  });
});
