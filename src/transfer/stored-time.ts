import { z } from 'zod';

/** ISO time exactly as stored (so a round trip changes nothing). */
export const storedTime = z
  .string()
  .regex(
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/,
    'must be an ISO time like 2026-01-31T12:00:00.000Z',
  )
  // The shape alone lets through a 13th month or a 25th hour, which have no milliseconds.
  .refine((s) => Number.isFinite(Date.parse(s)), 'must be a time that exists');
