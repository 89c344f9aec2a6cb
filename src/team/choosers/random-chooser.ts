import { STRUCTURE_NAMES } from '../leadlearn/leadership-bank';
import type { StructureChooser } from './chooser';

/** A structure drawn uniformly per task (the `no-leadlearn` ablation). */
export const randomChooser: StructureChooser = async ({ rng }) => ({ structure: rng.pick(STRUCTURE_NAMES), source: 'random', retrieved: [], why: 'drawn at random' });
