import type { Knob } from '../core/knob';

/** The individual level's settings a meta-editor may change between segments: retrieval and reflection. */
export const MEMORY_KNOBS: readonly Knob[] = [
  { kind: 'int', path: 'memory.k', min: 0, max: 8, description: 'lessons retrieved from the task\'s niche bucket' },
  { kind: 'int', path: 'memory.kMeta', min: 0, max: 6, description: 'meta-insights retrieved from the meta pool' },
  { kind: 'text', path: 'memory.reflectionNote', maxLength: 300, description: 'added to every reflection\'s instructions' },
];
