import type { Strategy } from '../sim-world';
import { collapseSpaces } from '../../core/text';
import type { Responder } from './responder';

const FOR = /^For: (\S+) \(([^)\n]*)\)/m;
const TEXT = /^Text: (.*)$/m;
const MERGED = /^- (\S+) retired and was merged into (\S+)$/;
const APPLIED = /^- v\d+ to (\S+) \[[^\]\n]*\] \([^)\n]*\): (.*)$/;

/** Case- and whitespace-insensitive form, as archives compare texts. */
const normalized = (t: string) => collapseSpaces(t.normalize('NFKC').trim()).toLowerCase();
const unique = (list: readonly Strategy[]) => [...new Map(list.map((s) => [s.phrase, s])).values()];

/** The patched text: names only the strategies still new, in the style of a lesson or a meta-insight. */
function patchText(fresh: readonly Strategy[], bucket: string): string {
  const named = fresh.map((s) => `the ${s.phrase}: ${s.gloss}`).join('; and ');
  return bucket.startsWith('niche ') ? `When working on ${bucket.slice('niche '.length)}, apply ${named}.` : `On any task, use ${named}.`;
}

/**
 * Answers the reflective staleness check (docs/simulated-model.md) reading ONLY its prompt,
 * never the side channel. It takes the strategies the stale item names and those named by the
 * updates the prompt lists for the item's receiver (followed through the merges it lists): all of
 * the item's already there → DROP (nothing new; an item naming none is dropped only when the
 * receiver already got the same text); some → PATCH to a text naming only the new ones; none →
 * KEEP. Updates to other agents in the bucket are context only: the receiver's prompt retrieves
 * its own archive, so they do not make the item redundant for it. With chance `staleMisjudge` it
 * answers KEEP regardless; with chance `malformed` the reply is unusable.
 */
export const staleResponder: Responder = ({ prompt, world, params, rng }) => {
  const head = prompt.sections.get('stale update') ?? '';
  const since = (prompt.sections.get('applied since') ?? '').split('\n');
  const addressee = FOR.exec(head);
  const itemText = TEXT.exec(head)?.[1] ?? '';
  const bucket = addressee?.[2] ?? 'meta pool';
  const mergedInto = new Map<string, string>();
  for (const line of since) {
    const m = MERGED.exec(line);
    if (m) mergedInto.set(m[1]!, m[2]!);
  }
  const receivers = new Set<string>();
  for (let a: string | undefined = addressee?.[1]; a !== undefined && !receivers.has(a); a = mergedInto.get(a)) receivers.add(a);
  const received: string[] = [];
  for (const line of since) {
    const m = APPLIED.exec(line);
    if (m && receivers.has(m[1]!)) received.push(m[2]!);
  }
  const had = new Set(world.mentioned(received.join('\n')).map((s) => s.phrase));
  const named = unique(world.mentioned(itemText));
  const fresh = named.filter((s) => !had.has(s.phrase));
  let decision: 'KEEP' | 'PATCH' | 'DROP' = 'KEEP';
  let text = '';
  let reason = 'it names a technique the receiver has not been given since';
  if (rng.chance(params.staleMisjudge)) {
    reason = 'it may still help';
  } else if (named.length === 0) {
    const same = received.some((t) => normalized(t) === normalized(itemText));
    if (same) { decision = 'DROP'; reason = 'the receiver already got the same text'; } else reason = 'it names no technique the updates cover';
  } else if (fresh.length === 0) {
    decision = 'DROP';
    reason = `the receiver already got ${named.map((s) => `the ${s.phrase}`).join(' and ')} since`;
  } else if (fresh.length < named.length) {
    decision = 'PATCH';
    text = patchText(fresh, bucket);
    reason = 'part of it was already given to the receiver';
  }
  if (rng.chance(params.malformed)) return { text: 'It depends on what the agent already knows.', lengthClass: 'json' };
  const json = JSON.stringify({ decision, text, reason });
  return { text: rng.chance(params.thinkBlock) ? `<think>\nWhat did the pool take since?\n</think>\n${json}` : json, lengthClass: 'json' };
};
