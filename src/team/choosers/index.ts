import { bandit } from './bandit-chooser';
import type { ChooserDescriptor, StructureChooser } from './chooser';
import { fixed } from './fixed-chooser';
import { leadlearn } from './leadlearn-chooser';
import { random } from './random-chooser';
import { zeroShot } from './zero-shot-chooser';

/** The built-in structure choosers, one descriptor file each. */
export const BUILTIN_CHOOSERS: readonly ChooserDescriptor[] = [fixed, random, leadlearn, zeroShot, bandit];

/** Built-in chooser descriptors by name. */
export const CHOOSER_REGISTRY: ReadonlyMap<string, ChooserDescriptor> = new Map(BUILTIN_CHOOSERS.map((d) => [d.name, d]));

/** Built-in chooser functions by name (derived from the descriptors). */
export const CHOOSERS: Readonly<Record<string, StructureChooser>> = Object.fromEntries(BUILTIN_CHOOSERS.map((d) => [d.name, d.choose]));
