import { z } from 'zod';
import { BrainError, formatZodError } from '../../src/index.js';

const serveOptions = z.object({
  host: z.string().min(1, 'must not be empty'),
  port: z.coerce.number().int().min(0).max(65535, 'must be a port number, 0 to 65535'),
  tokens: z.string().min(1).optional(),
  allowOrigin: z.string().optional(),
});

/** The options of `brain serve`, checked; loaded only when it runs (zod is not cheap to load). */
export function parseServeOptions(raw: Record<string, unknown>): z.output<typeof serveOptions> {
  const parsed = serveOptions.safeParse(raw);
  if (!parsed.success)
    throw new BrainError(
      'INVALID_INPUT',
      formatZodError(parsed.error, { host: '--host', port: '--port', tokens: '--tokens' }),
    );
  return parsed.data;
}
