import type { z } from 'zod';

/** The parts of a zod 4 schema's definition this walk reads. */
interface Def {
  readonly type: string;
  readonly shape?: Record<string, z.ZodType>;
  readonly innerType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly in?: z.ZodType;
  readonly left?: z.ZodType;
  readonly right?: z.ZodType;
  readonly getter?: () => z.ZodType;
}

const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/**
 * The definitions `schema` may have at `path`, unwrapped (through optional, default, lazy, arrays,
 * unions, pipes): the one walk of zod's internal definitions, for the error messages' known fields
 * and for knob paths (knob-path.ts).
 */
export function schemasAt(schema: z.ZodType, path: readonly PropertyKey[], depth = 0): Def[] {
  if (depth > 64) return [];
  const d = defOf(schema);
  const inner = d.innerType ?? (d.type === 'pipe' ? d.in : d.type === 'lazy' ? d.getter?.() : undefined);
  if (inner) return schemasAt(inner, path, depth + 1);
  if (d.type === 'union') return (d.options ?? []).flatMap((o) => schemasAt(o, path, depth + 1));
  if (d.type === 'intersection') return [d.left, d.right].flatMap((o) => (o ? schemasAt(o, path, depth + 1) : []));
  if (path.length === 0) return [d];
  const [head, ...rest] = path;
  if (d.type === 'array' && typeof head === 'number' && d.element) return schemasAt(d.element, rest, depth + 1);
  if (d.type === 'object' && typeof head === 'string' && d.shape && Object.hasOwn(d.shape, head)) return schemasAt(d.shape[head]!, rest, depth + 1);
  return [];
}

/** The field names a scenario's object at `path` accepts (empty when the schema cannot say). */
export function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  return [...new Set(schemasAt(schema, path).filter((d) => d.type === 'object').flatMap((d) => Object.keys(d.shape ?? {})))];
}

/** Edit distance, with a transposition counted as one edit ("taks" is one from "tasks"). */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = v;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The known key nearest to `key` (case aside), when it is close enough to be a typo of it; else undefined. */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  let best: { k: string; d: number } | undefined;
  for (const k of known) {
    const d = distance(key.toLowerCase(), k.toLowerCase());
    if (!best || d < best.d) best = { k, d };
  }
  return best && best.d <= Math.max(1, Math.floor(Math.max(key.length, best.k.length) / 3)) ? best.k : undefined;
}
