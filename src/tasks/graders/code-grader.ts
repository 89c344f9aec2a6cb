/**
 * Code grader: pass@1 of a Python candidate against the task's hidden assert tests, run in the
 * sandbox pool. Reward 1 iff every hidden test passes. Each test is split (outside the sandbox)
 * into probes whose values are compared here, or kept as a script the trusted checker runs, each
 * call to the candidate answered with plain data by the candidate's own process (test-plan.ts).
 */
import { InfrastructureError, isInfrastructureError } from '../../core/infra-error';
import type { Grade, Grader, Task } from '../task';
import { collapseSpaces, isSpace, stripThinking } from '../../core/text';
import { createSandboxPool, type SandboxJob, type SandboxOptions, type SandboxResult, type TestOutcome } from './code-sandbox';
import { bareBody, completionProgram } from './completion-form';
import { resolvePython, type SandboxIsolation } from './sandbox-isolation';
import { createTestPlanner, judge, type JudgeRequest, type ProbeCall, type PyVerdict, type TestPlan } from './test-plan';
import type { GraderDescriptor } from './grader-descriptor';
import { VerdictCache, type Cacheable } from './verdict-cache';
import { openDiskVerdicts, sandboxVersion } from './verdict-disk';
import { markFlaky, sameVerdict, varyingSources } from './nondeterminism';

/** Options for the code grader: pool size and per-candidate limits (see `SandboxOptions`). */
export interface CodeGraderOptions extends SandboxOptions {
  /**
   * Reuse a verdict the process already has for the same program, tests and limits (`VERDICTS`;
   * default true). Off runs every candidate in the sandbox: tests of the sandbox itself.
   */
  readonly verdictCache?: boolean;
  /**
   * Also keep verdicts on disk in this directory, for every later process that names it (runs,
   * sweeps, calibrations; verdict-disk.ts). Unset: verdicts live as long as the process.
   */
  readonly verdictDir?: string;
}

/** Result of running a candidate against a list of tests (public tests, for critics). */
export interface TestRunReport {
  readonly passed: number;
  readonly total: number;
  readonly results: readonly TestOutcome[];
  readonly timedOut: boolean;
  /** Load error, abnormal exit or sandbox failure; null when every test got a verdict. */
  readonly error: string | null;
  /** Short summary such as "3/5 tests passed" or "timeout after 2000 ms". */
  readonly detail: string;
  /**
   * The verdict varied between two runs (nondeterminism.ts): the sources of nondeterminism the
   * program touched. Such a verdict (the first run's) is never cached. Absent for every other run.
   */
  readonly flaky?: readonly string[];
}

/** Sandbox runs a code grader made: every run, the second runs of programs that touched a source of nondeterminism, and those found flaky. */
export interface SandboxRuns {
  runs: number;
  reruns: number;
  flaky: number;
}

/** A `Grader` that also runs arbitrary test lists and owns a worker pool (call `close()`). */
export interface CodeGrader extends Grader {
  /** Run `code` against `tests` (Python statements) in the sandbox; never rejects. */
  runTests(code: string, tests: readonly string[]): Promise<TestRunReport>;
  readonly isolation: SandboxIsolation;
  /** What this grader ran in the sandbox so far (diagnostics, tests, benchmarks). */
  readonly sandboxRuns: Readonly<SandboxRuns>;
  close(): Promise<void>;
}

/** Char codes of `#`, both quotes and the backslash: the characters that matter when stripping comments. */
const HASH = 35;
const DQUOTE = 34;
const SQUOTE = 39;
const BACKSLASH = 92;
/** Completions are searched for code in their last 256 KiB; longer programs are not answers. */
export const MAX_CODE_TEXT = 256 * 1024;
const PYTHON_TAGS = new Set(['python', 'py', 'python3']);
const FENCE_LINE = /^\s*```\s*([\w+.-]*)/;

interface CodeBlock { readonly lang: string; readonly code: string; readonly closed: boolean }

/** Markdown fenced blocks, line by line (a regex over the whole text can backtrack quadratically). */
function fencedBlocks(text: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let open: { lang: string; lines: string[] } | null = null;
  for (const line of text.split('\n')) {
    const fence = FENCE_LINE.exec(line);
    if (open && fence && /^\s*```\s*$/.test(line)) {
      blocks.push({ lang: open.lang, code: open.lines.join('\n'), closed: true });
      open = null;
    } else if (open) {
      open.lines.push(line);
    } else if (fence) {
      open = { lang: (fence[1] ?? '').toLowerCase(), lines: [] };
    }
  }
  // A completion cut off inside its last fence still carries usable code.
  if (open) blocks.push({ lang: open.lang, code: open.lines.join('\n'), closed: false });
  return blocks;
}

