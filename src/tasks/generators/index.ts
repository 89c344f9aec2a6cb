import type { TaskGenerator } from '../niche';
import { algebraGenerator } from './algebra';
import { arithmeticGenerator } from './arithmetic';
import { competitionMathGenerator } from './competition-math';
import type { GeneratorDescriptor } from './generator';
import { listFunctionsGenerator } from './list-functions';
import { peopleQaGenerator } from './people-qa';
import { stringFunctionsGenerator } from './string-functions';
import { timelineQaGenerator } from './timeline-qa';

/** The built-in task generators, one descriptor file each. */
export const BUILTIN_GENERATORS: readonly GeneratorDescriptor[] = [
  arithmeticGenerator, algebraGenerator, listFunctionsGenerator, stringFunctionsGenerator, peopleQaGenerator, timelineQaGenerator,
  competitionMathGenerator,
];

/** Task generators by the name a niche spec's `generator` field uses (derived from the descriptors; `registerGenerator` adds one). */
export const generators: Record<string, TaskGenerator> = Object.fromEntries(BUILTIN_GENERATORS.map((d) => [d.name, d.generate]));

/** Add a generator for every later niche of this process (a niche of a new domain, a test's toy niche). */
export function registerGenerator(d: GeneratorDescriptor): void {
  if (Object.hasOwn(generators, d.name) && generators[d.name] !== d.generate) throw new Error(`task generator "${d.name}" is registered already`);
  generators[d.name] = d.generate;
}

/** Look up a built-in generator; throws naming the unknown generator and the known ones. */
export function getGenerator(name: string): TaskGenerator {
  const gen = Object.hasOwn(generators, name) ? generators[name] : undefined;
  if (!gen) {
    throw new Error(`unknown task generator "${name}"; known generators: ${Object.keys(generators).join(', ')}`);
  }
  return gen;
}
