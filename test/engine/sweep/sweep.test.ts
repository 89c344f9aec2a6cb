import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/cli/main';
import { formatAblationTable, loadScenario, runAblation, runScenario, type AblationResult } from '../../../src/index';
import { attachSweep, runQueuedAblation } from '../../../src/engine/sweep/sweep-coordinator';
import { parseRedisTarget } from '../../../src/engine/sweep/redis-target';
import { probeRedis } from '../../../src/engine/sweep/redis-connection';
import { startSweepWorker, type SweepWorker } from '../../../src/engine/sweep/sweep-worker';
import { sweepRunDirName } from '../../../src/engine/sweep/queue-names';

// A real Redis (Debian's redis-server, which .ci/run installs) and real worker processes: no mocks.
const PASSWORD = 'sweep-test-secret';
const dir = mkdtempSync(path.join(tmpdir(), 'evo-sweep-'));
const children: ChildProcess[] = [];
let redis: ChildProcess | undefined;
let url = '';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** A child process of the CLI; its stdout and stderr are kept line by line. */
function cli(args: string[]): { child: ChildProcess; out: string[]; err: string[]; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const out: string[] = [];
  const err: string[] = [];
  const lines = (into: string[]) => { let buf = ''; return (chunk: Buffer) => { buf += chunk; const parts = buf.split('\n'); buf = parts.pop()!; into.push(...parts); }; };
  child.stdout!.on('data', lines(out));
  child.stderr!.on('data', lines(err));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, out, err, exited };
}

/** Resolves with the first stdout line of any of the workers that matches. */
function firstLine(workers: ReturnType<typeof cli>[], re: RegExp): Promise<{ worker: ReturnType<typeof cli>; line: string }> {
  return new Promise((resolve) => {
    const handlers = workers.map((w) => {
      let buf = '';
      const on = (chunk: Buffer) => {
        buf += chunk;
        const line = buf.split('\n').find((l) => re.test(l));
        if (!line) return;
        workers.forEach((x, i) => x.child.stdout!.off('data', handlers[i]!));
        resolve({ worker: w, line });
      };
      w.child.stdout!.on('data', on);
      return on;
    });
  });
}