/** The candidate program: last ```python block, else last ``` block, else bare text with a `def`. */
export function extractCode(completion: string): string | null {
  const full = stripThinking(completion);
  // A program is read from the last MAX_CODE_TEXT characters: nothing longer is an answer.
  const text = full.length > MAX_CODE_TEXT ? full.slice(-MAX_CODE_TEXT) : full;
  const blocks = fencedBlocks(text);
  const closed = blocks.filter((b) => b.closed);
  const pick = closed.filter((b) => PYTHON_TAGS.has(b.lang)).pop() ?? closed.pop() ?? blocks.pop();
  const code = pick ? pick.code : /\bdef\s+\w+\s*\(/.test(text) ? text : '';
  const trimmed = code.replace(/^\s*\n/, '').trimEnd();
  return trimmed === '' ? null : trimmed;
}

/** A cut-off reply holds a program only in a closed code block (two fence lines at least): an unclosed one is cut off mid-program. */
export function codeHoldsAnswerWhenCut(completion: string): boolean {
  if (extractCode(completion) === null) return false;
  return (stripThinking(completion).match(/^[ \t]*```/gm)?.length ?? 0) >= 2;
}

/**
 * Python source without its `#` comments, read as Python reads strings: `'`, `"` or a triple of
 * either opens one, a backslash escapes the next character, and an unclosed string runs to the end.
 * One pass over char codes; the text is copied in the runs between comments, so a reply of a
 * quarter million one-character strings costs a scan, not a quarter million slices.
 */
function stripComments(code: string): string {
  const parts: string[] = [];
  const n = code.length;
  let from = 0; // start of the run being kept
  let i = 0;
  while (i < n) {
    const c = code.charCodeAt(i);
    if (c === HASH) {
      parts.push(code.slice(from, i));
      const nl = code.indexOf('\n', i);
      i = from = nl < 0 ? n : nl;
    } else if (c === DQUOTE || c === SQUOTE) {
      const triple = code.charCodeAt(i + 1) === c && code.charCodeAt(i + 2) === c;
      i += triple ? 3 : 1;
      while (i < n) {
        const d = code.charCodeAt(i);
        if (d === BACKSLASH) i += 2;
        else if (d === c && (!triple || (code.charCodeAt(i + 1) === c && code.charCodeAt(i + 2) === c))) { i += triple ? 3 : 1; break; }
        else i++;
      }
    } else {
      i++;
    }
  }
  parts.push(code.slice(from));
  return parts.join('');
}

/** Python source without comments (string-aware), blank lines or cosmetic whitespace. */
export function normalizeCode(input: string): string {
  const code = input.length > MAX_CODE_TEXT ? input.slice(0, MAX_CODE_TEXT) : input;
  const src = stripComments(code);
  // Indentation becomes a nesting depth, so 2- and 4-space versions of one program compare equal.
  // Lines are read in place (a tab is 8 columns of indentation; trimmed and collapsed as `\s`),
  // not split and trimmed: a quarter million blank lines cost one indexOf each.
  const widths: number[] = [0];
  const lines: string[] = [];
  for (let at = 0; at <= src.length;) {
    const nl = src.indexOf('\n', at);
    const end = nl < 0 ? src.length : nl;
    let first = at;
    let width = 0;
    for (let c = src.charCodeAt(first); first < end && isSpace(c); c = src.charCodeAt(++first)) width += c === 9 ? 8 : 1;
    if (first < end) {
      let last = end;
      while (isSpace(src.charCodeAt(last - 1))) last--;
      while (widths.length > 1 && width < widths[widths.length - 1]!) widths.pop();
      if (width > widths[widths.length - 1]!) widths.push(width);
      lines.push(`${' '.repeat(widths.length - 1)}${collapseSpaces(src.slice(first, last))}`);
    }
    at = end + 1;
  }
  return lines.join('\n');
}

/** One line, at most n characters: details end up in logs and reports. */
function clip(text: string, n: number): string {
  const s = text.replace(/\s+/g, ' ').trim();
  return s.length > n ? `${s.slice(0, n - 3)}...` : s;
}

/**
 * How a job's probe checks get Python's verdict (the planner's `judge`): the [check, answer] pairs
 * of one run in, one verdict per pair out.
 */
export type Judge = (pairs: JudgeRequest) => Promise<readonly PyVerdict[]>;

/**
 * A sandbox job for `tests` under their plans, and how to read each test's verdict back: each
 * probe check is judged by Python (`judgeWith`), and only the failure's wording is Node's.
 */
export function buildJob(code: string, tests: readonly string[], plans: readonly TestPlan[], helpers = ''): { job: SandboxJob; verdicts: (run: SandboxResult, judgeWith: Judge) => Promise<TestOutcome[]> } {
  const probes: ProbeCall[] = [];
  const scripts: string[] = [];
  const setup = new Set<string>();
  const slots = plans.map((plan) => {
    if (plan.kind === 'script') {
      scripts.push(plan.source);
      return { kind: 'script' as const, at: scripts.length - 1 };
    }
    for (const line of plan.setup.split('\n')) if (line.trim()) setup.add(line);
    const at = plan.checks.map((c) => (c.op === 'fail' ? -1 : probes.push(c.call) - 1));
    return { kind: 'probe' as const, checks: plan.checks, at };
  });
  // Something must load the candidate, even when every test turned out trivially true.
  if (probes.length === 0 && scripts.length === 0) scripts.push('pass');
  const job: SandboxJob = { code, setup: [...setup].join('\n'), probes, scripts, ...(helpers ? { helpers } : {}) };
  const verdicts = async (run: SandboxResult, judgeWith: Judge): Promise<TestOutcome[]> => {
    // Every check whose probe answered with a value, judged by Python in one request.
    const pairs: (readonly [unknown, unknown])[] = [];
    const asked = new Map<string, number>();
    for (const [k, slot] of slots.entries()) {
      if (slot.kind !== 'probe') continue;
      for (const [i, check] of slot.checks.entries()) {
        const outcome = slot.at[i]! < 0 ? null : run.probes[slot.at[i]!] ?? null;
        if (check.op === 'fail' || outcome === null || !('raw' in outcome)) continue;
        asked.set(`${k}:${i}`, pairs.push([check.raw, outcome.raw]) - 1);
      }
    }
    const said = await judgeWith(pairs);
    return slots.map((slot, k): TestOutcome => {
    const test = tests[k]!;
    if (slot.kind === 'script') {
      const r = run.scripts[slot.at];
      return { test, passed: r?.passed === true, output: r?.output ?? 'not run' };
    }
    const why = run.violation ? `not run: protocol violation (${run.violation})` : run.timedOut ? 'not run: timeout' : run.loadError ? 'not run: candidate failed to load' : run.failure ? `not run: ${run.failure}` : null;
    for (const [i, check] of slot.checks.entries()) {
      const outcome = slot.at[i]! < 0 ? null : run.probes[slot.at[i]!] ?? null;
      if (outcome === null && check.op !== 'fail') return { test, passed: false, output: why ?? `not run: ${run.exit ? `candidate ${run.exit}` : 'candidate exited before reporting'}` };
      const at = asked.get(`${k}:${i}`);
      const v = judge(check, outcome, at === undefined ? undefined : said[at]);
      if (!v.passed) return { test, passed: false, output: v.output };
    }
    return { test, passed: run.failure === null && run.violation === null, output: '' };
    });
  };
  return { job, verdicts };
}

/** Turn per-test verdicts and how the sandbox run ended into counts and a one-line reason. */
export function summarizeRun(run: SandboxResult, results: readonly TestOutcome[], timeoutMs: number): TestRunReport {
  const total = results.length;
  const passed = results.filter((r) => r.passed).length;
  const base = { passed, total, results, timedOut: run.timedOut };
  if (run.failure) return { ...base, error: run.failure, detail: run.failure };
  if (run.violation) {
    const error = `protocol violation: ${run.violation}`;
    return { ...base, passed: 0, results: results.map((r) => ({ ...r, passed: false })), error, detail: error };
  }
  if (run.timedOut) return { ...base, error: `timeout after ${timeoutMs} ms`, detail: `timeout after ${timeoutMs} ms (${passed}/${total} tests passed before)` };
  if (run.loadError) {
    const error = run.exit ? `candidate ${run.exit} before its tests ran` : run.loadError;
    return { ...base, error, detail: clip(error, 200) };
  }
  let detail = `${passed}/${total} tests passed`;
  const firstFail = results.find((r) => !r.passed);
  if (firstFail) detail += `; first failure: ${clip(firstFail.test, 80)} -> ${clip(firstFail.output || 'failed', 80)}`;
  if (run.exit) detail += ` (candidate ${run.exit})`;
  return { ...base, error: run.exit ? `candidate ${run.exit}` : null, detail };
}

/** One sandbox run's report, and the harness's own failure if it had one. */
interface RunVerdict { readonly report: TestRunReport; readonly infrastructure: string | null }

/**
 * A verdict as the cache holds it: one JSON string of the report without its tests (the key holds
 * them: they are put back from the request), each test's pass as one character and its output only
 * when one is not empty. One flat string instead of a report object, an outcome object per test
 * and the strings they point at (the detail is built by concatenation): a few hundred bytes.
 */
type StoredVerdict = string;

/**
 * The string the verdict cache keeps for one run's verdict (`loadVerdict` reads it back). A flaky
 * verdict has a seventh element, its sources: it is only ever handed back to the requests that
 * shared its run, never kept (`validVerdict` refuses it from disk).
 */
export function storeVerdict({ report, infrastructure }: RunVerdict): StoredVerdict {
  const outputs = report.results.some((r) => r.output !== '') ? report.results.map((r) => r.output) : undefined;
  const pass = report.results.map((r) => (r.passed ? '1' : '0')).join('');
  return JSON.stringify([pass, outputs ?? 0, report.timedOut ? 1 : 0, report.error, report.detail, infrastructure, ...(report.flaky ? [report.flaky] : [])]);
}

/** The verdict `storeVerdict` kept, for `tests` (the ones it was run against): the same report, field for field. */
export function loadVerdict(stored: StoredVerdict, tests: readonly string[]): RunVerdict {
  const [pass, outputs, timedOut, error, detail, infrastructure, flaky] = JSON.parse(stored) as [string, readonly string[] | 0, 0 | 1, string | null, string, string | null, readonly string[] | undefined];
  const results = tests.map((test, i): TestOutcome => ({ test, passed: pass[i] === '1', output: outputs === 0 ? '' : outputs[i]! }));
  let passed = 0;
  for (const r of results) if (r.passed) passed++;
  return { report: { passed, total: results.length, results, timedOut: timedOut === 1, error, detail, ...(flaky ? { flaky } : {}) }, infrastructure };
}

/** The task's own source its tests may call, and the candidate's entry point in it. */
interface TaskHelpers { readonly helpers: string; readonly entry: string }

/**
 * What a task defines for its tests (HumanEval's prompt, with helpers such as `poly`; MBPP's test
 * setup code): run by the checker beside the tests, so those names are the task's, never the
 * candidate's own copies (sandbox_checker.py).
 */
export function taskHelpers(task: Task): TaskHelpers | undefined {
  const helpers = [task.hidden.prefix ?? '', task.hidden.setup ?? ''].filter((s) => s.trim() !== '').join('\n');
  return helpers ? { helpers, entry: task.entryPoint ?? '' } : undefined;
}

/** True when `stored` reads back as a verdict on `tests` (a file on disk is checked before it is believed). */
export function validVerdict(stored: StoredVerdict, tests: readonly string[]): boolean {
  try {
    const fields = JSON.parse(stored) as unknown[];
    const [pass, outputs, timedOut, error, detail, infrastructure] = fields;
    return fields.length === 6 && typeof pass === 'string' && pass.length === tests.length && /^[01]*$/.test(pass)
      && (outputs === 0 || (Array.isArray(outputs) && outputs.length === tests.length && outputs.every((o) => typeof o === 'string')))
      && (timedOut === 0 || timedOut === 1) && (error === null || typeof error === 'string') && typeof detail === 'string' && infrastructure === null;
  } catch {
    return false;
  }
}

/** Verdicts of every code grader of the process, by program, tests and limits (never a timeout). */
export const VERDICTS = new VerdictCache<StoredVerdict>();

/**
 * Grader for code niches: pass@1 on `task.hidden.tests`, run in a pool of sandboxed workers.
 * The verdict is computed outside the candidate's reach (see sandbox/sandbox_worker.py and test-plan.ts).
 * `grade` rejects with InfrastructureError('grade') when the sandbox itself fails; a failing,
 * crashing or cheating candidate is a reward-0 grade.
 */
export function createCodeGrader(opts: CodeGraderOptions = {}): CodeGrader {
  const pool = createSandboxPool(opts);
  const planner = createTestPlanner(resolvePython(opts.python).executable);

  // Everything a verdict depends on besides the program and its tests (verdict-cache.ts), the
  // grader's own version included: a key read from disk was made by this very grader.
  const limits = [pool.timeoutMs, opts.memoryMb ?? null, opts.wallFactor ?? null, resolvePython(opts.python).executable, pool.isolation.summary, sandboxVersion()];
  const disk = opts.verdictDir !== undefined && opts.verdictCache !== false ? openDiskVerdicts(opts.verdictDir) : null;
  const sandboxRuns: SandboxRuns = { runs: 0, reruns: 0, flaky: 0 };
  const runOnce = async (code: string, tests: readonly string[], task?: TaskHelpers): Promise<Cacheable<RunVerdict> & { touched: readonly string[] }> => {
    const plans = await planner.plan(tests, task?.helpers, task?.entry);
    const { job, verdicts } = buildJob(code, tests, plans, task?.helpers ? JSON.stringify([task.helpers, task.entry]) : '');
    sandboxRuns.runs++;
    const result = await pool.run(job);
    const value = { report: summarizeRun(result, await verdicts(result, (pairs) => planner.judge(pairs)), pool.timeoutMs), infrastructure: result.infrastructure ? result.failure : null };
    return { value, keep: !result.timedOut && result.failure === null && !result.infrastructure && !/\bSIG[A-Z]+/.test(result.exit ?? ''), touched: result.touched };
  };
  // One run is believed unless the program touched a source of nondeterminism (nondeterminism.ts):
  // then a second run must give the same verdict, else the first is marked flaky and never kept.
  const runJudged = async (code: string, tests: readonly string[], task?: TaskHelpers): Promise<Cacheable<RunVerdict>> => {
    const first = await runOnce(code, tests, task);
    const sources = varyingSources(code, first.touched);
    if (!first.keep || sources.length === 0) return first;
    sandboxRuns.reruns++;
    const second = await runOnce(code, tests, task);
    if (!second.keep) return { value: first.value, keep: false };
    if (sameVerdict(first.value.report, second.value.report)) return first;
    sandboxRuns.flaky++;
    return { value: { ...first.value, report: markFlaky(first.value.report, sources) }, keep: false };
  };
  const run = async (code: string, tests: readonly string[], task?: TaskHelpers): Promise<RunVerdict> => {
    if (opts.verdictCache === false) return (await runJudged(code, tests, task)).value;
    const key = VerdictCache.key(task?.helpers ? [code, tests, limits, task.helpers, task.entry] : [code, tests, limits]);
    const stored = async (): Promise<Cacheable<StoredVerdict>> => {
      const kept = disk?.get(key, (v) => validVerdict(v, tests)) ?? null;
      if (kept !== null) return { value: kept, keep: true };
      const { value, keep } = await runJudged(code, tests, task);
      const verdict = storeVerdict(value);
      if (keep) disk?.put(key, verdict);
      return { value: verdict, keep };
    };
    return loadVerdict(await VERDICTS.get(key, stored), tests);
  };

  const runTests = async (code: string, tests: readonly string[]): Promise<TestRunReport> => {
    try {
      return (await run(code, tests)).report;
    } catch (err) {
      const error = `sandbox unavailable: ${err instanceof Error ? err.message : String(err)}`;
      return { passed: 0, total: tests.length, results: tests.map((test) => ({ test, passed: false, output: error })), timedOut: false, error, detail: error };
    }
  };

  return {
    isolation: pool.isolation,
    sandboxRuns,
    extract: (completion) => {
      try {
        return extractCode(completion);
      } catch {
        return null;
      }
    },
    equivalent: (a, b) => {
      const na = normalizeCode(extractCode(a) ?? a);
      return na !== '' && na === normalizeCode(extractCode(b) ?? b);
    },
    holdsAnswerWhenCut: (completion) => {
      try {
        return codeHoldsAnswerWhenCut(completion);
      } catch {
        return false;
      }
    },
    runTests,
    grade: async (completion: string, task: Task): Promise<Grade> => {
      let extracted: string | null = null;
      try {
        extracted = bareBody(completion, task) ?? extractCode(completion);
        if (extracted === null) return { reward: 0, correct: false, extracted, detail: 'no code found' };
        const tests = task.hidden.tests ?? [];
        if (tests.length === 0) return { reward: 0, correct: false, extracted, detail: 'task has no hidden tests' };
        const { report, infrastructure } = await run(completionProgram(extracted, task), tests, taskHelpers(task));
        if (infrastructure !== null) throw new InfrastructureError('grade', infrastructure);
        const ok = report.error === null && report.total > 0 && report.passed === report.total;
        return { reward: ok ? 1 : 0, correct: ok, extracted, detail: report.detail, ...(report.flaky ? { flaky: true as const } : {}) };
      } catch (err) {
        if (isInfrastructureError(err)) throw err;
        return { reward: 0, correct: false, extracted, detail: `grader error: ${String(err)}` };
      }
    },
    close: async () => {
      await Promise.all([pool.close(), planner.close()]);
    },
  };
}

/** The `code` domain's grader (it owns a sandbox worker pool: close it). */
export const codeGrader: GraderDescriptor = { domain: 'code', create: (opts) => createCodeGrader(opts) };
