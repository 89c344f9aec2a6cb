/**
 * When the code grader believes one run of a program, and when it runs it twice (docs/sandbox-threat-model.md,
 * "Determinism"). Candidates run with a fixed string hash and `random` seeded, so most programs get
 * one verdict on every run. A program is run a second time when its first run touched a source of
 * nondeterminism its process notes (sandbox/sandbox_nondeterminism.py: the clock, the kernel's
 * random bytes, the pid, threads; or it could not say) or when its source names one the process
 * cannot see (below). A program whose two verdicts differ is flaky: its grade says so and it is
 * never cached. Every other program pays for one run, as before.
 */

/** What of a run's report (code-grader.ts `TestRunReport`) says whether two runs agree, and carries the mark. */
interface VerdictOf {
  readonly results: readonly { readonly passed: boolean }[];
  readonly error: string | null;
  readonly timedOut: boolean;
  readonly detail: string;
  readonly flaky?: readonly string[];
}

/**
 * Sources a candidate's process cannot note, found in the program's text instead: C code that
 * reads the clock (`datetime.now()`, `date.today()`, `uuid1()`), and addresses (`id()`, the default
 * `hash()` of objects). A scan over-matches (a comment, `hash("abc")`, which is seeded): that costs
 * a second run, never a verdict.
 */
const UNSEEN: readonly (readonly [string, RegExp])[] = [
  ['datetime', /\bdatetime\b|\btoday\s*\(/],
  ['uuid1', /\buuid1\b/],
  ['id', /\bid\s*\(/],
  ['hash', /\bhash\s*\(/],
];

/** The sources that make a program's first verdict not enough: what its run touched, and what its text names. */
export function varyingSources(code: string, touched: readonly string[]): string[] {
  const named = UNSEEN.filter(([, pattern]) => pattern.test(code)).map(([name]) => name);
  return [...new Set([...touched, ...named])].sort();
}

/** Two runs gave one verdict: each test passed or failed alike, and both runs errored or neither did. */
export function sameVerdict(a: VerdictOf, b: VerdictOf): boolean {
  return a.results.length === b.results.length && a.results.every((r, i) => r.passed === b.results[i]!.passed)
    && (a.error === null) === (b.error === null) && a.timedOut === b.timedOut;
}

/** The first run's report, marked flaky: `flaky` holds the sources, and the detail says so. */
export function markFlaky<R extends VerdictOf>(report: R, sources: readonly string[]): R {
  const why = sources.length > 0 ? `; it touched ${sources.join(', ')}` : '';
  return { ...report, flaky: sources, detail: `${report.detail} [flaky: the verdict varied between two runs${why}]` };
}
