import { z } from 'zod';
import { BrainError, formatZodError } from '../../src/index.js';

const serveOptions = z.object({
  host: z.string().min(1, 'must not be empty'),
  port: z.coerce.number().int().min(0).max(65535, 'must be a port number, 0 to 65535'),
  tokens: z.string().min(1).optional(),
  allowOrigin: z.string().optional(),
  maxSessionsPerToken: z.coerce
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(10_000, 'must be at most 10000')
    .default(16),
});

/** The options of `brain serve`, checked; loaded only when it runs (zod is not cheap to load). */
export function parseServeOptions(raw: Record<string, unknown>): z.output<typeof serveOptions> {
  const parsed = serveOptions.safeParse(raw);
  if (!parsed.success)
    throw new BrainError(
      'INVALID_INPUT',
      formatZodError(parsed.error, {
        host: '--host',
        port: '--port',
        tokens: '--tokens',
        maxSessionsPerToken: '--max-sessions-per-token',
      }),
    );
  return parsed.data;
}
