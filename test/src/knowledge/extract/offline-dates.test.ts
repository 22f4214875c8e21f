import { describe, expect, it } from 'vitest';
import { pinDates } from '../../../../src/knowledge/extract/offline-dates.js';

// A Friday.
const FRIDAY = '2024-05-10T09:00:00.000Z';

describe('relative dates pinned to the day they were said', () => {
  it('pins days, weeks, months and years around the day', () => {
    expect(pinDates('I went yesterday and go again tomorrow.', FRIDAY)).toBe(
      'I went yesterday (9 May 2024) and go again tomorrow (11 May 2024).',
    );
    expect(pinDates('Tonight, then next month.', FRIDAY)).toBe(
      'Tonight (10 May 2024), then next month (June 2024).',
    );
    expect(pinDates('Last year and last week.', FRIDAY)).toBe(
      'Last year (2023) and last week (the week before 10 May 2024).',
    );
    expect(pinDates('Since last month.', '2024-01-15T00:00:00.000Z')).toBe(
      'Since last month (December 2023).',
    );
  });

  it('reads a weekday ahead as the coming one, and behind as the last one', () => {
    expect(pinDates('Send it by Monday.', FRIDAY)).toBe('Send it by Monday (13 May 2024).');
    // Said on a Friday, "on Friday" is a week later, and "last Friday" a week before.
    expect(pinDates('Meet on Friday, as last Friday.', FRIDAY)).toBe(
      'Meet on Friday (17 May 2024), as last Friday (3 May 2024).',
    );
  });

  it('leaves the text alone when the day it was said is unknown', () => {
    expect(pinDates('See you tomorrow.', 'not a date')).toBe('See you tomorrow.');
    expect(pinDates('On Mondays we rest.', FRIDAY)).toBe('On Mondays we rest.');
  });
});
