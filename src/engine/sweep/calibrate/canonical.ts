/**
 * A value in canonical form: object keys sorted at every level, so the same content hashes the
 * same whatever order a loader or a refactored schema lists its fields in.
 */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
}
