import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/**
 * The files that take longest (seconds on 2 cores), started first: with two workers the suite's
 * wall time is about half its total only when the long files do not start last. Vitest orders by
 * the previous run's durations when it has them; a fresh clone has none and orders by file size,
 * which would start sweep-local (a small file, the longest) among the last. Measured as CPU time
 * (the test process and the children it reaps: load-independent) over one run of the suite at
 * 6f65d3b + the seed comparisons moved to npm run bench, or kept from a quiet run where that was
 * higher (waits on real time count there); sweep.test.ts needs redis-server and keeps its figure.
 */
const SLOW: Record<string, number> = {
  'test/engine/sweep/sweep-local.test.ts': 26,
  'test/engine/run/kill-resume.test.ts': 26,
  'test/llm/openai/e2e-serve-sim.test.ts': 20,
  'test/llm/openai/e2e-faults.test.ts': 18,
  'test/engine/sweep/sweep.test.ts': 17,
  'test/engine/meta/meta.test.ts': 16,
  'test/tasks/graders/code-grader.test.ts': 16,
  'test/engine/run/run-scenario.test.ts': 15,
  'test/llm/openai/e2e-speculative.test.ts': 15,
  'test/report/live/watch-browser.test.ts': 15,
  'test/engine/virtual-vs-http.test.ts': 14,
  'test/tasks/graders/sandbox-cpu-limit.test.ts': 13,
  'test/engine/virtual-time.test.ts': 12,
  'test/engine/loop/budget.test.ts': 12,
  'test/cli/cli.test.ts': 11,
  'test/cli/cli-errors.test.ts': 11,
};

class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const known = (f: TestSpecification) => SLOW[path.relative(f.project.config.root, f.moduleId).split(path.sep).join('/')] ?? 0;
    // Array.prototype.sort is stable: files not listed keep vitest's own order after the listed ones.
    return sorted.sort((a, b) => known(b) - known(a));
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Engine runs and sandboxed grading are real work; two cores run the suite in a few minutes.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default leaves one core idle on a 2-core machine (CI's size); the files are CPU-bound and
    // independent, so use both.
    maxWorkers: 2,
    sequence: { sequencer: SlowFirstSequencer },
    // Nothing is written in the repository: checked after the run (test/tools/clean-repo.setup.ts);
    // nothing is left in /tmp: the suite's temporary files go under one directory, removed at the end.
    globalSetup: ['test/tools/clean-repo.setup.ts', 'test/tools/scratch-tmp.setup.ts'],
  },
});
