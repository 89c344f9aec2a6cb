/**
 * Test plans: each hidden test is split, outside the sandbox, into probes (plain calls of candidate
 * functions) plus the operator and expected value applied to each answer by the splitter, with
 * Python's own semantics (sandbox/trusted_plain.py: one equality, Python's); or kept as a
 * script run by the checker (sandbox/sandbox_checker.py), when any operator or builtin wraps a call.
 * The splitter is a trusted Python process (sandbox/test_splitter.py) that parses only the task's own tests.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { InfrastructureError } from '../../core/infra-error';
import { LruMap } from '../../core/lru-map';
import { decodePlain, pyNumber, pyRepr, type PlainValue } from './plain-value';

const SPLITTER = fileURLToPath(new URL('./sandbox/test_splitter.py', import.meta.url));

/**
 * One call of a candidate function, the only thing a probe asks the candidate's process: the
 * function's name and its arguments as tagged plain JSON (computed by the splitter from the test's
 * literals). `text` is the call as the test wrote it, for failure details.
 */
export interface ProbeCall {
  readonly fn: string;
  readonly args: readonly unknown[];
  readonly kwargs: readonly (readonly [string, unknown])[];
  readonly text: string;
}

/**
 * One operator applied to a probe's plain answer and an expected value, on the trusted side. `raw`
 * is the check as the splitter wrote it: the splitter judges it again on the answer, in Python.
 */
export type Check =
  | { readonly op: 'fail' }
  | { readonly op: 'truthy' | 'falsy'; readonly call: ProbeCall; readonly raw: unknown }
  | { readonly op: 'eq' | 'ne' | 'is' | 'isnot'; readonly call: ProbeCall; readonly expected: PlainValue; readonly raw: unknown }
  | { readonly op: 'abs_lt' | 'abs_le'; readonly call: ProbeCall; readonly expected: PlainValue; readonly tol: PlainValue; readonly raw: unknown }
  | { readonly op: 'isclose'; readonly call: ProbeCall; readonly expected: PlainValue; readonly rel: PlainValue; readonly abs: PlainValue; readonly raw: unknown };

/** Python's verdict on one check: it held, it did not, or what Python raised ("OverflowError: …"). */
export type PyVerdict = boolean | string;

/** How one test statement is run: probes (values back, compared here) or a script the checker runs. */
export type TestPlan =
  | { readonly kind: 'probe'; readonly setup: string; readonly checks: readonly Check[] }
  | { readonly kind: 'script'; readonly source: string };

/**
 * What a probe produced in the sandbox: a plain value (`raw`, its tagged JSON, is what Python
 * judges; `value` only renders it), or the exception it raised (or why its answer was not plain data).
 */
export type ProbeOutcome = { readonly value: PlainValue; readonly raw: unknown } | { readonly error: string };

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A probe call by exact shape; its arguments must decode as plain values (they are the test's own). */
function decodeCall(raw: unknown): ProbeCall | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const c = raw as { fn?: unknown; args?: unknown; kwargs?: unknown; text?: unknown };
  if (typeof c.fn !== 'string' || !IDENTIFIER.test(c.fn) || !Array.isArray(c.args) || !Array.isArray(c.kwargs) || typeof c.text !== 'string') return null;
  if (!c.args.every((a) => decodePlain(a) !== null)) return null;
  const kwargs = c.kwargs as unknown[];
  if (!kwargs.every((k) => Array.isArray(k) && k.length === 2 && typeof k[0] === 'string' && IDENTIFIER.test(k[0]) && decodePlain(k[1]) !== null)) return null;
  return { fn: c.fn, args: c.args, kwargs: kwargs as [string, unknown][], text: c.text };
}

