import type { TaskGenerator } from '../niche';
import { algebra } from './algebra';
import { arithmetic } from './arithmetic';
import { listFunctions } from './list-functions';
import { peopleQa } from './people-qa';
import { stringFunctions } from './string-functions';
import { timelineQa } from './timeline-qa';

/** Built-in task generators by the name a niche spec's `generator` field uses. */
export const generators: Readonly<Record<string, TaskGenerator>> = {
  arithmetic,
  algebra,
  'list-functions': listFunctions,
  'string-functions': stringFunctions,
  'people-qa': peopleQa,
  'timeline-qa': timelineQa,
};

/** Look up a built-in generator; throws naming the unknown generator and the known ones. */
export function getGenerator(name: string): TaskGenerator {
  const gen = Object.hasOwn(generators, name) ? generators[name] : undefined;
  if (!gen) {
    throw new Error(`unknown task generator "${name}"; known generators: ${Object.keys(generators).join(', ')}`);
  }
  return gen;
}
