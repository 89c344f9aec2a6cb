import { pathToFileURL } from 'node:url';
import { createCodeGrader } from '../../src/tasks/graders/index';
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

/** Graded candidates per second through the sandbox pool (200 small candidates, mixed pass/fail). */
export async function benchCodeGrader(): Promise<void> {
  const n = 200;
  const grader = createCodeGrader({ workers: 2, timeoutMs: 2000 });
  try {
    console.log(`isolation: ${grader.isolation.mode} — ${grader.isolation.summary}`);
    await grader.grade(candidate(0), task); // warm-up: worker start-up is paid once per pool
    const start = performance.now();
    const grades = await Promise.all(Array.from({ length: n }, (_, i) => grader.grade(candidate(i), task)));
    const seconds = (performance.now() - start) / 1000;
    const passed = grades.filter((g) => g.correct).length;
    console.log(`graded ${n} candidates (${passed} passed, ${n - passed} failed) in ${seconds.toFixed(2)} s`);
    console.log(`throughput: ${(n / seconds).toFixed(1)} candidates/s with 2 workers`);
  } finally {
    await grader.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchCodeGrader();
