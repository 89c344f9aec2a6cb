import type { StaleItem } from '../../../src/index';
import type { ArchiveEntry } from '../../../src/individual/archive';
import type { ExperienceRequest, UpdateChanges } from '../../../src/population/supervisor-machine';

/** A lesson (or, with `niche: null`, a meta-insight) entry with a zero key of dimension `dim`. */
export function entry(id: string, text: string, niche: string | null = 'algebra', dim = 256): ArchiveEntry {
  return { id, text, niche, level: niche === null ? 'meta' : 'lesson', source: 'reflection', taskId: 't', poolVersion: 0, key: new Float32Array(dim) };
}

/** A stale item for `agentId`, computed at `version`. */
export function item(agentId: string, text: string, version: number, niche: string | null = 'algebra', kind: StaleItem['kind'] = 'lesson'): StaleItem {
  const request: ExperienceRequest = { agentId, entry: entry(`${agentId}:task-${version}:${kind}`, text, niche) };
  return { request, version, taskId: `task-${version}`, question: 'Solve 3x + 1 = 13.', kind };
}

/** An applied update that stored `stored` (receiver, text, niche) and marked `duplicates` as duplicates. */
export function changes(version: number, stored: ReadonlyArray<[string, string, (string | null)?]>, duplicates: ReadonlyArray<[string, string]> = []): UpdateChanges {
  return {
    taskId: `task-${version}`, poolVersion: version, observed: [], droppedObservations: [], synergy: [], leadership: null, note: null,
    entries: [
      ...stored.map(([to, text, niche], i) => ({ agentId: to, entry: entry(`${to}:${version}:${i}`, text, niche === undefined ? 'algebra' : niche), status: 'stored' as const, receiver: to })),
      ...duplicates.map(([to, text], i) => ({ agentId: to, entry: entry(`${to}:${version}:d${i}`, text), status: 'duplicate' as const, receiver: to })),
    ],
  };
}
