import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { NicheSpec } from './niche';
import { domainNames } from './domains';

/** Zod schema for a niche file (`niches/*.json`); unknown keys are rejected at every level. */
export const nicheSpecSchema = z
  .strictObject({
    id: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'expected a kebab-case id'),
    /** A registered answer domain (src/tasks/domains/). */
    domain: z.string().refine((d) => domainNames().includes(d), { error: (i) => `unknown domain ${JSON.stringify(i.input)} (domains: ${domainNames().join(', ')})` }),
    title: z.string().min(1),
    description: z.string().min(1),
    keywords: z.array(z.string().min(1)).min(1),
    /** A group of niches a published figure covers together (e.g. `aime` for the four AIME years): src/tasks/niche-groups.ts. */
    group: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'expected a kebab-case group name').optional(),
    generator: z.string().min(1).optional(),
    dataset: z.strictObject({ format: z.string().min(1), path: z.string().min(1) }).optional(),
    difficulties: z.array(z.int().min(1).max(5)).min(1),
    answerFormat: z.string().min(1),
  })
  // A niche needs exactly one task source, or the stream would not know where tasks come from.
  .refine((s) => (s.generator === undefined) !== (s.dataset === undefined), {
    message: 'expected exactly one of "generator" or "dataset"',
    path: ['generator'],
  });

/** Render zod issues as `field.path: message`, naming unknown keys by their own path. */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((k) => `${[...issue.path, k].join('.')}: unknown field`).join('; ');
      }
      const where = issue.path.length > 0 ? issue.path.join('.') : '(root)';
      // zod prefixes type errors with "Invalid input: "; the field path already says where.
      return `${where}: ${issue.message.replace(/^Invalid input: /, '')}`;
    })
    .join('; ');
}

/** Validate parsed JSON as a niche spec; throws `<file>: <field>: <problem>` on failure. */
export function parseNicheSpec(json: unknown, file: string): NicheSpec {
  const result = nicheSpecSchema.safeParse(json);
  if (!result.success) throw new Error(`${file}: ${describeIssues(result.error)}`);
  return result.data;
}

/**
 * Load and validate every `*.json` in a folder (sorted by file name, so order is stable).
 * Throws on unreadable JSON, an invalid spec, or two files declaring the same id.
 */
export function loadNicheSpecs(dir: string): NicheSpec[] {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  const byId = new Map<string, string>();
  return files.map((name) => {
    const file = join(dir, name);
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new Error(`${file}: invalid JSON: ${(err as Error).message}`);
    }
    const spec = parseNicheSpec(json, file);
    const clash = byId.get(spec.id);
    if (clash) throw new Error(`${file}: id: duplicate niche id "${spec.id}" (also in ${clash})`);
    byId.set(spec.id, file);
    return spec;
  });
}
