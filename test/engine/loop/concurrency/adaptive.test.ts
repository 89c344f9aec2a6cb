import { describe, expect, it } from 'vitest';
import { AdaptiveConcurrency } from '../../../../src/engine/loop/concurrency/adaptive';
import { autoConfigSchema, autoGapBound, type AutoConfigInput } from '../../../../src/engine/scenario/auto-config';
import { concurrencyEvent, recordedChanges } from '../../../../src/engine/loop/concurrency/concurrency-event';
import { ReplayedConcurrency } from '../../../../src/engine/loop/concurrency/replayed';
import { runStageLoop as simulate, type Load } from '../../../fakes/stage-loop';
import type { LoggedEvent } from '../../../../src/store/events';

const controller = (cfg: AutoConfigInput, tau = Infinity) => new AdaptiveConcurrency(autoConfigSchema.parse(cfg), tau);

/** A server whose throughput scales with load up to `knee` requests, then stays flat. */
const kneeAt = (knee: number, base = 10) => (n: number) => base * Math.max(1, n / knee);

const tail = <T>(xs: readonly T[]) => xs.slice(Math.floor(xs.length * 0.75));

describe('AdaptiveConcurrency: FlashEvolve balance rule', () => {
  it('gives a stage below half the median capacity one more worker, with the figures that decided it', () => {
    const c = controller({ initial: 4, evolveInitial: 2, periodSeconds: 10, minItems: 4 });
    for (let i = 0; i < 4; i++) c.started('solve', 0);
    c.started('evolve', 0);
    c.started('evolve', 0);
    // 8 commits in 10 s on 4 workers; 16 evolve jobs queued; 2 evolve jobs each held a worker for the whole 10 s.
    for (let i = 1; i <= 8; i++) {
      const t = i * 1.25;
      c.produced('solve', t);
      c.started('solve', t);
      c.enqueued('evolve', t);
      c.enqueued('evolve', t);
    }
    c.produced('evolve', 10);
    c.produced('evolve', 10);
    const changes = c.tick(10);
    const evolve = changes.find((x) => x.stage === 'evolve')!;
    // solve: 8 / 40 worker-s × 4 = 0.8 tasks/s; evolve: 2 / 20 worker-s × 2 workers / (16 jobs / 8 tasks) = 0.1;
    // the median of two, on the rule's ratio scale, is their geometric mean √0.08 ≈ 0.283, and 0.1 < 0.283 / 2.
    expect(evolve).toMatchObject({ from: 2, to: 3, reason: 'below-median', rates: { solve: 0.8, evolve: 0.1 }, gap: null, committed: 8 });
    expect(evolve.median).toBeCloseTo(Math.sqrt(0.08), 12);
    expect(evolve.detail).toContain('below half the median');
    expect(c.limit('evolve')).toBe(3);
  });

  it('takes a worker from a stage above twice the median capacity', () => {
    // Evolve jobs are quick and plentiful workers wait: evolve could do far more than solve gives it.
    const c = controller({ initial: 2, min: 2, max: 2, evolveInitial: 24, evolveMax: 32, periodSeconds: 20, minItems: 4 });
    const trace = simulate(c, { tasks: 200, solveSeconds: () => 10, evolveSeconds: 1, jobsPerTask: 2 });
    const first = trace.changes.find((x) => x.stage === 'evolve')!;
    expect(first).toMatchObject({ from: 24, to: 23, reason: 'above-median' });
    expect(first.rates.evolve!).toBeGreaterThan(2 * first.median!);
    // It keeps shedding workers until evolve is within 3× of solve, and no further than it must.
    const last = trace.evolveLimits.at(-1)!;
    expect(last).toBeLessThan(24);
    expect(last).toBeGreaterThanOrEqual(1);
    expect(trace.changes.filter((x) => x.stage === 'evolve').every((x) => x.reason === 'above-median')).toBe(true);
  });

  it('grows an evolve stage that cannot keep up until its backlog stops growing', () => {
    const c = controller({ initial: 4, min: 4, max: 4, evolveInitial: 1, evolveMax: 32, periodSeconds: 20, minItems: 4 });
    const trace = simulate(c, { tasks: 400, solveSeconds: () => 10, evolveSeconds: 8, jobsPerTask: 3 });
    const grown = trace.changes.filter((x) => x.stage === 'evolve' && x.to > x.from);
    expect(grown.length).toBeGreaterThan(0);
    expect(grown.every((x) => x.reason === 'below-median' || x.reason === 'evolve-backlog')).toBe(true);
    // Demand: 4 tasks / 10 s × 3 jobs × 8 s = 9.6 workers busy; the controller must reach at least that.
    expect(Math.max(...trace.evolveLimits)).toBeGreaterThanOrEqual(10);
    expect(trace.evolveLimits.at(-1)).toBeLessThanOrEqual(32);
  });
});

