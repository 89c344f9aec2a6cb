import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Engine runs and sandboxed grading are real work; two cores run the suite in a few minutes.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
