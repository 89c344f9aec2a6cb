import type { TaskGenerator } from '../niche';
import { body, buildCodeTask, int, intList, type CodeProblem, type PyValue } from './code-task';
import type { GeneratorDescriptor } from './generator';

/**
 * Python functions over lists of ints. Level 1: one pass with a fixed rule; level 2: a list
 * result or a parameter, with empty/negative edge cases; level 3: problems with a classic
 * trap (duplicates, all-negative input, ties, a partial last chunk).
 */

const nums = (a: readonly PyValue[]): number[] => a[0] as number[];
const sum = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0);

// ---- level 1 ----

const sumEvens: CodeProblem = {
  names: ['sum_evens', 'even_sum', 'total_of_evens'],
  params: ['xs'],
  make: () => ({
    text: 'returns the sum of the even numbers in `xs` (0 if there are none).',
    body: body('return sum(x for x in xs if x % 2 == 0)'),
    bugs: [
      body('return sum(x for x in xs if x % 2 == 1)'),
      body('return sum(xs[i] for i in range(0, len(xs), 2))'),
      body('total = 0', 'for x in xs[1:]:', '    if x % 2 == 0:', '        total += x', 'return total'),
    ],
    run: (a) => sum(nums(a).filter((x) => x % 2 === 0)),
    edge: [[[4, 1, 3, 6]], [[]], [[-2, 5]]],
    input: (rng) => [intList(rng, 2, 8, -9, 20)],
  }),
};

const countAbove: CodeProblem = {
  names: ['count_above', 'count_greater', 'how_many_above'],
  params: ['xs'],
  make: (rng) => {
    const t = int(rng, 3, 9);
    return {
      text: `returns how many numbers in \`xs\` are strictly greater than ${t}.`,
      body: body(`return sum(1 for x in xs if x > ${t})`),
      bugs: [
        body(`return sum(1 for x in xs if x >= ${t})`),
        body(`return sum(1 for x in xs if x < ${t})`),
        body(`return sum(x for x in xs if x > ${t})`),
      ],
      run: (a) => nums(a).filter((x) => x > t).length,
      edge: [[[t, t + 1, t - 1, t + 5]], [[]]],
      input: (r) => [intList(r, 2, 8, 0, 15)],
    };
  },
};

const spread: CodeProblem = {
  names: ['spread', 'value_range', 'max_minus_min'],
  params: ['xs'],
  make: () => ({
    text: 'returns the largest value in `xs` minus the smallest one; `xs` always has at least one element.',
    body: body('return max(xs) - min(xs)'),
    bugs: [body('return xs[-1] - xs[0]'), body('return max(xs) - xs[0]'), body('return max(xs) - min(xs) + 1')],
    run: (a) => Math.max(...nums(a)) - Math.min(...nums(a)),
    edge: [[[5, 9, 1, 4]], [[7]]],
    input: (rng) => [intList(rng, 1, 8, -20, 30)],
  }),
};

// ---- level 2 ----

const runningMax: CodeProblem = {
  names: ['running_max', 'prefix_max', 'max_so_far'],
  params: ['xs'],
  make: () => ({
    text: 'returns a list whose i-th element is the largest of `xs[0]` .. `xs[i]`; an empty list gives `[]`.',
    body: body('out = []', 'best = None', 'for x in xs:', '    if best is None or x > best:', '        best = x', '    out.append(best)', 'return out'),
    bugs: [
      body('out = []', 'best = 0', 'for x in xs:', '    if x > best:', '        best = x', '    out.append(best)', 'return out'),
      body('out = []', 'best = None', 'for x in xs:', '    if best is None or x < best:', '        best = x', '    out.append(best)', 'return out'),
      body('return [max(xs[:i]) for i in range(1, len(xs))]'),
    ],
    run: (a) => {
      let best = -Infinity;
      return nums(a).map((x) => (best = Math.max(best, x)));
    },
    edge: [[[-3, -5, -1, -4]], [[]]],
    input: (rng) => [intList(rng, 2, 8, -10, 25)],
  }),
};

