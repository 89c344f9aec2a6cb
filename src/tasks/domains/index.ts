import { codeDomain } from './code';
import type { DomainDescriptor } from './domain';
import { mathDomain } from './math';
import { qaDomain } from './qa';

export type { DomainDescriptor, ReplyFormat, RunGraderSettings } from './domain';

/** The built-in answer domains, one descriptor file each. */
export const BUILTIN_DOMAINS: readonly DomainDescriptor[] = [mathDomain, codeDomain, qaDomain];

const registry = new Map<string, DomainDescriptor>(BUILTIN_DOMAINS.map((d) => [d.name, d]));

/** Add a domain for every later niche and run of this process (idempotent for the same object). */
export function registerDomain(d: DomainDescriptor): void {
  const had = registry.get(d.name);
  if (had && had !== d) throw new Error(`domain "${d.name}" is registered already`);
  registry.set(d.name, d);
}

/** The domain named `name`; throws naming the known ones. */
export function getDomain(name: string): DomainDescriptor {
  const d = registry.get(name);
  if (!d) throw new Error(`unknown domain "${name}" (domains: ${[...registry.keys()].join(', ')})`);
  return d;
}

/** Names of the registered domains, in registration order. */
export function domainNames(): string[] {
  return [...registry.keys()];
}
