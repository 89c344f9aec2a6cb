import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScenario } from '../../../../src/index';
import type { AblationResult } from '../../../../src/engine/sweep/ablate';
import { loadPrediction, scoreAblation, streamFor } from '../../../../src/engine/sweep/calibrate/scorecard';

const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8', timeout: 60_000 });
const children: ChildProcess[] = [];
afterAll(() => { for (const c of children) c.kill('SIGTERM'); });

/** serve-sim on a free port playing `world`; resolves with its base URL. */
async function serveSim(world: string): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve-sim', '--port', '0', '--world', world, '--time-scale', '3000'], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`serve-sim exited early with ${code}`)));
  });
  return /(http:\S+)/.exec(line)![1]!;
}

describe('the twin loop against serve-sim with a hidden world', () => {
  it('fits the baselines measured over HTTP at other seeds, recovers the hidden parameter, and predicts a method the fit never saw', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'evo-twin-http-'));
    const hard = loadScenario('hard').scenario;
    const scenario = path.join(dir, 'twin.json');
    writeFileSync(scenario, JSON.stringify({ ...hard, name: 'twin', stream: { ...hard.stream, tasks: 16, niches: [{ id: 'arithmetic', difficulty: [3] }, { id: 'algebra', difficulty: [3] }] } }));
    const hidden = { base: 2.5 };
    const worldFile = path.join(dir, 'hidden.json');
    writeFileSync(worldFile, JSON.stringify({ schemaVersion: 1, name: 'hidden', params: hidden }));
    const url = await serveSim(worldFile);

    // 1. The "real" server's runs: two baselines and a method (individual), seeds 1-2, over HTTP.
    const runs = path.join(dir, 'runs');
    const a = cli('ablate', scenario, '--backend', 'openai', '--base-url', url, '--model', 'sim', '--sim-side-channel',
      '--variants', 'single-agent,per-agent-memory,individual', '--seeds', '2', '--parallel', '6', '--out', runs, '--quiet', '--no-report');
    expect(a.status, a.stderr).toBe(0);

    // 2. Calibrate at disjoint seeds (101-102) from the runs: the method is left out, and said so.
    const w = path.join(dir, 'fit', 'w.json');
    const c = cli('calibrate', scenario, '--from-runs', runs, '--fit', 'base', '--seed', '101', '--seeds', '2', '--budget', '16', '--profile-points', '2', '--out', w, '--quiet', '--jobs', '2', '--json');
    expect(c.status, c.stderr).toBe(0);
    expect(c.stderr).toMatch(/left out 2 runs of variants that are not baselines \(individual ×2\)/);
    const fit = JSON.parse(c.stdout.trim().split('\n').at(-1)!) as { parameters: { name: string; interval: [number, number]; pinned: boolean }[]; heldOut: { inside: boolean }[]; pValue: number };
    const base = fit.parameters[0]!;
    expect(base.pinned).toBe(true);
    expect(base.interval[0]).toBeLessThanOrEqual(hidden.base);
    expect(base.interval[1]).toBeGreaterThanOrEqual(hidden.base);
    expect(fit.heldOut.every((h) => h.inside)).toBe(true);
    expect(JSON.parse(readFileSync(path.join(dir, 'fit', 'w.targets.json'), 'utf8')).targets.every((t: { tasks: number; scenario: string }) => t.tasks === 16 && t.scenario === 'w.scenario-twin.json')).toBe(true);

    // 3. Pre-register the method's prediction (the simulator, seeds 201-202), then score the server's runs of it.
    const pred = path.join(dir, 'prediction.json');
    const p = cli('predict', w, scenario, '--variants', 'individual,single-agent', '--reference', 'individual', '--seed', '201', '--seeds', '2', '--draws', '2', '--runs', '2', '--jobs', '2', '--out', pred);
    expect(p.status, p.stderr).toBe(0);
    const prediction = loadPrediction(pred);
    const result = JSON.parse(readFileSync(path.join(runs, 'ablation.json'), 'utf8')) as AblationResult;
    const card = scoreAblation(prediction, streamFor(prediction, pred, 'twin', 16), result);
    const method = card.figures.find((f) => f.variant === 'individual' && f.figure === 'accuracy')!;
    expect(method.inside, JSON.stringify(method)).toBe(true);
    expect(card.calibration.total).toBeGreaterThanOrEqual(6);
  });
});