describe('AdaptiveConcurrency: the solve window', () => {
  it('grows the window while throughput scales and stops near the server knee', () => {
    const c = controller({ initial: 2, max: 64, periodSeconds: 20, minItems: 8, holdPeriods: 3 });
    const trace = simulate(c, { tasks: 1500, solveSeconds: kneeAt(16), evolveSeconds: 1, jobsPerTask: 1 });
    expect(trace.changes.some((x) => x.stage === 'solve' && x.reason === 'probe')).toBe(true);
    expect(trace.changes.some((x) => x.stage === 'solve' && x.reason === 'probe-undone')).toBe(true);
    // Evolve jobs share the server, so the knee for the window sits a little under 16.
    for (const w of tail(trace.windows)) {
      expect(w).toBeGreaterThanOrEqual(8);
      expect(w).toBeLessThanOrEqual(24);
    }
  });

  it('doubles the window while throughput keeps pace (slow start), up to the bound and never past it', () => {
    const c = controller({ initial: 1, max: 12, periodSeconds: 10, minItems: 4 });
    const trace = simulate(c, { tasks: 600, solveSeconds: () => 10, evolveSeconds: 1, jobsPerTask: 0 });
    const solve = trace.changes.filter((x) => x.stage === 'solve');
    expect(solve.slice(0, 4).map((x) => [x.to, x.reason])).toEqual([[2, 'probe'], [4, 'probe'], [8, 'probe'], [12, 'probe']]);
    expect(Math.max(...trace.windows)).toBe(12);
    expect(trace.windows.at(-1)).toBe(12);
    // At the bound the climb can only look down; each failed look doubles the wait before the next.
    const downs = solve.filter((x) => x.reason === 'probe-down').map((x) => x.at);
    expect(downs.length).toBeGreaterThanOrEqual(3);
    expect(downs[2]! - downs[1]!).toBeGreaterThan(downs[1]! - downs[0]!);
  });

  it('undoes a probe that bought no throughput, and sheds window that buys none', () => {
    // One task saturates the server: a wider window only makes each task slower.
    const c = controller({ initial: 4, periodSeconds: 20, minItems: 4, holdPeriods: 2 });
    const trace = simulate(c, { tasks: 300, solveSeconds: kneeAt(1), evolveSeconds: 1, jobsPerTask: 0 });
    const [probe, undo, down] = trace.changes.filter((x) => x.stage === 'solve');
    expect(probe).toMatchObject({ from: 4, to: 8, reason: 'probe' });
    expect(undo).toMatchObject({ from: 8, to: 4, reason: 'probe-undone' });
    expect(down).toMatchObject({ from: 4, to: 3, reason: 'probe-down' });
    // Throughput is the same at any window, so the climb walks down to the smallest (least stale) one.
    expect(trace.windows.at(-1)).toBe(1);
  });

  it('comes down from a window far past the knee', () => {
    const c = controller({ initial: 48, max: 64, periodSeconds: 20, minItems: 8, holdPeriods: 2 });
    const trace = simulate(c, { tasks: 1500, solveSeconds: kneeAt(16), evolveSeconds: 1, jobsPerTask: 0 });
    expect(trace.changes.some((x) => x.stage === 'solve' && x.reason === 'probe-down')).toBe(true);
    for (const w of tail(trace.windows)) {
      expect(w).toBeGreaterThanOrEqual(10);
      expect(w).toBeLessThanOrEqual(24);
    }
  });

  it('shrinks the window while the mean version gap exceeds τ, and does not grow it near τ', () => {
    // Evolve jobs take as long as five tasks: with a wide window many commits land before one is applied.
    const tau = 4;
    const c = controller({ initial: 16, max: 64, evolveInitial: 32, evolveMax: 32, periodSeconds: 60, minItems: 4, gapHeadroom: 0.75 }, tau);
    const trace = simulate(c, { tasks: 800, solveSeconds: () => 10, evolveSeconds: 50, jobsPerTask: 1 });
    const solve = trace.changes.filter((x) => x.stage === 'solve');
    // Far over τ: the window is cut toward w × τ / gap, at most halved per decision.
    expect(solve[0]).toMatchObject({ from: 16, to: 8, reason: 'gap-over-tau' });
    expect(solve[0]!.gap!).toBeGreaterThan(tau);
    for (const x of solve) {
      if (x.to > x.from) expect(x.gap === null || x.gap <= tau * 0.75).toBe(true);
    }
    // Gap ≈ window × 50 s / 10 s: it settles where that is about τ, far below where it started.
    expect(trace.windows.at(-1)).toBeLessThanOrEqual(2);
  });

  it('keeps every limit within its bounds', () => {
    const c = controller({ initial: 3, min: 2, max: 5, evolveInitial: 2, evolveMin: 2, evolveMax: 3, periodSeconds: 5, minItems: 2 }, 1);
    const trace = simulate(c, { tasks: 500, solveSeconds: kneeAt(40), evolveSeconds: 30, jobsPerTask: 4 });
    expect(trace.changes.length).toBeGreaterThan(0);
    for (const x of trace.changes) {
      const [lo, hi] = x.stage === 'solve' ? [2, 5] : [2, 3];
      expect(x.to).toBeGreaterThanOrEqual(lo);
      expect(x.to).toBeLessThanOrEqual(hi);
      expect(x.to).not.toBe(x.from);
    }
    expect(Math.min(...trace.windows)).toBeGreaterThanOrEqual(2);
    expect(Math.max(...trace.evolveLimits)).toBe(3);
  });
});

