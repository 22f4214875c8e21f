import { afterAll } from 'vitest';

/**
 * Counts of one category's hostile cases: how many were tried, refused, and let through. Each
 * case records its outcome (after asserting that the effect did not happen); the category prints
 * one line when its file ends, so `npm test` shows the suite's figures.
 */
export function tally(category: string) {
  const counts = { tried: 0, refused: 0, through: 0 };
  afterAll(() => {
    console.log(
      `security/${category}: ${counts.tried} tried, ${counts.refused} refused, ${counts.through} let through`,
    );
  });
  return {
    /** A hostile case whose effect did not happen. */
    refused() {
      counts.tried++;
      counts.refused++;
    },
    /** A hostile case whose effect happened: the test that records it must also fail. */
    through() {
      counts.tried++;
      counts.through++;
    },
    counts,
  };
}
