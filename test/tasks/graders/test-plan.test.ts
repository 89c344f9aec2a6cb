import { describe, expect, it } from 'vitest';
import { resolvePython } from '../../../src/tasks/graders/sandbox-isolation';
import { createTestPlanner } from '../../../src/tasks/graders/test-plan';

describe('test planner cache', () => {
  it('holds the plans of at most its capacity of test lists, and plans an evicted list the same again', async () => {
    const planner = createTestPlanner(resolvePython().executable, 2);
    try {
      const lists = [['assert f(1) == 2'], ['assert f(2) == 3', 'assert g() is None'], ['assert f(3) == 4']];
      const first = await planner.plan(lists[0]!);
      for (const tests of lists.slice(1)) await planner.plan(tests);
      expect(planner.size).toBe(2);
      expect(await planner.plan(lists[0]!)).toEqual(first);
      expect(planner.size).toBe(2);
    } finally {
      await planner.close();
    }
  });
});
