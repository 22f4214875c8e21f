import type { BrainConfig } from '../config.js';
import { isOfflineModel, type Embedder } from './embedder.js';
import type { VectorSpace } from './store.js';

export interface CreateEmbedderOptions {
  /** Where the automatic choice is told, once. Defaults to stderr. */
  notice?: (line: string) => void;
  /** The brain to embed for: in `auto`, a brain whose vectors came from Ollama keeps Ollama. */
  brain?: { vectorSpace(): VectorSpace | undefined };
  /** How long `auto` waits for Ollama to answer. */
  probeTimeoutMs?: number;
  /** Per call to Ollama. */
  timeoutMs?: number;
  /**
   * `search`: only to embed queries for the brain's existing vectors; in `auto` the provider is the
   * one that made them (no probe, no notice), and undefined when there are none yet.
   */
  purpose?: 'embed' | 'search';
}

type EmbedderSettings = Pick<BrainConfig, 'embedder' | 'ollamaHost' | 'embedModel'>;

/**
 * The embedder the settings ask for: `ollama`, `offline`, `none` (undefined: no vectors), or `auto`:
 * Ollama when it answers quickly and has the model, else the offline one — said once, never silently.
 * In `auto`, a brain whose vectors came from Ollama stays with Ollama while it is away (search then
 * answers by words and the queue waits) rather than throwing those vectors away.
 *
 * Each embedder's module (the Ollama client, the offline encoders) is loaded only when chosen: a
 * one-off `brain search` on a brain without vectors loads neither.
 */
export async function createEmbedder(
  config: EmbedderSettings,
  options: CreateEmbedderOptions = {},
): Promise<Embedder | undefined> {
  const notice =
    options.notice ?? ((line: string) => void process.stderr.write(`brain: ${line}\n`));
  const ollama = async () =>
    (await import('./ollama.js')).createOllamaEmbedder({
      host: config.ollamaHost,
      model: config.embedModel,
      timeoutMs: options.timeoutMs,
    });
  const offline = async () => (await import('./offline.js')).createOfflineEmbedder({ notice });
  switch (config.embedder) {
    case 'none':
      return undefined;
    case 'ollama':
      return ollama();
    case 'offline':
      return offline();
    case 'auto': {
      if (options.purpose === 'search') {
        const space = options.brain?.vectorSpace();
        if (!space) return undefined;
        return isOfflineModel(space.model) ? offline() : ollama();
      }
      const { probeOllama } = await import('./ollama.js');
      const probe = await probeOllama(
        config.ollamaHost,
        config.embedModel,
        options.probeTimeoutMs ?? 800,
      );
      if (probe.ok) return ollama();
      const space = options.brain?.vectorSpace();
      if (space && !isOfflineModel(space.model)) {
        notice(
          `${probe.reason}; this brain's vectors are from ${space.model}, so search uses words only until Ollama is back (BRAIN_EMBEDDER=offline switches)`,
        );
        return ollama();
      }
      const chosen = await offline();
      notice(
        `${probe.reason}; using the offline embedder ${chosen.model} (set BRAIN_EMBEDDER to choose)`,
      );
      return chosen;
    }
  }
}