function decodeCheck(raw: unknown): Check | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const c = raw as Record<string, unknown>;
  if (c.op === 'fail') return { op: 'fail' };
  const call = decodeCall(c.call);
  if (call === null) return null;
  if (c.op === 'truthy' || c.op === 'falsy') return { op: c.op, call, raw };
  const expected = decodePlain(c.expected);
  if (expected === null) return null;
  if (c.op === 'eq' || c.op === 'ne' || c.op === 'is' || c.op === 'isnot') return { op: c.op, call, expected, raw };
  if (c.op === 'abs_lt' || c.op === 'abs_le') {
    const tol = decodePlain(c.tol);
    return tol ? { op: c.op, call, expected, tol, raw } : null;
  }
  if (c.op === 'isclose') {
    const rel = decodePlain(c.rel);
    const abs = decodePlain(c.abs);
    return rel && abs ? { op: 'isclose', call, expected, rel, abs, raw } : null;
  }
  return null;
}

function decodePlan(raw: unknown, test: string): TestPlan {
  const p = raw as { kind?: unknown; setup?: unknown; checks?: unknown; source?: unknown } | null;
  if (p?.kind === 'probe' && typeof p.setup === 'string' && Array.isArray(p.checks)) {
    const checks = p.checks.map(decodeCheck);
    if (checks.every((c): c is Check => c !== null)) return { kind: 'probe', setup: p.setup, checks };
  }
  return { kind: 'script', source: p?.kind === 'script' && typeof p.source === 'string' ? p.source : test };
}

/**
 * Verdict of one check: pass/fail plus a short reason on failure. `verdict` is Python's (the
 * splitter's `judge`): whether the check held is never decided here, only how a failure reads.
 */
export function judge(check: Check, outcome: ProbeOutcome | null, verdict: PyVerdict | undefined): { readonly passed: boolean; readonly output: string } {
  if (check.op === 'fail') return { passed: false, output: 'AssertionError' };
  if (outcome === null) return { passed: false, output: 'not run' };
  if ('error' in outcome) return { passed: false, output: outcome.error };
  if (verdict === true) return { passed: true, output: '' };
  if (typeof verdict === 'string' && !/^(TypeError|ValueError)\b/.test(verdict)) return { passed: false, output: verdict };
  const got = outcome.value;
  const numeric = check.op === 'abs_lt' || check.op === 'abs_le' || check.op === 'isclose';
  if (numeric && pyNumber(got) === null) return { passed: false, output: `AssertionError: got ${pyRepr(got)}, not a number` };
  if (typeof verdict === 'string') return { passed: false, output: verdict };
  return { passed: false, output: `AssertionError: got ${pyRepr(got)}` };
}

/** The checks of one job that need Python's verdict, with the answers they judge. */
export type JudgeRequest = readonly (readonly [unknown, unknown])[];

/** An idle splitter must not keep Node alive; one with a request in flight must. */
function hold(p: ChildProcessWithoutNullStreams, on: boolean): void {
  for (const h of [p, p.stdout, p.stdin, p.stderr] as unknown[]) {
    const handle = h as { ref?: () => void; unref?: () => void };
    if (on) handle.ref?.();
    else handle.unref?.();
  }
}

/**
 * Test lists whose plans a planner keeps, least recently used out first: a task's tests are
 * planned once for all the programs graded against them (members' answers, the team's), while a
 * stream keeps bringing new tasks. A plan list with its key is about 2-3 KiB.
 */
export const PLAN_CACHE_CAPACITY = 256;

/** A long-lived splitter process with a cache: the same test list is split once while it is recent. */
export interface TestPlanner {
  /**
   * Plans for `tests`. `helpers` is the task's own source its tests may call (HumanEval's prompt,
   * MBPP's setup code) and `entry` the candidate's entry point in it: a test reading a name the
   * helpers define is never split into probes (the checker runs it with the task's definitions).
   */
  plan(tests: readonly string[], helpers?: string, entry?: string): Promise<readonly TestPlan[]>;
  /** Python's verdict on each [check, answer] pair (`Check.raw`, `ProbeOutcome.raw`). */
  judge(pairs: JudgeRequest): Promise<readonly PyVerdict[]>;
  /** Test lists whose plans are held now (at most the planner's capacity). */
  readonly size: number;
  close(): Promise<void>;
}

