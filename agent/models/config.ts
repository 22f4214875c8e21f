import { z } from 'zod';

/** One model endpoint of the pool, as written in the assistant's config (`models.endpoints[i]`). */
export const endpointConfig = z.strictObject({
  provider: z.enum(['anthropic', 'ollama']),
  model: z.string().min(1),
  /** Anthropic: default `ANTHROPIC_BASE_URL` or the SDK's; Ollama: default `OLLAMA_HOST` or http://127.0.0.1:11434. */
  baseUrl: z.url().optional(),
  tags: z.array(z.string().min(1)).default([]),
  /** Lower is preferred; endpoints of the best priority that is ready take turns. */
  priority: z.number().int().default(0),
  maxTokens: z.number().int().positive().default(4096),
});
export type EndpointConfig = z.output<typeof endpointConfig>;

/** `models` in the assistant's config. */
export const modelsConfig = z.strictObject({
  endpoints: z.array(endpointConfig).min(1),
  /** Summarises old turns; default: the pool's first endpoint. */
  compactionModel: endpointConfig.optional(),
});
export type ModelsConfig = z.output<typeof modelsConfig> & {
  /** Set when no config chose the models, e.g. `no ANTHROPIC_API_KEY set`: errors then say so. */
  chosenBecause?: string;
};
