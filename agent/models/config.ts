import { z } from 'zod';

/** One model endpoint of the pool, as written in the assistant's config (`models.endpoints[i]`). */
export const endpointConfig = z
  .strictObject({
    /** `openai`: any server of the OpenAI chat completions protocol (OpenAI, OpenRouter, vLLM, llama.cpp, LM Studio, LiteLLM). */
    provider: z.enum(['anthropic', 'ollama', 'openai']),
    model: z.string().min(1),
    /**
     * Anthropic: default `ANTHROPIC_BASE_URL` or the SDK's; Ollama: default `OLLAMA_HOST` or
     * http://127.0.0.1:11434; OpenAI: up to the version (`http://127.0.0.1:8080/v1`), default
     * https://api.openai.com/v1.
     */
    baseUrl: z.url({ protocol: /^https?$/ }).optional(),
    /**
     * OpenAI: the name of the environment variable that holds the key (`OPENAI_API_KEY`,
     * `OPENROUTER_API_KEY`); the key itself is never written in the config. None for a local
     * server that asks for no key.
     */
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be the name of an environment variable')
      .optional(),
    tags: z.array(z.string().min(1)).default([]),
    /** Lower is preferred; endpoints of the best priority that is ready take turns. */
    priority: z.number().int().default(0),
    maxTokens: z.number().int().positive().default(4096),
  })
  .refine((e) => e.apiKeyEnv === undefined || e.provider === 'openai', {
    message: 'only openai endpoints name their key variable (anthropic reads ANTHROPIC_API_KEY)',
    path: ['apiKeyEnv'],
  })
  .refine((e) => e.provider !== 'openai' || e.baseUrl !== undefined || e.apiKeyEnv !== undefined, {
    message:
      'an openai endpoint needs baseUrl (a compatible server) or apiKeyEnv (for api.openai.com)',
    path: ['baseUrl'],
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