const pairwiseDiffs: CodeProblem = {
  names: ['pairwise_diffs', 'differences', 'step_changes'],
  params: ['xs'],
  make: () => ({
    text: 'returns the list of differences `xs[i + 1] - xs[i]` for consecutive elements; a list with fewer than two elements gives `[]`.',
    body: body('return [xs[i + 1] - xs[i] for i in range(len(xs) - 1)]'),
    bugs: [
      body('return [xs[i] - xs[i + 1] for i in range(len(xs) - 1)]'),
      body('return [abs(xs[i + 1] - xs[i]) for i in range(len(xs) - 1)]'),
      body('return [xs[i] - xs[i - 1] for i in range(len(xs))]'),
    ],
    run: (a) => nums(a).slice(1).map((x, i) => x - (nums(a)[i] as number)),
    edge: [[[3, 8, 6]], [[5]], [[]]],
    input: (rng) => [intList(rng, 2, 8, -10, 20)],
  }),
};

const rotateRight: CodeProblem = {
  names: ['rotate_right', 'rotate', 'shift_right'],
  params: ['xs', 'k'],
  make: () => ({
    text: 'returns a new list with `xs` rotated right by `k` positions (`k >= 0` and may exceed the length; the last element moves to the front on each step); an empty list gives `[]`.',
    body: body('if not xs:', '    return []', 'k %= len(xs)', 'return xs[-k:] + xs[:-k]'),
    bugs: [
      body('if not xs:', '    return []', 'k %= len(xs)', 'return xs[k:] + xs[:k]'),
      body('if not xs:', '    return []', 'return xs[-k:] + xs[:-k]'),
      body('k %= len(xs)', 'return xs[-k:] + xs[:-k]'),
    ],
    run: (a) => {
      const xs = nums(a);
      const k = a[1] as number;
      if (xs.length === 0) return [];
      const s = k % xs.length;
      return [...xs.slice(xs.length - s), ...xs.slice(0, xs.length - s)];
    },
    edge: [[[1, 2, 3, 4, 5], 2], [[1, 2, 3], 4], [[], 3]],
    input: (rng) => [intList(rng, 1, 7, 0, 30), int(rng, 0, 9)],
  }),
};

const dedupe: CodeProblem = {
  names: ['dedupe', 'unique_in_order', 'remove_duplicates'],
  params: ['xs'],
  make: () => ({
    text: 'returns `xs` without repeated values, keeping the first occurrence of each value in the original order.',
    body: body('seen = set()', 'out = []', 'for x in xs:', '    if x not in seen:', '        seen.add(x)', '        out.append(x)', 'return out'),
    bugs: [
      body('return sorted(set(xs))'),
      body('return [x for i, x in enumerate(xs) if x not in xs[i + 1:]]'),
      body('return [x for i, x in enumerate(xs) if i == 0 or x != xs[i - 1]]'),
    ],
    run: (a) => [...new Set(nums(a))],
    edge: [[[3, 1, 3, 2, 1]], [[]]],
    input: (rng) => [intList(rng, 3, 9, 0, 6)],
  }),
};

// ---- level 3 ----

const secondLargest: CodeProblem = {
  names: ['second_largest', 'runner_up', 'second_max'],
  params: ['xs'],
  make: () => ({
    text: 'returns the second largest distinct value in `xs`, or `None` if `xs` has fewer than two distinct values.',
    body: body('vals = sorted(set(xs))', 'return vals[-2] if len(vals) >= 2 else None'),
    bugs: [
      body('return sorted(xs)[-2] if len(xs) >= 2 else None'),
      body('vals = sorted(set(xs))', 'return vals[-2]'),
      body('vals = sorted(set(xs))', 'return vals[1] if len(vals) >= 2 else None'),
    ],
    run: (a) => {
      const vals = [...new Set(nums(a))].sort((x, y) => x - y);
      return vals.length >= 2 ? (vals[vals.length - 2] as number) : null;
    },
    edge: [[[4, 9, 9, 2, 7]], [[5, 5]], [[]]],
    input: (rng) => [intList(rng, 2, 8, -10, 12)],
  }),
};

