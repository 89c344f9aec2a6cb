import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** The repo's `agents/` folder of persona templates. */
export const AGENTS_DIR = fileURLToPath(new URL('../../agents/', import.meta.url));

const personaSchema = z.strictObject({
  id: z.string().min(1),
  description: z.string().optional(),
  persona: z.string().min(1),
});

/** A seed persona template (`agents/<id>.json`). */
export type PersonaTemplate = z.infer<typeof personaSchema>;

/** Load and validate a persona template by name; errors name the file and the field. */
export function loadPersonaTemplate(name: string, dir = AGENTS_DIR): PersonaTemplate {
  const file = path.join(dir, `${name}.json`);
  if (!existsSync(file)) {
    const known = readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5));
    throw new Error(`unknown persona template "${name}" (in ${dir}: ${known.join(', ')})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: not valid JSON: ${(err as Error).message}`);
  }
  const r = personaSchema.safeParse(json);
  if (!r.success) {
    const i = r.error.issues[0]!;
    const field = i.code === 'unrecognized_keys' ? i.keys[0] : i.path.join('.');
    throw new Error(`${file}: ${field}: ${i.code === 'unrecognized_keys' ? 'unknown field' : i.message}`);
  }
  return r.data;
}
