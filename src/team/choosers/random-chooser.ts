import { choosableStructures } from '../structures';
import type { ChooserDescriptor, StructureChooser } from './chooser';

/** A structure drawn uniformly per task from the choosable ones (the `no-leadlearn` ablation). */
export const randomChooser: StructureChooser = async ({ rng, structures }) =>
  ({ structure: rng.pick((structures ?? choosableStructures()).map((d) => d.name)), source: 'random', retrieved: [], why: 'drawn at random' });

/** The `random` chooser. */
export const random: ChooserDescriptor = { name: 'random', choose: randomChooser, writesNotes: false };