const longestRun: CodeProblem = {
  names: ['longest_increasing_run', 'longest_rising_streak', 'max_ascending_run'],
  params: ['xs'],
  make: () => ({
    text: 'returns the length of the longest run of consecutive elements in which each element is strictly greater than the one before it; an empty list gives 0.',
    body: body('best = cur = 0', 'prev = None', 'for x in xs:', '    cur = cur + 1 if prev is not None and x > prev else 1', '    best = max(best, cur)', '    prev = x', 'return best'),
    bugs: [
      body('best = cur = 0', 'prev = None', 'for x in xs:', '    cur = cur + 1 if prev is not None and x >= prev else 1', '    best = max(best, cur)', '    prev = x', 'return best'),
      body('return sum(1 for i in range(1, len(xs)) if xs[i] > xs[i - 1])'),
      body('best = 0', 'cur = 1 if xs else 0', 'for i in range(1, len(xs)):', '    if xs[i] > xs[i - 1]:', '        cur += 1', '    else:', '        best = max(best, cur)', '        cur = 1', 'return best'),
    ],
    run: (a) => {
      let best = 0;
      let cur = 0;
      nums(a).forEach((x, i, xs) => {
        cur = i > 0 && x > (xs[i - 1] as number) ? cur + 1 : 1;
        best = Math.max(best, cur);
      });
      return best;
    },
    edge: [[[1, 2, 2, 3, 4, 5, 0]], [[5, 1, 2, 3]], [[]]],
    input: (rng) => [intList(rng, 3, 10, 0, 9)],
  }),
};

const maxSubarray: CodeProblem = {
  names: ['max_subarray_sum', 'best_window_sum', 'max_contiguous_sum'],
  params: ['xs'],
  make: () => ({
    text: 'returns the largest sum of a non-empty contiguous sublist of `xs`; `xs` always has at least one element (and may be all negative).',
    body: body('best = cur = xs[0]', 'for x in xs[1:]:', '    cur = max(x, cur + x)', '    best = max(best, cur)', 'return best'),
    bugs: [
      body('best = cur = 0', 'for x in xs:', '    cur = max(0, cur + x)', '    best = max(best, cur)', 'return best'),
      body('return sum(x for x in xs if x > 0)'),
      body('return max(sum(xs), max(xs))'),
    ],
    run: (a) => {
      const xs = nums(a);
      let best = xs[0] as number;
      let cur = best;
      for (const x of xs.slice(1)) {
        cur = Math.max(x, cur + x);
        best = Math.max(best, cur);
      }
      return best;
    },
    edge: [[[-4, -2, -7]], [[2, -5, 3, 4, -1]]],
    input: (rng) => [intList(rng, 1, 9, -9, 9)],
  }),
};

const chunkSums: CodeProblem = {
  names: ['chunk_sums', 'block_totals', 'group_sums'],
  params: ['xs', 'k'],
  make: () => ({
    text: 'splits `xs` into consecutive chunks of `k` elements (`k >= 1`; the last chunk may be shorter) and returns the list of the chunk sums; an empty list gives `[]`.',
    body: body('return [sum(xs[i:i + k]) for i in range(0, len(xs), k)]'),
    bugs: [
      body('return [sum(xs[i:i + k]) for i in range(0, len(xs) - k + 1, k)]'),
      body('return [sum(xs[i:i + k]) for i in range(len(xs) - k + 1)]'),
      body('return [sum(xs[i:i + k]) for i in range(1, len(xs), k)]'),
    ],
    run: (a) => {
      const xs = nums(a);
      const k = a[1] as number;
      const out: number[] = [];
      for (let i = 0; i < xs.length; i += k) out.push(sum(xs.slice(i, i + k)));
      return out;
    },
    edge: [[[1, 2, 3, 4, 5], 2], [[], 3]],
    input: (rng) => [intList(rng, 1, 9, -5, 15), int(rng, 1, 4)],
  }),
};

const BY_LEVEL: Record<number, readonly CodeProblem[]> = {
  1: [sumEvens, countAbove, spread],
  2: [runningMax, pairwiseDiffs, rotateRight, dedupe],
  3: [secondLargest, longestRun, maxSubarray, chunkSums],
};

/** Generator for the `list-functions` niche: write a Python function over a list of ints. */
export const listFunctions: TaskGenerator = (difficulty, rng) => {
  const pool = BY_LEVEL[difficulty];
  if (!pool) throw new RangeError(`list-functions: unsupported difficulty ${difficulty} (expected 1, 2 or 3)`);
  return buildCodeTask(difficulty, rng.pick(pool), rng);
};

/** The `list-functions` generator. */
export const listFunctionsGenerator: GeneratorDescriptor = { name: 'list-functions', generate: listFunctions };
