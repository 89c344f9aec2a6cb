import type { ChooserDescriptor, StructureChooser } from './chooser';

/** Always the preset's structure (single-agent baselines, `no-team`'s voting). */
export const fixedChooser: StructureChooser = async ({ fallback }) => ({ structure: fallback, source: 'fixed', retrieved: [], why: 'fixed by the preset' });

/** The `fixed` chooser. */
export const fixed: ChooserDescriptor = { name: 'fixed', choose: fixedChooser, writesNotes: false };
