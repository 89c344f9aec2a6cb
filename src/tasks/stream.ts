import type { NicheEntry } from './niche-entry';
import { createRng } from '../core/rng';
import type { Niche } from './niche';
import type { Task } from './task';

/** How a stream is composed. */
export interface StreamOptions {
  readonly order: 'blocks' | 'interleaved' | 'shuffled';
  readonly tasks: number;
  readonly blockSize?: number;
  readonly entries: readonly NicheEntry[];
  readonly niches: ReadonlyMap<string, Niche>;
  readonly seed: number;
}

/** The niche of each stream position, and its block number. Deterministic for the seed. */
export function nicheSequence(opts: StreamOptions): { niche: string; block: number }[] {
  const ids = opts.entries.map((e) => e.id);
  const out: { niche: string; block: number }[] = [];
  if (opts.order === 'blocks') {
    const size = opts.blockSize ?? Math.ceil(opts.tasks / ids.length);
    for (let i = 0; i < opts.tasks; i++) {
      const block = Math.floor(i / size);
      out.push({ niche: ids[block % ids.length]!, block });
    }
  } else if (opts.order === 'interleaved') {
    for (let i = 0; i < opts.tasks; i++) out.push({ niche: ids[i % ids.length]!, block: 0 });
  } else {
    const rng = createRng(`${opts.seed}/stream-order`);
    const total = opts.entries.reduce((a, e) => a + e.weight, 0);
    for (let i = 0; i < opts.tasks; i++) {
      let u = rng.next() * total;
      const e = opts.entries.find((x) => (u -= x.weight) < 0) ?? opts.entries[opts.entries.length - 1]!;
      out.push({ niche: e.id, block: 0 });
    }
  }
  return out;
}

/**
 * A seeded task stream. Each task's content comes from its own derived rng, so a task does not
 * change when another niche is added before it. Lazily generated.
 */
export function* taskStream(opts: StreamOptions): Generator<Task> {
  const seq = nicheSequence(opts);
  const entryById = new Map(opts.entries.map((e) => [e.id, e]));
  for (let index = 0; index < seq.length; index++) {
    const { niche: id, block } = seq[index]!;
    const niche = opts.niches.get(id)!;
    const levels = entryById.get(id)?.difficulty ?? niche.spec.difficulties;
    const difficulty = createRng(`${opts.seed}/difficulty/${index}`).pick(levels);
    const body = niche.next(difficulty, createRng(`${opts.seed}/task/${index}`));
    yield {
      ...body,
      id: `${id}-${String(index).padStart(4, '0')}`,
      index,
      block,
      niche: id,
      domain: niche.spec.domain,
    };
  }
}