describe('AdaptiveConcurrency: decisions', () => {
  const load: Load = { tasks: 600, solveSeconds: kneeAt(12), evolveSeconds: 12, jobsPerTask: 2 };
  const cfg: AutoConfigInput = { initial: 2, periodSeconds: 15, minItems: 6 };

  it('makes the same decisions for the same calls and times', () => {
    const a = simulate(controller(cfg, 6), load);
    const b = simulate(controller(cfg, 6), load);
    expect(a.changes.length).toBeGreaterThan(3);
    expect(b).toEqual(a);
    expect(b.changes.map(concurrencyEvent)).toEqual(a.changes.map(concurrencyEvent));
  });

  it('decides at most once per period, and changes each stage at most once per decision', () => {
    const { changes } = simulate(controller(cfg, 6), load);
    const times = [...new Set(changes.map((x) => x.at))];
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(15);
    for (const t of times) {
      const stages = changes.filter((x) => x.at === t).map((x) => x.stage);
      expect(new Set(stages).size).toBe(stages.length);
    }
  });

  it('waits for a period to end and to hold enough commits before deciding', () => {
    const c = controller({ initial: 1, periodSeconds: 10, minItems: 3 });
    c.started('solve', 0);
    c.produced('solve', 4);
    c.started('solve', 4);
    expect(c.tick(9)).toEqual([]); // too early
    c.produced('solve', 12);
    c.started('solve', 12);
    expect(c.tick(12)).toEqual([]); // long enough, but only 2 commits: the period is extended
    c.produced('solve', 15);
    c.started('solve', 15);
    expect(c.tick(15)).toMatchObject([{ stage: 'solve', from: 1, to: 2, reason: 'probe', at: 15, committed: 3 }]);
    expect(c.tick(16)).toEqual([]); // a fresh period has begun
  });

  it('climbs on the tokens/s the engine reports, not on commits, once it reports work', () => {
    const c = controller({ initial: 2, periodSeconds: 10, minItems: 2, holdPeriods: 1 });
    const commit = (t: number) => { c.produced('solve', t); c.started('solve', t); };
    c.started('solve', 0);
    c.started('solve', 0);
    commit(5);
    commit(10);
    c.work(1000, 10);
    const [probe] = c.tick(10);
    expect(probe).toMatchObject({ stage: 'solve', from: 2, to: 4, reason: 'probe', tokensPerSecond: 100 });
    c.started('solve', 10);
    c.started('solve', 10);
    // Warm-up: a period, and at least the four tasks in flight at the change committed; it decides nothing.
    for (let t = 11; t <= 14; t++) commit(t);
    expect(c.tick(14)).toEqual([]);
    for (let t = 15; t <= 20; t++) commit(t);
    c.work(5000, 20);
    expect(c.tick(20)).toEqual([]);
    // Commits/s went from 0.2 to 1, tokens/s did not move: the server had no headroom, so the probe is undone.
    for (let t = 21; t <= 30; t++) commit(t);
    c.work(1000, 30);
    const [undo] = c.tick(30);
    expect(undo).toMatchObject({ stage: 'solve', from: 4, to: 2, reason: 'probe-undone', tokensPerSecond: 100, throughput: { solve: 1 } });
    expect(undo!.detail).toContain('tok/s');
  });

  it('refuses time that runs backwards and a completion nobody started', () => {
    const c = controller({});
    c.started('solve', 5);
    expect(() => c.tick(4)).toThrow(/time went back/);
    expect(() => c.produced('evolve', 6)).toThrow(/no evolve item started/);
    expect(() => c.gapObserved(-1)).toThrow(RangeError);
    expect(() => c.work(Number.NaN, 6)).toThrow(RangeError);
  });

  it('records each change as an engine.concurrency event', () => {
    const { changes } = simulate(controller(cfg, 6), load);
    const ev = concurrencyEvent(changes[0]!);
    expect(ev).toMatchObject({ type: 'engine.concurrency', stage: changes[0]!.stage, from: changes[0]!.from, to: changes[0]!.to, reason: changes[0]!.reason });
    expect(JSON.parse(JSON.stringify(ev))).toEqual(ev);
  });
});

