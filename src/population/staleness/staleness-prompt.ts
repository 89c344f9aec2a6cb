import { clip, collapseSpaces } from '../../core/text';
import { renderTemplate } from '../../core/template';
import { promptTemplate } from '../../llm/prompt-kinds';
import type { ChatMessage } from '../../llm/model';
import type { AppliedEntry, AppliedSinceEntry, StaleItem } from './policy';

const STALE_TEMPLATE = promptTemplate(import.meta.url, 'stale', 'stale');

/** Updates shown in the prompt at most: the receiver's first, then its bucket's, most recent first. */
export const MAX_SHOWN_UPDATES = 24;

const SYSTEM = 'You keep the experience archives of a pool of problem-solving agents up to date.';

const oneLine = (text: string, max: number) => clip(collapseSpaces(text).trim(), max);

/** How a bucket is named in the prompt (the simulator reads it back). */
export const bucketLabel = (niche: string | null) => (niche === null ? 'meta pool' : `niche ${niche}`);

/** One applied entry as a prompt line: `- v12 to agent-03 [niche algebra] (reflection): text`. */
export function formatAppliedLine(e: AppliedEntry): string {
  return `- v${e.version} to ${e.receiver} [${bucketLabel(e.niche)}] (${e.source}): ${oneLine(e.text, 400)}`;
}

/**
 * The updates section: roster changes, then up to MAX_SHOWN_UPDATES entries in the order they
 * were stored — the receiver's own (through merges) kept before other agents' in the bucket.
 */
export function formatSince(since: readonly AppliedSinceEntry[], receivers: ReadonlySet<string>): string {
  const lines: string[] = [];
  for (const s of since) {
    if (s.kind !== 'retired') continue;
    lines.push(s.successor ? `- ${s.agentId} retired and was merged into ${s.successor}` : `- ${s.agentId} retired (pruned), with no successor`);
  }
  const entries = since.filter((s): s is AppliedEntry => s.kind === 'entry');
  const own = entries.filter((e) => receivers.has(e.receiver));
  const others = entries.filter((e) => !receivers.has(e.receiver));
  const shown = new Set([...own.slice(-MAX_SHOWN_UPDATES), ...others.slice(-Math.max(0, MAX_SHOWN_UPDATES - own.length))]);
  const hidden = entries.length - shown.size;
  if (hidden > 0) lines.push(`(${hidden} older updates not shown)`);
  for (const e of entries) if (shown.has(e)) lines.push(formatAppliedLine(e));
  return lines.length ? lines.join('\n') : '(nothing)';
}

/** The reflective policy's prompt: the stale item, the updates stored since its version, and the KEEP / PATCH / DROP question. */
export function buildStalePrompt(item: StaleItem, since: readonly AppliedSinceEntry[], current: number, receivers: ReadonlySet<string>): ChatMessage[] {
  const { entry, agentId } = item.request;
  const user = renderTemplate(STALE_TEMPLATE.text(), {
    kind: item.kind, version: String(item.version), current: String(current), gap: String(current - item.version),
    receiver: agentId, bucket: bucketLabel(entry.niche), text: oneLine(entry.text, 1200),
    since: formatSince(since, receivers),
  });
  return [{ role: 'system', content: SYSTEM }, { role: 'user', content: user }];
}
