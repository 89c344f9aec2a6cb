import type { ChooserDescriptor } from './chooser';
import { zeroShotChooser } from './leadlearn-chooser';

/** The `zero-shot` chooser: the leader chooses from the task alone; no bank read, no note written (the `structure-only` baseline). */
export const zeroShot: ChooserDescriptor = { name: 'zero-shot', choose: zeroShotChooser, writesNotes: false };
