import { bandit } from './bandit-chooser';
import { Registry } from '../../core/registry';
import type { ChooserDescriptor, StructureChooser } from './chooser';
import { fixed } from './fixed-chooser';
import { leadlearn } from './leadlearn-chooser';
import { random } from './random-chooser';
import { zeroShot } from './zero-shot-chooser';

/** The built-in structure choosers, one descriptor file each. */
export const BUILTIN_CHOOSERS: readonly ChooserDescriptor[] = [fixed, random, leadlearn, zeroShot, bandit];

/** The choosers of this process: the built-in ones, then those `registerChooser` added. */
export const CHOOSER_KINDS = new Registry<ChooserDescriptor>('chooser', BUILTIN_CHOOSERS);

/** Registered chooser descriptors by name (follows `registerChooser`). */
export const CHOOSER_REGISTRY: ReadonlyMap<string, ChooserDescriptor> = new Map(BUILTIN_CHOOSERS.map((d) => [d.name, d]));

/** Add a chooser for every later run of this process (a preset names it in `chooser`; the same object again does nothing). */
export function registerChooser(d: ChooserDescriptor): void {
  CHOOSER_KINDS.register(d);
}

/** Built-in chooser functions by name (derived from the descriptors). */
export const CHOOSERS: Readonly<Record<string, StructureChooser>> = Object.fromEntries(BUILTIN_CHOOSERS.map((d) => [d.name, d.choose]));
CHOOSER_KINDS.onRegister((d) => {
  (CHOOSER_REGISTRY as Map<string, ChooserDescriptor>).set(d.name, d);
  (CHOOSERS as Record<string, StructureChooser>)[d.name] = d.choose;
});
