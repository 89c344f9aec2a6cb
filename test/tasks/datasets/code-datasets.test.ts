import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCodeGrader } from '../../../src/tasks/graders';
import { loadCodeContests } from '../../../src/tasks/datasets/codecontests';
import { doctestAsserts, loadHumanEval, MAX_DOCTEST_TEXT } from '../../../src/tasks/datasets/humaneval';
import { loadMbpp, loadMbppPlus } from '../../../src/tasks/datasets/mbpp';
import type { GeneratedTask } from '../../../src/tasks/niche';
import { asTask, FIXTURES } from './fixture-files';

const grader = createCodeGrader({ workers: 1 });
afterAll(() => grader.close());
const file = (name: string) => path.join(FIXTURES, name);

/** Every hidden and public test passes for the gold; the wrong program fails at least one hidden test. */
async function expectGoldPassesWrongFails(row: GeneratedTask, wrong: string): Promise<void> {
  const tests = row.hidden.tests!;
  const gold = await grader.runTests(row.hidden.answer, tests);
  expect(gold.detail).toBe(`${tests.length}/${tests.length} tests passed`);
  const pub = await grader.runTests(row.hidden.answer, row.publicTests ?? []);
  expect(pub.passed).toBe(pub.total);
  const bad = await grader.runTests(wrong, tests);
  expect(bad.passed).toBeLessThan(tests.length);
  const graded = await grader.grade(`Here it is:\n\`\`\`python\n${row.hidden.answer}\n\`\`\``, asTask(row, 'code'));
  expect(graded.reward).toBe(1);
}

describe('MBPP dataset', () => {
  it('reads text/prompt, code, test_list (+ imports); entry point from the first def; first test public', () => {
    const { rows, skipped } = loadMbpp(file('mbpp.jsonl'));
    expect(rows.map((r) => r.entryPoint)).toEqual(['similar_elements', 'isqrt_floor']);
    expect(rows[0]!.publicTests).toEqual(['assert set(similar_elements((3, 4, 5, 6),(5, 7, 4, 10))) == set((4, 5))']);
    expect(rows[1]!.hidden.tests![0]).toBe('import math\nassert isqrt_floor(10) == 3');
    expect(rows[0]!.question).toContain('shared elements');
    expect(skipped).toBe(2); // no tests, broken JSON
  });

  it('the reference passes the hidden tests in the sandbox and a wrong solution fails them', async () => {
    const [shared, isqrt] = loadMbpp(file('mbpp.jsonl')).rows;
    await expectGoldPassesWrongFails(shared!, 'def similar_elements(a, b):\n    return tuple(a)');
    await expectGoldPassesWrongFails(isqrt!, 'def isqrt_floor(n):\n    return int(n ** 0.5) + 1');
  });
});

describe('MBPP+ dataset', () => {
  it('adds the EvalPlus test script as a hidden test and reads entry_point', () => {
    const { rows, skipped } = loadMbppPlus(file('mbpp-plus.jsonl'));
    expect(rows.map((r) => [r.entryPoint, r.hidden.tests!.length, r.difficulty])).toEqual([['similar_elements', 2, 2], ['is_not_prime', 1, 2]]);
    expect(rows[1]!.publicTests).toEqual([]);
    expect(skipped).toBe(2); // no code, broken JSON
  });

  it('the EvalPlus script catches a solution that passes the base tests but not the edge cases', async () => {
    const [shared, prime] = loadMbppPlus(file('mbpp-plus.jsonl')).rows;
    const edgeBlind = 'def similar_elements(a, b):\n    return tuple(set(a) & set(b)) or None';
    await expectGoldPassesWrongFails(shared!, edgeBlind);
    const base = await grader.runTests(edgeBlind, shared!.hidden.tests!.slice(0, 1));
    expect(base.detail).toBe('1/1 tests passed');
    await expectGoldPassesWrongFails(prime!, 'def is_not_prime(n):\n    return n % 2 == 0 and n != 2');
  });
});

describe('HumanEval dataset', () => {
  it('shows the prompt, hides `test` + check(entry_point), gold = prompt + canonical solution', () => {
    const { rows, skipped } = loadHumanEval(file('humaneval.jsonl'));
    expect(rows.map((r) => r.entryPoint)).toEqual(['has_close_elements', 'add']);
    expect(rows[0]!.question).toContain('def has_close_elements(numbers: List[float], threshold: float) -> bool:');
    expect(rows[0]!.hidden.tests![0]).toMatch(/def check\(candidate\)[\s\S]*\ncheck\(has_close_elements\)$/);
    expect(rows[1]!.publicTests).toEqual(['assert (add(2, 3)) == (5)', 'assert (add(5, 7)) == (12)']);
    expect(skipped).toBe(2); // test without check(), broken JSON
  });

  it('takes only simple doctest examples', () => {
    expect(doctestAsserts('>>> x = f(1)\n>>> f(2)\n4\n>>> f(3)\n')).toEqual(['assert (f(2)) == (4)']);
  });

  it('reads a runaway prompt only up to MAX_DOCTEST_TEXT: examples at its start, none past the cut', () => {
    const flood = '\n'.repeat(MAX_DOCTEST_TEXT);
    expect(doctestAsserts(`>>> f(2)\n4\n${flood}>>> f(3)\n9\n`)).toEqual(['assert (f(2)) == (4)']);
    expect(doctestAsserts(`${flood}>>> f(3)\n9\n`)).toEqual([]);
  });

  it('the canonical solution passes check() and a wrong solution fails it', async () => {
    const [close, add] = loadHumanEval(file('humaneval.jsonl')).rows;
    await expectGoldPassesWrongFails(close!, 'def has_close_elements(numbers, threshold):\n    return False');
    await expectGoldPassesWrongFails(add!, 'def add(x, y):\n    return x * y');
  });
});

describe('CodeContests dataset', () => {
  it('turns stdin/stdout pairs into tests of main(); public pairs are shown', () => {
    const { rows, skipped } = loadCodeContests(file('codecontests.jsonl'));
    expect(rows.map((r) => [r.entryPoint, r.publicTests!.length, r.hidden.tests!.length, r.difficulty])).toEqual([['main', 1, 3, 3], ['main', 1, 3, 3]]);
    expect(rows[0]!.question).toMatch(/^1000_A\. Sum of Two\n\nYou are given two integers/);
    expect(skipped).toBe(2); // unpaired tests, broken JSON
  });

  it('the wrapped Python 3 reference passes (input() and sys.stdin.buffer alike); wrong output fails', async () => {
    const [sum, largest] = loadCodeContests(file('codecontests.jsonl')).rows;
    await expectGoldPassesWrongFails(sum!, 'def main():\n    print(0)');
    await expectGoldPassesWrongFails(largest!, 'import sys\ndef main():\n    data = sys.stdin.read().split()\n    print(min(map(int, data[1:])))');
  });

  it('a candidate written as the answer format asks (main() reading sys.stdin) passes', async () => {
    const [sum] = loadCodeContests(file('codecontests.jsonl')).rows;
    const report = await grader.runTests('import sys\n\ndef main():\n    a, b = map(int, sys.stdin.readline().split())\n    print(a + b)\n', sum!.hidden.tests!);
    expect(report.detail).toBe('3/3 tests passed');
  });
});