/** Run the CLI in this process (its modules are loaded already), keeping what it prints. */
async function inProcess(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s) => { out += String(s); return true; });
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s) => { err += String(s); return true; });
  try {
    const code = await main(args);
    return { code, out: out.split('\n').filter(Boolean), err: err.split('\n').filter(Boolean) };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

const means = (r: Pick<AblationResult, 'variants'>) => Object.fromEntries(Object.entries(r.variants).map(([v, x]) => [v, { accuracy: x.accuracy, perNiche: x.perNiche, stableSpecialists: x.stableSpecialists }]));

beforeAll(async () => {
  const found = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (found.error) throw new Error('redis-server is not installed; this test needs the real one (apt-get install redis-server; .ci/run installs it)');
  const port = await freePort();
  redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--requirepass', PASSWORD], { stdio: 'ignore' });
  url = `redis://:${PASSWORD}@127.0.0.1:${port}`;
  const target = parseRedisTarget(url);
  for (let i = 0; ; i++) {
    try { await probeRedis(target); break; } catch (err) { if (i > 50) throw err; await new Promise((r) => setTimeout(r, 100)); }
  }
}, 30_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  if (redis && redis.exitCode === null) {
    const gone = new Promise((r) => redis!.once('exit', r));
    redis.kill('SIGTERM');
    await gone;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('ablation sweeps on BullMQ', () => {
  let sweepId = '';
  let queued: AblationResult;
  let survivor: ReturnType<typeof cli>;

  it('survives a worker SIGKILLed mid-job: the queued ablation equals the local one', async () => {
    const runsRoot = path.join(dir, 'shared-runs');
    // Short locks so the dead worker's job is taken back in seconds, not the default 30 s.
    const workerArgs = ['worker', '--queue', url, '--runs-root', runsRoot, '--lock-ms', '3000', '--stalled-check-ms', '1000'];
    const workers = [cli(workerArgs), cli(workerArgs)];
    const variants = ['evochamber', 'single-agent'];
    const killed = firstLine(workers, /job \S+ active:/).then((first) => { first.worker.child.kill('SIGKILL'); return first; });
    // The local ablation runs here while the survivor works, once the victim is dead.
    const local = killed.then(() => runAblation(loadScenario(path.resolve('scenarios/quickstart.json')), { variants, seeds: 2, tasks: 16, outDir: path.join(dir, 'local') }));
    const coordinator = await inProcess(['ablate', 'scenarios/quickstart.json', '--queue', url, '--variants', variants.join(','), '--seeds', '2', '--tasks', '16',
      '--out', path.join(dir, 'queued'), '--json']);
    const { worker: victim, line } = await killed;
    const killedJob = /job (\S+) active:/.exec(line)![1]!;
    survivor = workers.find((w) => w !== victim)!;

    expect(coordinator.code).toBe(0);
    queued = JSON.parse(coordinator.out.at(-1)!);
    sweepId = /sweep (\w+):/.exec(coordinator.err.join('\n'))![1]!;
    // The survivor took the killed job back (its second start: BullMQ's stalled-job handling) and finished it.
    expect(survivor.out.join('\n')).toMatch(new RegExp(`job ${killedJob.replace(/\./g, '\\.')} active: .*\\(attempt 2`));
    expect(survivor.out.join('\n')).toMatch(new RegExp(`job ${killedJob.replace(/\./g, '\\.')} done`));

    expect(means(queued)).toEqual(means(await local));
    expect(Object.keys(queued.variants)).toEqual(variants);
    for (const v of Object.values(queued.variants)) for (const run of v.runs) expect(run.startsWith(runsRoot)).toBe(true);
    const file = JSON.parse(readFileSync(path.join(dir, 'queued', 'ablation.json'), 'utf8'));
    expect(file.variants.evochamber.hosts).toHaveLength(2);
    expect(coordinator.out.join('\n')).toMatch(/evochamber\s+\d\.\d{3}±\d\.\d{3}/);

    // The password in the URL is never printed or written.
    for (const text of [...coordinator.out, ...coordinator.err, ...survivor.out, ...survivor.err, JSON.stringify(file)]) expect(text).not.toContain(PASSWORD);
    expect(coordinator.err.join('\n')).toContain('redis://:***@127.0.0.1');
  }, 120_000);

  it('re-attaches to a sweep by id and writes the same result', async () => {
    const again = await attachSweep(sweepId, { target: parseRedisTarget(url), outDir: path.join(dir, 'attached'), pollMs: 100 });
    expect(means(again)).toEqual(means(queued));
    expect(JSON.parse(readFileSync(path.join(dir, 'attached', 'ablation.json'), 'utf8')).seedList).toEqual([1, 2]);
  }, 30_000);

  it('reports a run that still fails after its attempts as a failed row, validated again by the worker', async () => {
    // The dataset is there when the scenario is checked, gone before any job exists, so gone when a
    // worker validates it. (Removing it once the jobs were enqueued raced the workers: one could take
    // a job and validate the dataset before the file went, and the run then succeeded.)
    const data = path.join(dir, 'gsm8k.jsonl');
    copyFileSync('test/fixtures/datasets/gsm8k.jsonl', data);
    const file = path.join(dir, 'lost-dataset.json');
    writeFileSync(file, JSON.stringify({ name: 'lost-dataset', stream: { tasks: 4, niches: [{ id: 'gsm', dataset: { format: 'gsm8k', path: 'gsm8k.jsonl' } }] } }));
    const r = await runQueuedAblation(loadScenario(file), {
      target: parseRedisTarget(url), variants: ['single-agent'], seeds: 1, attempts: 2, retryDelayMs: 100, pollMs: 100,
      outDir: path.join(dir, 'lost'), onValidated: () => rmSync(data),
    });
    expect(r.failed).toHaveLength(1);
    expect(r.failed![0]).toMatchObject({ variant: 'single-agent', seed: 1, attempts: 2 });
    expect(r.failed![0]!.error).toMatch(/dataset file not found/);
    expect(r.variants['single-agent']!.failedSeeds).toEqual([1]);
    expect(formatAblationTable(r)).toMatch(/single-agent\s+FAILED/);
  }, 60_000);

  it('stops a worker gracefully on SIGTERM', async () => {
    const stopped = survivor.exited;
    survivor.child.kill('SIGTERM');
    expect(await stopped).toBe(0);
    expect(survivor.out.at(-1)).toBe('worker: stopped');
  }, 30_000);

  it('hands a run directory left by an earlier attempt to the resume hook', async () => {
    const runsRoot = path.join(dir, 'resume-runs');
    const resumed: string[] = [];
    let worker: SweepWorker | undefined;
    const target = parseRedisTarget(url);
    try {
      const r = await runQueuedAblation(loadScenario(path.resolve('scenarios/quickstart.json')), {
        target, variants: ['single-agent'], seeds: 1, tasks: 8, pollMs: 100, outDir: path.join(dir, 'resume-out'),
        onEnqueued: (id) => {
          // As if a dead worker had left its run directory on a shared root.
          mkdirSync(path.join(runsRoot, sweepRunDirName('quickstart', id, 'single-agent', 1)), { recursive: true });
          void startSweepWorker({ target, runsRoot, resume: async (loaded, runDir, opts) => { resumed.push(runDir); return runScenario(loaded, { ...opts, report: false }); } })
            .then((w) => { worker = w; });
        },
        onRunDone: (_v, _s, _summary, place) => expect(place.resumed).toBe(true),
      });
      expect(r.failed ?? []).toEqual([]);
      expect(resumed).toEqual([r.variants['single-agent']!.runs[0]]);
    } finally {
      await worker?.close();
    }
  }, 60_000);

  it('says in one line, without the password, that Redis cannot be reached, and exits 1', async () => {
    const port = await freePort();
    const r = await inProcess(['ablate', 'scenarios/quickstart.json', '--queue', `redis://:${PASSWORD}@127.0.0.1:${port}`, '--variants', 'single-agent', '--seeds', '1']);
    expect(r.code).toBe(1);
    expect(r.err).toEqual([`evochamber: error: cannot reach Redis at redis://:***@127.0.0.1:${port} (ECONNREFUSED)`]);
  }, 30_000);
});
