import { z } from 'zod';
import { BrainError, formatZodError } from '../../src/index.js';

const fmt = (x: number) => x.toLocaleString('en-US');
/** A whole number within bounds; "1,000,000" and "1_000_000" are understood. */
const whole = (min: number, max: number) => {
  const message = `must be a whole number from ${fmt(min)} to ${fmt(max)}`;
  return z
    .string()
    .transform((s) => s.trim().replace(/[_,]/g, ''))
    .refine((s) => /^\d+$/.test(s), message)
    .transform(Number)
    .refine((v) => v >= min && v <= max, message);
};
const path = z.string().refine((s) => s.trim().length > 0, 'must not be empty');

const benchOptions = z.strictObject({
  messages: whole(100, 10_000_000).default(100_000),
  dir: path.optional(),
  keep: z.boolean().default(false),
  corpus: path.optional(),
  vectors: z.boolean().default(false),
  time: whole(10, 600_000).default(2000),
  runs: whole(1, 1000).default(20),
  baselineMessages: whole(100, 1_000_000).default(10_000),
});
/** Each option's flag as the user typed it (baselineMessages → --baseline-messages). */
const NAMES = Object.fromEntries(
  Object.keys(benchOptions.shape).map((k) => [
    k,
    `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
  ]),
);

/** The options of `brain bench`, checked; loaded only when it runs (zod is not cheap to load). */
export function parseBenchOptions(raw: Record<string, unknown>): z.output<typeof benchOptions> {
  const parsed = benchOptions.safeParse(raw);
  if (!parsed.success) throw new BrainError('INVALID_INPUT', formatZodError(parsed.error, NAMES));
  return parsed.data;
}
