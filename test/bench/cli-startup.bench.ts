import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RUNS = 10;

/** Wall time of one child process, in ms; throws if it fails. */
function timeOnce(args: string[]): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status ?? r.signal}: ${r.stderr}`);
  return ms;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * `npm run bench -- cli`: the cost of the build and of starting the installed command.
 * - a full `npm run build` (tsc, tsc-alias, assets) and the up-to-date check `npm start` runs first;
 * - `evochamber --help` on dist/ against a bare `node -e 0`, 10 runs each, interleaved so both see
 *   the same machine load; goal: at most 5x. Every command's module loads lazily, so --help loads
 *   neither the engine nor mathjs nor vega. Figures are printed, never asserted.
 */
export async function benchCliStartup(): Promise<void> {
  const buildMs = timeOnce(['test/tools/build-dist.mjs']);
  const checkMs = median(Array.from({ length: 5 }, () => timeOnce(['test/tools/build-dist.mjs', '--if-stale'])));
  console.log(`build: full ${(buildMs / 1000).toFixed(1)} s; up-to-date check (npm start) ${checkMs.toFixed(0)} ms`);

  const bare: number[] = [];
  const help: number[] = [];
  timeOnce(['bin/evochamber.js', '--help']); // warm the file cache
  for (let i = 0; i < RUNS; i++) {
    bare.push(timeOnce(['-e', '0']));
    help.push(timeOnce(['bin/evochamber.js', '--help']));
  }
  const b = median(bare);
  const h = median(help);
  console.log(`node -e 0:             median ${b.toFixed(0)} ms over ${RUNS} runs`);
  console.log(`evochamber --help:     median ${h.toFixed(0)} ms over ${RUNS} runs`);
  console.log(`ratio: ${(h / b).toFixed(2)}x (goal <= 5x)`);
}