describe('ReplayedConcurrency (a resumed run)', () => {
  it('re-issues the logged changes at the same commits while replaying, then decides live from the limits they left', () => {
    const cfg = autoConfigSchema.parse({ initial: 2, periodSeconds: 15, minItems: 6 });
    const load: Load = { tasks: 600, solveSeconds: kneeAt(12), evolveSeconds: 12, jobsPerTask: 2 };
    const first = simulate(new AdaptiveConcurrency(cfg, 6), load);
    const log = JSON.parse(JSON.stringify(first.changes.map((c, seq) => ({ id: `e${seq}`, seq, ...concurrencyEvent(c) })))) as LoggedEvent[];
    const resumeAt = 300;
    let commits = 0;
    const r = new ReplayedConcurrency(recordedChanges(log), cfg, 6, () => commits < resumeAt);
    const counting = {
      limit: r.limit.bind(r), enqueued: r.enqueued.bind(r), started: r.started.bind(r), gapObserved: r.gapObserved.bind(r), tick: r.tick.bind(r),
      produced: (s: 'solve' | 'evolve', t: number) => { if (s === 'solve') commits++; r.produced(s, t); },
    };
    const again = simulate(counting, load);
    const before = (cs: typeof first.changes) => cs.filter((c) => c.committed < resumeAt).map(concurrencyEvent);
    expect(before(first.changes).length).toBeGreaterThan(2);
    expect(before(again.changes)).toEqual(before(first.changes));
    expect(again.windows.slice(0, resumeAt)).toEqual(first.windows.slice(0, resumeAt));
    // Live afterwards: it goes on deciding, within bounds, from where the log left the limits.
    const after = again.changes.filter((c) => c.committed >= resumeAt);
    expect(after.length).toBeGreaterThan(0);
    const stage = after[0]!.stage;
    const left = first.changes.filter((c) => c.stage === stage && c.committed < resumeAt).at(-1)?.to ?? (stage === 'solve' ? cfg.initial : cfg.evolveInitial);
    expect(after[0]!.from).toBe(left);
  });
});

describe('engine.auto settings', () => {
  it('fills defaults and names the field whose bounds conflict', () => {
    expect(autoConfigSchema.parse({})).toMatchObject({ initial: 4, min: 1, max: 64, evolveInitial: 4, evolveMax: 32, periodSeconds: 30 });
    const r = autoConfigSchema.safeParse({ max: 2 });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]).toMatchObject({ path: ['initial'], message: 'initial (4) must lie within min..max (1..2)' });
    // τ of the gap rules: engine.auto.maxGap, else the staleness policy's τ.
    expect(autoGapBound({ staleness: { tau: 8 } })).toBe(8);
    expect(autoGapBound({ auto: autoConfigSchema.parse({ maxGap: 24 }), staleness: { tau: 8 } })).toBe(24);
  });
});
