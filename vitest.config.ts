import { defineConfig } from 'vitest/config';

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
  },
});
