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

/**
 * The niche of each stream position, and its block number, drawn lazily: memory does not grow with
 * `tasks` (a stream of a billion tasks is walked, never built). Deterministic for the seed.
 */
export function* nicheSequence(opts: StreamOptions): Generator<{ niche: string; block: number }> {
  const ids = opts.entries.map((e) => e.id);
  if (opts.order === 'blocks') {
    const size = opts.blockSize ?? Math.ceil(opts.tasks / ids.length);
    for (let i = 0; i < opts.tasks; i++) {
      const block = Math.floor(i / size);
      yield { niche: ids[block % ids.length]!, block };
    }
  } else if (opts.order === 'interleaved') {
    for (let i = 0; i < opts.tasks; i++) yield { niche: ids[i % ids.length]!, block: 0 };
  } else {
    const rng = createRng(`${opts.seed}/stream-order`);
    const total = opts.entries.reduce((a, e) => a + e.weight, 0);
    for (let i = 0; i < opts.tasks; i++) {
      let u = rng.next() * total;
      const e = opts.entries.find((x) => (u -= x.weight) < 0) ?? opts.entries[opts.entries.length - 1]!;
      yield { niche: e.id, block: 0 };
    }
  }
}

/**
 * How many tasks the stream draws from each niche: exact for `blocks` and `interleaved`, the
 * expected number for `shuffled` (its draws are random). Arithmetic: no stream is walked.
 */
export function nicheShares(opts: Pick<StreamOptions, 'order' | 'tasks' | 'blockSize' | 'entries'>): Map<string, number> {
  const ids = opts.entries.map((e) => e.id);
  const out = new Map<string, number>(ids.map((id) => [id, 0]));
  const add = (id: string, n: number) => out.set(id, (out.get(id) ?? 0) + n);
  if (opts.order === 'shuffled') {
    const total = opts.entries.reduce((a, e) => a + e.weight, 0);
    for (const e of opts.entries) add(e.id, total > 0 ? Math.round((opts.tasks * e.weight) / total) : 0);
  } else if (opts.order === 'interleaved') {
    ids.forEach((id, k) => add(id, Math.floor(opts.tasks / ids.length) + (k < opts.tasks % ids.length ? 1 : 0)));
  } else {
    const size = opts.blockSize ?? Math.ceil(opts.tasks / ids.length);
    const full = Math.floor(opts.tasks / size);
    // Block b goes to niche b mod n; then the last block, when short.
    ids.forEach((id, k) => add(id, size * (Math.floor(full / ids.length) + (k < full % ids.length ? 1 : 0))));
    if (opts.tasks % size > 0) add(ids[full % ids.length]!, opts.tasks % size);
  }
  return out;
}

/**
 * A seeded task stream. Each task's content comes from its own derived rng, so a task does not
 * change when another niche is added before it. Lazily generated.
 */
export function* taskStream(opts: StreamOptions): Generator<Task> {
  const entryById = new Map(opts.entries.map((e) => [e.id, e]));
  let index = 0;
  for (const { niche: id, block } of nicheSequence(opts)) {
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
    index++;
  }
}

/** Streams up to this long are walked to count a shuffled stream's draws exactly; longer ones use the expected shares. */
const WALK_LIMIT = 10_000_000;

/**
 * How many tasks the stream draws from each niche, exactly: arithmetic for `blocks` and
 * `interleaved`, a walk of the (lazy) draws for `shuffled` up to ten million tasks, the expected
 * shares beyond (no stream is ever held in memory).
 */
export function nicheCounts(opts: StreamOptions): Map<string, number> {
  if (opts.order !== 'shuffled' || opts.tasks > WALK_LIMIT) return nicheShares(opts);
  const out = new Map<string, number>(opts.entries.map((e) => [e.id, 0]));
  for (const { niche } of nicheSequence(opts)) out.set(niche, (out.get(niche) ?? 0) + 1);
  return out;
}

/**
 * One line for each dataset niche the stream draws more tasks from than it has rows (its rows then
 * repeat, walked in order and wrapping around); none when every niche has enough.
 */
export function repeatedRowNotices(opts: Pick<StreamOptions, 'order' | 'tasks' | 'blockSize' | 'entries' | 'niches'>): string[] {
  const lines: string[] = [];
  for (const [id, draws] of nicheShares(opts)) {
    const rows = opts.niches.get(id)?.rows;
    if (rows === undefined || draws <= rows) continue;
    const about = opts.order === 'shuffled' ? 'about ' : '';
    lines.push(`note: niche "${id}" has ${rows} row${rows === 1 ? '' : 's'} but the stream draws ${about}${draws} tasks from it, so each row repeats ${about === '' ? 'up to ' : 'about '}${Math.ceil(draws / rows)} times (fewer --tasks, or a larger dataset, avoids it)`);
  }
  return lines;
}
