import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatAblationTable, loadScenario, runAblation } from '../../../src/index';
import { withOverrides } from '../../../src/engine/scenario/scenario';
import { QWEN3_8B_H100_VLLM } from '../../../src/llm/latency-profiles';
import type { Completion, CompletionRequest, LanguageModel } from '../../../src/llm/model';
import { VirtualServer } from '../../../src/sim/virtual/virtual-server-model';
import { chooseWindows, predictSweep, type RunWork } from '../../../src/engine/sweep/deadline-window';
import type { SweepPlan } from '../../../src/engine/sweep/plan';
import { DeadlineError } from '../../../src/engine/sweep/sweep-schedule';

/** A run of plan's shape: hours alone at in-flight 1, 3 calls a task of 1k prompt and 800 completion tokens. */
const run = (key: string, hours: number): RunWork => {
  const completionTokens = hours * 3600 * 200;
  const calls = completionTokens / 800;
  return { key, hours, calls, promptTokens: calls * 1000, completionTokens };
};

describe('ablate --deadline: the smallest window that fits', () => {
  it('a sweep lasts at least its longest run, and sharing slows every run', () => {
    const work = [run('long', 9), run('short', 2)];
    const alone = predictSweep(QWEN3_8B_H100_VLLM, [work[0]!], new Map(), false).get('long')!;
    expect(alone).toBeCloseTo(9, 1);
    const shared = predictSweep(QWEN3_8B_H100_VLLM, work, new Map(), false);
    expect(shared.get('long')!).toBeGreaterThan(9);
    expect(shared.get('short')!).toBeLessThan(shared.get('long')!);
  });

  it('slows a shared run by its token-weighted decode context, as the virtual server does (long answers hold the batch longest)', async () => {
    // 24 clients, each one request after another (a run at in-flight 1), answers of 20 or 4,000 tokens
    // after a 1,000-token prompt (cached after the first: the prefill is not what this measures).
    const lengths = [20, 4000, 20, 4000, 4000, 20, 20, 4000];
    const answer = (req: CompletionRequest): Promise<Completion> => Promise.resolve({
      text: 'x', usage: { promptTokens: 1000, completionTokens: lengths[Number(req.seedKey!.split('/')[1]) % lengths.length]! }, timing: { ttftMs: 0, totalMs: 0 }, model: 'fake',
    });
    const inner: LanguageModel = { name: 'fake', complete: answer, embed: async (t) => t.map(() => new Float32Array([1])) };
    const prompt = (c: number) => `client ${c} `.repeat(450);
    const client = async (server: VirtualServer, c: number) => {
      const m = server.join(inner, `c${String(c).padStart(2, '0')}`);
      for (let i = 0; i < lengths.length; i++) await m.complete({ messages: [{ role: 'user', content: `${prompt(c)}${i}` }], stage: 'solve', seedKey: `c${c}/${i}` });
      return server.clock.now() / 1000;
    };
    const clients = Array.from({ length: 24 }, (_, c) => c);
    const alone = await Promise.all(clients.map((c) => client(new VirtualServer({ profile: QWEN3_8B_H100_VLLM, seed: c }), c)));
    const shared = new VirtualServer({ profile: QWEN3_8B_H100_VLLM, seed: 1 });
    const together = Math.max(...(await Promise.all(clients.map((c) => client(shared, c)))));
    const g = lengths.reduce((a, x) => a + x, 0);
    const weighted = lengths.reduce((a, x) => a + x * (1000 + x / 2), 0) / g;
    const work = (decodeContext?: number): RunWork[] => clients.map((c) => ({
      key: `c${c}`, hours: alone[c]! / 3600, calls: lengths.length, promptTokens: 1000 * lengths.length, completionTokens: g, ...(decodeContext ? { decodeContext } : {}),
    }));
    const predicted = (w: RunWork[]) => 3600 * Math.max(...predictSweep(QWEN3_8B_H100_VLLM, w, new Map(), false).values());
    // The token-weighted context (2,990 tokens here) predicts the shared sweep within 4 % (measured:
    // −0.4 %); a mean call's context (prompt + half a mean answer, 2,005) under-states every shared
    // step (measured: −10.7 %).
    expect(weighted).toBeGreaterThan(1000 + g / lengths.length / 2 + 900);
    expect(Math.abs(predicted(work(weighted)) / together - 1)).toBeLessThan(0.04);
    expect(predicted(work()) / together - 1).toBeLessThan(-0.07);
  }, 60_000);

  it('widens only the runs that bound the sweep, as little as the deadline allows, and refuses one nothing meets', () => {
    const work = [run('long', 9), run('mid', 5), run('short', 1)];
    const easy = chooseWindows(QWEN3_8B_H100_VLLM, work, 20, false);
    expect(easy.fits).toBe(true);
    expect(easy.choices.map((c) => c.window)).toEqual([1, 1, 1]);
    const eight = chooseWindows(QWEN3_8B_H100_VLLM, work, 8, false);
    expect(eight.fits).toBe(true);
    expect(eight.predictedHours).toBeLessThanOrEqual(8);
    const w = Object.fromEntries(eight.choices.map((c) => [c.key, c.window]));
    expect(w.long).toBeGreaterThan(1);
    expect(w.short).toBe(1);
    // The next smaller window for the long run would miss the deadline: it is the smallest that fits.
    const smaller = new Map(eight.choices.map((c) => [c.key, c.window === w.long ? c.window / 2 : c.window]));
    expect(Math.max(...predictSweep(QWEN3_8B_H100_VLLM, work, smaller, false).values())).toBeGreaterThan(8);
    const never = chooseWindows(QWEN3_8B_H100_VLLM, work, 0.2, false);
    expect(never.fits).toBe(false);
    expect(never.predictedHours).toBeGreaterThan(0.2);
  });

  it('runs the sweep with the chosen windows, says them first, and compares each variant with it alone at in-flight 1', async () => {
    const hard = withOverrides(loadScenario('scenarios/hard.json'), { stream: { tasks: 16 }, model: { backend: 'sim', latency: 'qwen3-8b-h100-vllm' } } as never);
    // plan's prediction given, so no pilots run: evochamber is the long one.
    const planned = (variant: string, seed: number, hours: number) => ({ variant, seed, tasks: 16, ...run('', hours), virtualHours: hours });
    const forecast: SweepPlan = {
      profile: 'qwen3-8b-h100-vllm', pilotTasks: 0,
      runs: [planned('evochamber', 1, 1), planned('evochamber', 2, 1), planned('single-agent', 1, 0.1), planned('single-agent', 2, 0.1)],
      total: { calls: 0, promptTokens: 0, completionTokens: 0, virtualHours: 2.2, hoursAtMaxRate: null },
    };
    const notes: string[] = [];
    const r = await runAblation(hard, {
      variants: ['evochamber', 'single-agent'], seeds: 2, patch: { 'sweep.deadlineHours': 0.5 }, forecast, onNote: (l) => notes.push(l),
      outDir: path.join(mkdtempSync(path.join(tmpdir(), 'evo-deadline-')), 'ablate'),
    });
    const said = notes.find((l) => l.startsWith('deadline 0.5 h: predicted'))!;
    expect(said).toMatch(/in-flight windows \(per seed\) evochamber \d+,\d+ · 1 variant at 1/);
    expect(r.deadline!.windows['single-agent']).toEqual([1, 1]);
    expect(r.deadline!.windows.evochamber!.every((w) => w > 1)).toBe(true);
    // Each run ran at its window, under the windowed runs' settings (not only the report says so).
    for (const [variant, windows] of Object.entries(r.deadline!.windows)) {
      r.variants[variant]!.runs.forEach((dir, i) => {
        const ran = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) as { summary: { inFlight: number } };
        expect(ran.summary.inFlight, `${variant} seed ${i + 1}`).toBe(windows[i]);
      });
    }
    const solo = r.deadline!.solo!;
    expect(solo.evochamber!.soloRan).toBe(true);
    expect(solo['single-agent']).toMatchObject({ soloRan: false, solo: r.variants['single-agent']!.accuracy });
    const table = formatAblationTable(r);
    expect(table).toMatch(/evochamber\s+window \d+,\d+\s+\d\.\d{3}±\d\.\d{3}\s+alone at 1\s+\d\.\d{3}±\d\.\d{3}\s+[+-]\d+\.\d points/);
    expect(table).toContain('(in-flight 1: the same runs)');
  }, 60_000);

  it('a refused deadline writes nothing: no ablation-plan.json, no output directory', async () => {
    const hard = withOverrides(loadScenario('scenarios/hard.json'), { stream: { tasks: 16 }, model: { backend: 'sim', latency: 'qwen3-8b-h100-vllm' } } as never);
    const forecast: SweepPlan = {
      profile: 'qwen3-8b-h100-vllm', pilotTasks: 0,
      runs: [{ variant: 'evochamber', seed: 1, tasks: 16, ...run('', 1), virtualHours: 1 }],
      total: { calls: 0, promptTokens: 0, completionTokens: 0, virtualHours: 1, hoursAtMaxRate: null },
    };
    const outDir = path.join(mkdtempSync(path.join(tmpdir(), 'evo-deadline-')), 'ablate');
    await expect(runAblation(hard, { variants: ['evochamber'], seeds: 1, patch: { 'sweep.deadlineHours': 0.001 }, forecast, outDir })).rejects.toThrow(DeadlineError);
    expect(existsSync(outDir)).toBe(false);
    // The same directory then takes a deadline that fits (nothing left behind blocks it).
    const r = await runAblation(hard, { variants: ['evochamber'], seeds: 1, patch: { 'sweep.deadlineHours': 50 }, forecast, outDir });
    expect(existsSync(path.join(outDir, 'ablation-plan.json'))).toBe(true);
    expect(r.deadline!.windows.evochamber).toEqual([1]);
  }, 60_000);
});

describe('the deadline and priority flags', () => {
  const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8', timeout: 60_000 });
  it('gives one line and exit 2 for a bad flag, and refuses a deadline nothing meets in one line with the shortest time (exit 1)', () => {
    for (const [args, msg] of [
      [['ablate', 'scenarios/quickstart.json', '--priorities', 'fastest'], /--priorities takes critical-path or off, got "fastest"/],
      [['ablate', 'scenarios/quickstart.json', '--deadline', '0'], /--deadline takes a positive number of hours, got "0"/],
      [['ablate', 'scenarios/quickstart.json', '--deadline', '8', '--in-flight', '4'], /--deadline chooses each run's in-flight window: leave out --in-flight/],
    ] as const) {
      const r = cli(...args);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toMatch(msg);
    }
    const refused = cli('plan', 'scenarios/hard.json', '--tasks', '24', '--pilot-tasks', '8', '--deadline', '0.001');
    expect(refused.status, refused.stderr).toBe(1);
    expect(refused.stderr.trim().split('\n').filter((l) => !l.startsWith('plan: pilot')).join('\n')).toMatch(/^evochamber: error: --deadline 0\.001 h cannot be met: the shortest this sweep can take is \d+\.\d\d h/);
  }, 60_000);
});
