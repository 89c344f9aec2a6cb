import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatAblationTable, loadScenario, resumeAblation, resumeRun, runAblation, runAblationResumable, runScenario, type AblationResult, type RunSummary } from '../../../src/index';
import { withOverrides } from '../../../src/engine/scenario/scenario';
import { RUN_CHILD_ENTRY } from '../../../src/cli/composition';
import { startServeSim } from '../../../src/sim/server/serve-sim';
import { quickstartOver } from '../../llm/openai/e2e-helpers';

const out = () => path.join(mkdtempSync(path.join(tmpdir(), 'evo-sweep-')), 'ablate');
/** The summary fields that depend on timing alone: a run's shared server changes them, nothing else. */
const TIMING = ['timing', 'runDir', 'reportPath', 'virtualSeconds', 'tokensPerSecond', 'utilization', 'endpoints'];
const stable = (s: RunSummary) => Object.fromEntries(Object.entries(s).filter(([k]) => !TIMING.includes(k)));
const hard = withOverrides(loadScenario('scenarios/hard.json'), { stream: { tasks: 16 } });

describe('a sweep on one machine', () => {
  it('runs its virtual-time runs on one server, each giving the summary it gives alone', async () => {
    const timed = withOverrides(hard, { model: { backend: 'sim', latency: 'qwen3-8b-h100-vllm' } } as never);
    const r = await runAblation(timed, { variants: ['evochamber', 'self-consistency'], seeds: 2, patch: { 'sweep.parallel': 4 }, outDir: out() });
    expect(r.execution).toMatchObject({ mode: 'in-process', shared: 'virtual', speculativeOff: true });
    const v = r.execution!.virtual!;
    // One server for all four runs: the sweep's virtual time is shorter than its runs' added up.
    const perRun = Object.values(r.variants).flatMap((x) => x.perSeed.map((p) => p.virtualSeconds!));
    expect(perRun.every((s) => s > 0)).toBe(true);
    expect(v.virtualSeconds).toBeLessThan(perRun.reduce((a, b) => a + b, 0));
    expect(v.virtualSeconds).toBeGreaterThanOrEqual(Math.max(...perRun) - 1e-6);
    // The table gives each variant's hours per run, and the sweep's hours and utilization on its one server.
    const table = formatAblationTable(r);
    expect(table).toContain('virtual h/run');
    expect(table).toMatch(/virtual time on one qwen3-8b-h100-vllm server: \d+\.\d\d h for the whole sweep, \d+ output tokens\/s, utilization \d+\.\d %/);
    // Alone, with speculative completion off as the sweep ran it: the same summary, timing aside.
    const alone = withOverrides(timed, { structures: { speculative: false } });
    for (const [variant, seed] of [['evochamber', 2], ['self-consistency', 1]] as const) {
      const { summary } = await runScenario(alone, { patch: { variant, seed }, outDir: out(), report: false });
      const inSweep = r.variants[variant]!.perSeed.find((p) => p.seed === seed)!;
      expect(inSweep.accuracy).toBe(summary.accuracy);
      const fromRun = JSON.parse(readFileSync(path.join(r.variants[variant]!.runs[seed - 1]!, 'run.json'), 'utf8')).summary as RunSummary;
      expect(stable(fromRun)).toEqual(stable(summary));
    }
  });

  it('gives the summary a run gives alone with several tasks in flight under lag too', async () => {
    const timed = withOverrides(hard, { model: { backend: 'sim', latency: 'qwen3-8b-h100-vllm' } } as never);
    const r = await runAblation(timed, { patch: { 'engine.inFlight': 4, 'engine.evolveTiming': 'lag', 'sweep.parallel': 2 }, variants: ['evochamber'], seeds: 2, outDir: out() });
    const alone = withOverrides(timed, { structures: { speculative: false } });
    const { summary } = await runScenario(alone, { patch: { variant: 'evochamber', seed: 2, 'engine.inFlight': 4, 'engine.evolveTiming': 'lag' }, outDir: out(), report: false });
    const fromRun = JSON.parse(readFileSync(path.join(r.variants.evochamber!.runs[1]!, 'run.json'), 'utf8')).summary as RunSummary;
    expect(stable(fromRun)).toEqual(stable(summary));
  });

  it('spreads the simulator\'s runs over worker processes with the same ablation.json as one process', async () => {
    const quick = withOverrides(loadScenario('scenarios/quickstart.json'), { stream: { tasks: 12 } });
    const one = await runAblation(quick, { variants: ['individual', 'single-agent'], seeds: 2, patch: { 'sweep.jobs': 1 }, outDir: out() });
    const notes: string[] = [];
    const two = await runAblation(quick, { variants: ['individual', 'single-agent'], seeds: 2, patch: { 'sweep.jobs': 2 }, childEntry: RUN_CHILD_ENTRY, outDir: out(), onNote: (l) => notes.push(l) });
    expect(two.execution?.mode).toBe('processes');
    // This process is one of the two: one worker, not two.
    expect(notes).toContain('4 runs over 2 processes (this one and 1 worker)');
    expect(one.execution?.mode).toBe('in-process');
    const strip = (x: typeof one) => JSON.stringify(Object.fromEntries(Object.entries(x.variants).map(([k, v]) => [k, { ...v, runs: [] }])));
    expect(strip(two)).toBe(strip(one));
  });

  it('leaves the runs its budget cannot cover unstarted, and marks them', async () => {
    const quick = withOverrides(loadScenario('scenarios/quickstart.json'), { stream: { tasks: 10 } });
    const full = await runAblation(quick, { variants: ['single-agent', 'individual'], seeds: 2, outDir: out() });
    const perRun = full.variants['single-agent']!.tokens.mean;
    // Room for about two runs of four (the scenario's sweepBudget): the first two start, then the estimate says stop.
    const r = await runAblation(withOverrides(quick, { sweepBudget: { tokens: Math.round(perRun * 2.5) } }), { variants: ['single-agent', 'individual'], seeds: 2, outDir: out() });
    expect(r.notRun?.length).toBeGreaterThan(0);
    const notRun = Object.values(r.variants).flatMap((v) => v.notRunSeeds ?? []);
    expect(notRun.length).toBe(r.notRun!.length);
    expect(r.execution?.budgetStop?.limit).toBe('tokens');
    // The table marks them: a variant with no run as NOT RUN, one with some as the seeds not run.
    const table = formatAblationTable(r);
    for (const [variant, v] of Object.entries(r.variants)) {
      const row = table.split('\n').find((l) => l.startsWith(`${variant} `))!;
      if ((v.notRunSeeds ?? []).length === 2) expect(row).toContain('NOT RUN');
      else if (v.notRunSeeds?.length) expect(row).toContain(`(not run, budget spent: seeds ${v.notRunSeeds.join(', ')})`);
    }
    expect(table).toMatch(new RegExp(`not run: ${r.notRun!.length} runs, the sweep's budget was spent first \\(tokens \\d+ of \\d+\\)`));
    // Resumed with a larger sweep budget, the runs it left start, and the table is the unbudgeted one.
    const resumed = await resumeAblation(r.outDir, { patch: { sweepBudget: { tokens: Math.round(perRun * 100) } } });
    expect(resumed?.notRun).toBeUndefined();
    const strip = (x: AblationResult) => JSON.stringify(Object.fromEntries(Object.entries(x.variants).map(([k, v]) => [k, { ...v, runs: [] }])));
    expect(strip(resumed!)).toBe(strip(full));
    expect(JSON.parse(readFileSync(path.join(r.outDir, 'ablation-plan.json'), 'utf8')).patch.sweepBudget).toEqual({ tokens: Math.round(perRun * 100) });
  }, 180_000);

  it('lets every run reach its own budget, then resumes each with a larger one and the sweep after', async () => {
    const quick = withOverrides(loadScenario('scenarios/quickstart.json'), { stream: { tasks: 10 } });
    const { summary } = await runScenario(quick, { patch: { variant: 'single-agent' }, outDir: out(), report: false });
    const budgeted = withOverrides(quick, { budget: { tokens: Math.round((summary.tokens.total.promptTokens + summary.tokens.total.completionTokens) / 2) } });
    const notes: string[] = [];
    const { result, outDir } = await runAblationResumable(budgeted, { variants: ['single-agent'], seeds: 2, outDir: out(), onNote: (l) => notes.push(l) });
    expect(result).toBeNull();
    // Neither run kept the other from starting: both stopped at their budget, each named with how to go on.
    expect(notes.filter((l) => / stopped at its own budget after \d+ tasks/.test(l))).toHaveLength(2);
    for (const seed of [1, 2]) {
      const dir = path.join(outDir, `single-agent-s${seed}`);
      expect(JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')).status).toBe('budget');
      await resumeRun(dir, { patch: { budget: { tokens: 10_000_000 } }, report: false });
    }
    const done = await resumeAblation(outDir);
    expect(done?.variants['single-agent']!.perSeed.map((p) => p.seed)).toEqual([1, 2]);
    expect(done?.variants['single-agent']!.perSeed[0]!.accuracy).toBe(summary.accuracy);
  }, 180_000);

  it('over HTTP, runs share one endpoint pool and never pass its cap on requests in flight', async () => {
    const sim = await startServeSim({ port: 0, timeScale: 100 });
    let most = 0;
    const poll = setInterval(() => {
      void fetch(sim.url.replace(/\/v1$/, '/metrics')).then((r) => r.text()).then((t) => {
        const running = Number(/^vllm:num_requests_running\{[^}]*\} (\d+)/m.exec(t)?.[1] ?? 0);
        most = Math.max(most, running);
      }).catch(() => {});
    }, 5);
    try {
      const over = withOverrides(quickstartOver({ endpoints: [{ baseURL: sim.url, model: 'sim', maxConcurrency: 3 }] }), { stream: { tasks: 6, niches: [{ id: 'people-qa' }, { id: 'timeline-qa' }] } } as never);
      const r = await runAblation(over, { patch: { 'engine.inFlight': 4, 'sweep.parallel': 2 }, variants: ['evochamber', 'self-consistency'], seeds: 1, outDir: out() });
      expect(r.execution?.shared).toBe('pool');
      const requests = Object.values(r.execution!.endpoints!).reduce((a, e) => a + e.requests, 0);
      expect(requests).toBeGreaterThan(20);
      expect(most).toBeGreaterThan(0);
      expect(most).toBeLessThanOrEqual(3);
      expect(sim.metrics.requests).toBeGreaterThan(20);
    } finally {
      clearInterval(poll);
      await sim.close();
    }
  }, 120_000);

  it('gives one line and exit 2 for a bad sweep flag', () => {
    const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'ablate', 'scenarios/quickstart.json', '--out', out(), ...args], { encoding: 'utf8', timeout: 60_000 });
    for (const [args, msg] of [
      [['--parallel', '0'], /--parallel takes a whole number ≥ 1, got "0"/],
      [['--jobs', 'abc'], /--jobs takes a whole number ≥ 1, got "abc"/],
      [['--budget-tokens=-5'], /--budget-tokens takes a whole number > 0, got "-5"/],
      [['--price', 'gpt-4o=1/2'], /--price: unknown model "gpt-4o"/],
    ] as const) {
      const r = cli(...args);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toMatch(msg);
    }
  });
});
