import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { DEBATE_REVISION, startRefusingProxy } from '../fixtures/refusing-proxy';

/** serve-sim's time scale: the clean run takes under a minute on a quiet 2-core machine. */
const TIME_SCALE = Number(process.env.REFUSED_TIME_SCALE ?? 60);
const TASKS = Number(process.env.REFUSED_TASKS ?? 40);

async function spawnServeSim(children: ChildProcess[]): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve-sim', '--port', '0', '--time-scale', String(TIME_SCALE), '--seed', '1'], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`serve-sim exited early with ${code}`)));
  });
  return /(http:\S+)/.exec(line)![1]!;
}

interface Measured { seconds: number; summary: Record<string, unknown>; refused: number; passed: number }

/** One `evochamber run quickstart` over HTTP, as a user types it, through a proxy that refuses debate's revisions with 503 (or nothing). */
async function runThrough(target: string, refuse: boolean, dir: string): Promise<Measured> {
  const proxy = await startRefusingProxy(target, refuse ? { refuse: DEBATE_REVISION, status: 503 } : null);
  try {
    const t0 = performance.now();
    const run = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'run', 'quickstart', '--tasks', String(TASKS), '--seed', '1',
      '--base-url', proxy.url, '--sim-side-channel', '--out', path.join(dir, refuse ? 'refused' : 'clean'), '--no-report', '--json', '--quiet'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    run.stdout!.on('data', (c: Buffer) => { out += c.toString('utf8'); });
    await new Promise((r) => run.once('exit', r));
    const seconds = (performance.now() - t0) / 1000;
    return { seconds, summary: JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, unknown>, refused: proxy.refused(), passed: proxy.passed() };
  } finally {
    await proxy.close();
  }
}

/**
 * `npm run bench -- refused`: a 40-task quickstart run over HTTP against serve-sim (--time-scale 60),
 * once clean and once behind a proxy that answers every debate revision (`## Other answers`) with
 * 503, both with the backend's default retries, backoff and health settings. Prints each run's wall
 * time, the ratio (goal: at most 3), the refused requests and what the run made of them. Wall time
 * is printed, never asserted.
 */
export async function benchRefusedStructure(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'evo-refused-'));
  const children: ChildProcess[] = [];
  try {
    const url = await spawnServeSim(children);
    const clean = await runThrough(url, false, dir);
    const refused = await runThrough(url, true, dir);
    for (const [name, m] of [['clean', clean], ['debate refused (503)', refused]] as const) {
      const s = m.summary;
      const ep = Object.values((s.endpoints ?? {}) as Record<string, { requests: number; retries: number; failures: number }>)[0];
      const aside = (s.setAside as Array<{ niche: string; task: number }> | undefined) ?? [];
      console.log(`${name}: ${m.seconds.toFixed(1)} s wall, ${String(s.graded)} graded, ${String(s.failures)} failed, ` +
        `${m.refused} requests refused and ${m.passed} passed (${ep?.retries ?? 0} retries), debate set aside on ${aside.length} niches` +
        (aside.length ? ` (at tasks ${aside.map((a) => a.task).join(', ')})` : ''));
    }
    const ratio = refused.seconds / clean.seconds;
    console.log(`ratio ${ratio.toFixed(2)}: ${ratio <= 3 ? 'within' : 'NOT within'} the goal of 3x the clean run`);
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchRefusedStructure();
