import type { TextGenerator } from './text.js';

/**
 * The fixed set of 50 search queries, of mixed rarity. Very common words are the hard part of
 * full-text search (FTS5 scores every match before it can rank), so the set holds plenty.
 */
export const FIXED_QUERIES: readonly string[] = [
  // Very common words and phrases (stop words dropped, or all of them when nothing else is left).
  'the time we',
  'what did you do',
  'I think so',
  'that is great',
  'thanks for sharing',
  'how are you doing',
  'so proud of you',
  'last week',
  'really good',
  'love it',
  'you know',
  'it was so much fun',
  // People.
  'Caroline',
  'Melanie',
  'Jon',
  'Gina',
  'John',
  'Maria',
  'what did Caroline say about the support group',
  'Melanie and the kids',
  'helios',
  'nova said',
  // Topics of middling frequency.
  'pottery class',
  'adoption agency',
  'dance studio',
  'clothing store',
  'camping trip',
  'painting',
  'marathon',
  'homeless shelter',
  'city council',
  'violin',
  'hiking in the mountains',
  'the beach at sunset',
  'job finished in minutes',
  'ticket blocked',
  'pushed to main',
  // Rare words and exact phrases.
  'mesmerized by the castles',
  'transgender',
  'LGBTQ art show',
  'a photo of us after one of the dance classes',
  // Questions as people ask them.
  'When did Caroline go to the LGBTQ support group?',
  'What did Melanie paint last summer?',
  'Where did Jon open his dance studio?',
  'How long has Maria been volunteering?',
];

/** The 50 queries: the fixed ones and five code names from the head to the far tail. */
export function benchQueries(text: TextGenerator): string[] {
  const codenames = [0, 50, 1_000, 8_000, 19_990].map((i) => text.codename(i));
  return [...FIXED_QUERIES, ...codenames];
}