/** Start lazily on first use; rejects with an InfrastructureError('grade') when the splitter fails. */
export function createTestPlanner(python: string, capacity = PLAN_CACHE_CAPACITY): TestPlanner {
  let proc: ChildProcessWithoutNullStreams | null = null;
  let procExited: Promise<void> = Promise.resolve();
  let buf = '';
  let nextId = 1;
  const pending = new Map<number, { tests: readonly string[]; resolve: (p: TestPlan[]) => void; reject: (e: Error) => void }>();
  const judging = new Map<number, { size: number; resolve: (v: PyVerdict[]) => void; reject: (e: Error) => void }>();
  const cache = new LruMap<string, Promise<readonly TestPlan[]>>(capacity);

  const failAll = (why: string): void => {
    for (const p of [...pending.values(), ...judging.values()]) p.reject(new InfrastructureError('grade', `test splitter ${why}`));
    pending.clear();
    judging.clear();
    proc = null;
  };

  const start = (): ChildProcessWithoutNullStreams => {
    const p = spawn(python, ['-s', '-B', SPLITTER], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' } });
    p.stdout.setEncoding('utf8');
    let stderr = '';
    p.stderr.on('data', (c: Buffer) => { stderr = (stderr + c.toString()).slice(-500); });
    p.stdout.on('data', (chunk: string) => {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        let msg: { id?: unknown; plans?: unknown; verdicts?: unknown; error?: unknown };
        try { msg = JSON.parse(line) as typeof msg; } catch { continue; }
        const asked = typeof msg.id === 'number' ? judging.get(msg.id) : undefined;
        if (asked) {
          judging.delete(msg.id as number);
          const verdicts = Array.isArray(msg.verdicts) && msg.verdicts.length === asked.size && msg.verdicts.every((v) => typeof v === 'boolean' || typeof v === 'string') ? (msg.verdicts as PyVerdict[]) : null;
          if (verdicts) asked.resolve(verdicts);
          else asked.reject(new InfrastructureError('grade', `test splitter failed to judge: ${String(msg.error ?? 'bad reply')}`));
          continue;
        }
        const entry = typeof msg.id === 'number' ? pending.get(msg.id) : undefined;
        if (!entry) continue;
        pending.delete(msg.id as number);
        if (Array.isArray(msg.plans) && msg.plans.length === entry.tests.length) entry.resolve(msg.plans.map((r, i) => decodePlan(r, entry.tests[i]!)));
        else entry.reject(new InfrastructureError('grade', `test splitter failed: ${String(msg.error ?? 'bad reply')}`));
      }
      if (pending.size === 0 && judging.size === 0) hold(p, false);
    });
    p.stdin.on('error', () => {});
    p.on('error', (err) => failAll(`could not start (${err.message})`));
    procExited = new Promise<void>((r) => p.once('exit', () => r()));
    p.on('exit', (code, signal) => failAll(`exited (${signal ?? code})${stderr ? `: ${stderr.trim().split('\n').pop()}` : ''}`));
    return p;
  };

  return {
    plan(tests, helpers = '', entry = '') {
      const key = JSON.stringify(helpers ? [tests, helpers, entry] : tests);
      let hit = cache.get(key);
      if (!hit) {
        hit = new Promise<TestPlan[]>((resolve, reject) => {
          proc ??= start();
          hold(proc, true);
          const id = nextId++;
          pending.set(id, { tests, resolve, reject });
          proc.stdin.write(`${JSON.stringify(helpers ? { id, tests, helpers, entry } : { id, tests })}\n`);
        });
        hit.catch(() => cache.delete(key));
        cache.set(key, hit);
      }
      return hit;
    },
    judge(pairs) {
      if (pairs.length === 0) return Promise.resolve([]);
      return new Promise<PyVerdict[]>((resolve, reject) => {
        proc ??= start();
        hold(proc, true);
        const id = nextId++;
        judging.set(id, { size: pairs.length, resolve, reject });
        proc.stdin.write(`${JSON.stringify({ id, judge: pairs })}\n`);
      });
    },
    get size() {
      return cache.size;
    },
    async close() {
      const p = proc;
      proc = null;
      if (!p) return;
      const exited = procExited;
      hold(p, true);
      p.stdin.end();
      p.kill('SIGKILL');
      await exited;
    },
  };
}
