import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { childrenCpuSeconds } from '../../src/core/machine-load';
import { VERDICTS } from '../../src/tasks/graders/code-grader';
import { createCodeGrader, type CodeGrader } from '../../src/tasks/graders/index';
import { stdioAssert } from '../../src/tasks/datasets/codecontests';
import type { Task } from '../../src/tasks/task';

const TESTS = [
  'assert clamp_sum([1, 2, 3], 10) == 6',
  'assert clamp_sum([5, 6], 10) == 10',
  'assert clamp_sum([], 3) == 0',
  'assert clamp_sum([-4, 1], 0) == -3',
  'assert clamp_sum(list(range(1000)), 10**9) == 499500',
];

const task: Task = {
  id: 'bench-0000',
  index: 0,
  niche: 'bench',
  domain: 'code',
  difficulty: 1,
  block: 0,
  question: 'Write clamp_sum(xs, cap): the sum of xs, but at most cap.',
  hidden: { answer: '', distractors: [], tests: TESTS },
};

/** Candidate i: mostly correct, some off-by-one or crashing, every one a distinct program text. */
function candidate(i: number): string {
  const variants = [
    `def clamp_sum(xs, cap):\n    # variant ${i}\n    return min(sum(xs), cap)`,
    `def clamp_sum(xs, cap):\n    total = 0\n    for x in xs:\n        total += x\n    return total if total <= cap else cap  # ${i}`,
    `def clamp_sum(xs, cap):\n    return min(sum(xs[1:]), cap)  # ${i}: skips the first element`,
    `def clamp_sum(xs, cap):\n    return max(sum(xs), cap)  # ${i}: wrong bound`,
    `def clamp_sum(xs, cap):\n    return min(sum(xs), cap) + undefined_name_${i}`,
  ];
  return `\`\`\`python\n${variants[i % variants.length]}\n\`\`\``;
}

/** The same function under tests that cannot be split into value checks: a loop, a HumanEval check(). */
const scriptTask: Task = {
  ...task,
  id: 'bench-0001',
  hidden: {
    ...task.hidden,
    tests: [
      'for n in range(8):\n    assert clamp_sum(list(range(n)), 10) == min(n * (n - 1) // 2, 10)',
      'def check(candidate):\n    xs = [3, 4]\n    r = candidate(xs, 100)\n    assert r == 7\n    assert candidate([], 0) == 0\n\ncheck(clamp_sum)',
    ],
  },
};

/** A stdin/stdout task in CodeContests' form: main() reads two lines and prints clamp_sum. */
const stdioTask: Task = {
  ...task,
  id: 'bench-0002',
  hidden: { ...task.hidden, tests: [stdioAssert('1 2 3\n10\n', '6\n'), stdioAssert('5 6\n10\n', '10\n'), stdioAssert('-4 1\n0\n', '-3\n')] },
};
/** Tests through handles (docs/sandbox-threat-model.md, "Handles"): a class used through its methods, a callable passed, a lazy generator. */
const handlesTask: Task = {
  ...task,
  id: 'bench-0003',
  hidden: {
    ...task.hidden,
    tests: [
      's = Acc()\nfor x in [1, 2, 3]:\n    s.add(x)\nassert s.total() == 6',
      'assert clamp_sum(list(map(lambda v: v * 2, [1, 2])), 10) == 6 and Acc().apply(lambda v: v + 1, 1) == 2',
      'from itertools import islice\nassert list(islice(Acc().running([1] * 2000), 1500))[-1] == 1500',
    ],
  },
};
const ACC = '\nclass Acc:\n    def __init__(self):\n        self.xs = []\n    def add(self, x):\n        self.xs.append(x)\n    def total(self):\n        return sum(self.xs)\n    def apply(self, f, x):\n        return f(x)\n    def running(self, xs):\n        t = 0\n        for x in xs:\n            t += x\n            yield t';
const withAcc = (c: string) => c.replace(/\n```$/, `${ACC}\n\`\`\``);
const MAIN = '\ndef main():\n    xs = [int(t) for t in input().split()]\n    print(clamp_sum(xs, int(input())))';
const withMain = (c: string) => c.replace(/\n```$/, `${MAIN}\n\`\`\``);

async function measure(grader: CodeGrader, label: string, t: Task, make: (i: number) => string, n: number): Promise<void> {
  await grader.grade(make(0), t); // warm-up: worker start-up is paid once per pool
  const start = performance.now();
  const grades = await Promise.all(Array.from({ length: n }, (_, i) => grader.grade(make(i), t)));
  const seconds = (performance.now() - start) / 1000;
  const passed = grades.filter((g) => g.correct).length;
  console.log(`${label}: graded ${n} candidates (${passed} passed, ${n - passed} failed) in ${seconds.toFixed(2)} s`);
  console.log(`${label}: throughput ${(n / seconds).toFixed(1)} candidates/s with 2 workers`);
}

/**
 * What one graded candidate costs in CPU, children included (the sandbox's workers, candidates and
 * bubblewrap, counted once the pool is closed and they are reaped): fresh, then from the on-disk
 * verdicts in a fresh memory tier (what a later run, sweep worker or calibration sees), then from memory.
 */
async function candidateCost(n: number): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'evo-bench-verdicts-'));
  const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 + childrenCpuSeconds() * 1000; };
  // A pool's CPU counts once it is closed: each pass is a pool's whole life, less one that grades
  // nothing but its first candidate (the workers' start).
  let lives = 0;
  const life = async (count: number, clear: boolean) => {
    lives++;
    if (clear) VERDICTS.clear();
    const c0 = cpu();
    const grader = createCodeGrader({ workers: 2, timeoutMs: 2000, verdictDir: dir });
    await Promise.all([0, 1].map((w) => grader.grade(candidate(2_000_000 + 2 * lives + w), task)));
    for (let i = 0; i < count; i += 20) await Promise.all(Array.from({ length: Math.min(20, count - i) }, (_, k) => grader.grade(candidate(i + k), task)));
    await grader.close();
    return cpu() - c0;
  };
  const start = await life(0, true);
  const pass = async (label: string, clear: boolean) => {
    console.log(`${label}: ${((await life(n, clear) - start) / n).toFixed(3)} ms of CPU per candidate, children included (${n} candidates; a pool's start, ${start.toFixed(0)} ms, apart)`);
  };
  try {
    await pass('fresh candidate', true);
    await pass('verdict from disk (memory tier empty)', true);
    await pass('verdict from memory', false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Graded candidates per second through the sandbox pool (small candidates, mixed pass/fail), per test mode. */
export async function benchCodeGrader(): Promise<void> {
  const grader = createCodeGrader({ workers: 2, timeoutMs: 2000 });
  try {
    console.log(`isolation: ${grader.isolation.mode} — ${grader.isolation.summary}`);
    await measure(grader, 'value checks', task, candidate, 200);
    await measure(grader, 'script tests', scriptTask, candidate, 100);
    await measure(grader, 'stdin/stdout', stdioTask, (i) => withMain(candidate(i)), 100);
    await measure(grader, 'handles', handlesTask, (i) => withAcc(candidate(i)), 100);
    const { runs, reruns, flaky } = grader.sandboxRuns;
    console.log(`sandbox runs: ${runs}, second runs of programs that touched a source of nondeterminism: ${reruns}, flaky: ${flaky}`);
  } finally {
    await grader.close();
  }
  await candidateCost(200);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchCodeGrader();
