import { execFileSync } from 'node:child_process';

// The suite writes nothing in the repository (runs, reports and scratch files go to temporary
// directories): `git status --porcelain --ignored` is the same after it as before. dist/ and
// node_modules/ are the build and the install, made by `npm ci`, and the results file is CI's.
const EXPECTED = /^!! (dist\/|node_modules\/?|\.vitest-results\.json)$/;

function status(): string[] {
  return execFileSync('git', ['status', '--porcelain', '--ignored', '--untracked-files=all'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 })
    // New files only (untracked or ignored): a tracked file changed while the suite runs is the developer's edit.
    .split('\n').filter((l) => (l.startsWith('??') || l.startsWith('!!')) && !EXPECTED.test(l) && !l.startsWith('!! dist/') && !l.startsWith('!! node_modules'));
}

/** Vitest global setup: remember the repository's state; the teardown fails the run if a test changed it. */
export default function setup(): () => void {
  const before = new Set(status());
  return () => {
    const added = status().filter((l) => !before.has(l));
    if (added.length > 0) throw new Error(`the test suite wrote into the repository (use a temporary directory):\n${added.slice(0, 20).join('\n')}`);
  };
}
