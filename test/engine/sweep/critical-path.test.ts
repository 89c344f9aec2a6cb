import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, runAblation, runScenario, type RunSummary } from '../../../src/index';
import { withOverrides } from '../../../src/engine/scenario/scenario';
import { CriticalPathPriorities } from '../../../src/engine/sweep/critical-path';

const out = () => path.join(mkdtempSync(path.join(tmpdir(), 'evo-cp-')), 'ablate');
const TIMING = ['timing', 'runDir', 'reportPath', 'virtualSeconds', 'tokensPerSecond', 'utilization', 'endpoints'];
const stable = (s: RunSummary) => Object.fromEntries(Object.entries(s).filter(([k]) => !TIMING.includes(k)));

describe('critical path first', () => {
  it('starts the longest run first and serves the run with the longest predicted remaining time first', () => {
    const cp = new CriticalPathPriorities(new Map([
      ['short/1', { seconds: 1000, tasks: 100 }],
      ['long/1', { seconds: 3000, tasks: 100 }],
      ['mid/1', { seconds: 2000, tasks: 100 }],
    ]));
    const jobs = [{ variant: 'short', seed: 1 }, { variant: 'long', seed: 1 }, { variant: 'mid', seed: 1 }];
    expect(cp.order(jobs, (j) => `${j.variant}/${j.seed}`).map((j) => j.variant)).toEqual(['long', 'mid', 'short']);
    expect(['long/1', 'mid/1', 'short/1'].map((k) => cp.priority(k))).toEqual([0, 1, 2]);
    for (const k of ['short/1', 'long/1', 'mid/1']) cp.started(k, 0);
    // Sharing slows runs alike, so a run's pace counts relative to the others': long went at a third
    // of mid's slowdown for 80 tasks, 20 left (≈ 360 s ahead), against mid's 99 at about 20 s.
    cp.progress('long/1', 80, 100, 80 * 15);
    cp.progress('mid/1', 1, 100, 30);
    expect(cp.priority('mid/1')).toBe(0);
    expect(cp.priority('long/1')).toBeGreaterThan(0);
    expect(cp.priority('short/1')).toBe(1);
    expect(cp.priority('long/1')).toBe(2);
    // A finished run no longer counts; the others move up.
    cp.finished('mid/1');
    expect(cp.priority('short/1')).toBe(0);
    expect(cp.priority('long/1')).toBe(1);
  });

  it('with priorities on, each run of a virtual sweep still gives the summary it gives alone', async () => {
    const hard = withOverrides(loadScenario('scenarios/hard.json'), { stream: { tasks: 16 } });
    const timed = withOverrides(hard, { model: { backend: 'sim', latency: 'qwen3-8b-h100-vllm' } } as never);
    const notes: string[] = [];
    const r = await runAblation(timed, { variants: ['evochamber', 'self-consistency'], seeds: 2, patch: { 'sweep.parallel': 4, 'sweep.priorities': 'critical-path' }, outDir: out(), onNote: (l) => notes.push(l) });
    expect(r.execution).toMatchObject({ shared: 'virtual', priorities: 'critical-path' });
    expect(notes.some((l) => l.startsWith('planning: a pilot of each of 2 variants'))).toBe(true);
    const alone = withOverrides(timed, { structures: { speculative: false } });
    for (const [variant, seed] of [['evochamber', 1], ['self-consistency', 2]] as const) {
      const { summary } = await runScenario(alone, { patch: { variant, seed }, outDir: out(), report: false });
      const fromRun = JSON.parse(readFileSync(path.join(r.variants[variant]!.runs[seed - 1]!, 'run.json'), 'utf8')).summary as RunSummary;
      expect(stable(fromRun)).toEqual(stable(summary));
    }
  }, 60_000);
});
