/** A command-line mistake: one line on stderr (pointing at the command's --help), exit code 2. */
export class UsageError extends Error {
  constructor(message: string, readonly help?: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Parse an integer flag; undefined when absent; a UsageError naming the flag when malformed. */
export function intFlag(value: string | undefined, flag: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${flag} takes a whole number ≥ ${min}, got "${value}"`);
  return n;
}

/** Parse `--in-flight`: a whole number ≥ 1 or `auto` (the adaptive controller); undefined when absent. */
export function inFlightFlag(value: string | undefined): number | 'auto' | undefined {
  if (value === 'auto') return 'auto';
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--in-flight takes a whole number ≥ 1 or "auto", got "${value}"`);
  return n;
}

