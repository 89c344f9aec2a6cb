import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock';
import { loadScenario } from '../../src/index';
import { withOverrides } from '../../src/engine/scenario/scenario';
import { estimateSweep, splitCosts, SweepEta, wallRange } from '../../src/cli/sweep-estimate';
import { useBuiltinPlugins } from '../../src/cli/composition';

describe('the size and ETA of a sweep', () => {
  it('predicts tokens and CPU time from a pilot per variant, and names the sweep\'s size', async () => {
    useBuiltinPlugins();
    const loaded = withOverrides(loadScenario('scenarios/quickstart.json'), { stream: { tasks: 120 } });
    const e = await estimateSweep(loaded, { variants: ['single-agent', 'evochamber'], seeds: 4, patch: {}, processes: 2 });
    expect(e.line).toMatch(/^8 runs × 120 tasks = 960 tasks; predicted [\d.]+[kM] tokens, CPU time here [\d.]+ (s|min)(–[\d.]+ (s|min))?( \(the low end if every program is graded once for the sweep\))?, wall [\d.]+ (s|min)(–[\d.]+ (s|min))? on 2 at once \(from a free machine to the load measured during the pilots: [\d.]+ of \d+ cores busy elsewhere\) \(from a 24-task pilot per variant\)$/);
    // A single agent makes one call per task; the full system a team's: its tasks cost more CPU here.
    expect(e.perTask!.get('evochamber')!).toBeGreaterThan(e.perTask!.get('single-agent')!);
    // Pilots that would cost more than 5 % of the sweep are not run: the size alone.
    const small = await estimateSweep(loaded, { variants: ['single-agent', 'evochamber'], seeds: 1, patch: { 'stream.tasks': 30, sweepBudget: { tokens: 1000 } }, processes: 2 });
    expect(small).toEqual({ line: '2 runs × 30 tasks = 60 tasks (too small to predict: the pilots would cost more than 5 % of it)', perTask: null, tasks: 30 });
  }, 60_000);

  it('tells a process\'s warm-up and a run\'s start from the cost per task, so a long run is not charged them per task', () => {
    // A process warms up in 2 s, a run starts in 0.5 s, a task of `a` takes 0.1 s and of `b` 0.3 s.
    const runs = [{ variant: 'a', tasks: 300, cpuSeconds: (2.9 / 24) * 300 }, { variant: 'b', tasks: 300, cpuSeconds: (7.7 / 24) * 300 }];
    const c = splitCosts(runs, ['a', 'b'], 24, 4, 2.9, 0.9);
    expect(c.perProcess).toBeCloseTo(2, 9);
    expect(c.perRun).toBeCloseTo(0.5, 9);
    expect(c.perTask.get('a')).toBeCloseTo(0.1, 9);
    expect(c.perTask.get('b')).toBeCloseTo(0.3, 9);
  });

  it('spreads the CPU time over the processes at once, on the cores the rest of the machine left free', () => {
    const window = { wallSeconds: 10, ownCpuSeconds: 9, childrenCpuSeconds: 0, cores: 2 };
    // A free machine: two processes halve it, a third adds nothing on two cores.
    expect(wallRange(100, 2, { ...window, othersCores: 0 })).toEqual({ free: 50, busy: 50 });
    expect(wallRange(100, 3, { ...window, othersCores: 0 })).toEqual({ free: 50, busy: 50 });
    // One core busy elsewhere: two processes share the other one.
    expect(wallRange(100, 2, { ...window, othersCores: 1 })).toEqual({ free: 50, busy: 100 });
    // A machine busier than its cores still leaves a quarter of one.
    expect(wallRange(100, 1, { ...window, othersCores: 5 }).busy).toBe(400);
  });

  it('weights each run\'s tasks by its variant\'s predicted cost, and extrapolates the time measured so far', () => {
    const clock = new ManualClock();
    const runs = [{ variant: 'cheap', tasks: 100 }, { variant: 'dear', tasks: 100 }];
    const eta = new SweepEta(runs, new Map([['cheap', 1], ['dear', 3]]), clock);
    expect(eta.describe()).toBe('sweep 0 % · ETA –');
    eta.update('cheap', 1, 100);
    clock.advance(10_000);
    // The cheap run is a quarter of the work: 10 s for 25 % leaves 30 s.
    expect(eta.fraction()).toBeCloseTo(0.25, 9);
    expect(eta.secondsLeft()).toBeCloseTo(30, 9);
    eta.update('dear', 1, 50);
    clock.advance(15_000);
    expect(eta.describe()).toBe('sweep 62 % · ETA 15 s');
    // Without a prediction every task weighs the same.
    const flat = new SweepEta(runs, null, clock);
    flat.update('cheap', 1, 100);
    expect(flat.fraction()).toBe(0.5);
  });
});
