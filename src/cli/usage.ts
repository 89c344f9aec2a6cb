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


/**
 * A negative number after a long flag is that flag's value (`--tasks -5` as `--tasks=-5`), so the
 * flag's own check names its range instead of Node's "argument is ambiguous". A short flag never
 * starts with a digit, so nothing else is read differently.
 */
export function negativeNumbersAsValues(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (const a of argv) {
    const prev = out[out.length - 1];
    if (/^-(\d|\.\d)/.test(a) && prev !== undefined && /^--[^=]+$/.test(prev)) out[out.length - 1] = `${prev}=${a}`;
    else out.push(a);
  }
  return out;
}

/** The long flags a command's help lists (`--tasks`, `--out`, …). */
export function flagsInHelp(help: string): string[] {
  return [...new Set(help.match(/--[a-z0-9][a-z0-9-]*/g) ?? [])];
}

/**
 * Node's parseArgs errors as one line naming the problem and the fix: an unknown flag with the
 * nearest one the command has (`--taks` → `--tasks`); others keep Node's text on one line.
 */
export function parseErrorLine(err: { readonly code?: string; readonly message: string }, help: string | undefined, nearest: (key: string, known: readonly string[]) => string | undefined): string {
  const unknown = err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /Unknown option '([^']+)'/.exec(err.message)?.[1] : undefined;
  if (unknown !== undefined) {
    const near = help ? nearest(unknown.replace(/^-+/, ''), flagsInHelp(help).map((f) => f.slice(2))) : undefined;
    return `unknown option ${unknown}${near !== undefined ? ` (did you mean --${near}?)` : ''}`;
  }
  return err.message.split('\n').map((l) => l.trim()).filter(Boolean).join(' ');
}
