import type { StructureChooser } from './chooser';

/** Always the preset's structure (single-agent baselines, `no-team`'s voting). */
export const fixedChooser: StructureChooser = async ({ fallback }) => ({ structure: fallback, source: 'fixed', retrieved: [], why: 'fixed by the preset' });
