import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, resumeRun, runScenario, type Completion, type CompletionRequest, type NicheSpec, type RunSummary, type Task } from '../../../src/index';
import { withOverrides } from '../../../src/engine/scenario/scenario';
import { buildReportData } from '../../../src/report';
import { SimPassThrough } from '../../fakes/sim-pass-through';
import { systemClock } from '../../../src/core/clock';
import { knobViolation } from '../../../src/core/knob';
import { procedureKnobs, procedureOf, procedureSchema, procedureViolations } from '../../../src/engine/meta/procedure';
import { getPreset } from '../../../src/engine/scenario/presets';
import { metaSection } from '../../../src/report/charts/meta-charts';
import { structureRegistry } from '../../../src/team/structures';
import { startServeSim } from '../../../src/sim/server/serve-sim';
import { quickstartOver } from '../../llm/openai/e2e-helpers';

const dir = () => path.join(mkdtempSync(path.join(tmpdir(), 'evo-meta-')), 'run');
const events = (d: string) => readFileSync(path.join(d, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
const stable = (s: RunSummary) => { const { timing: _t, runDir: _r, reportPath: _p, ...rest } = s; return rest; };
// Four tasks in flight, so each boundary has work to drain before the run is quiescent.
const base = withOverrides(loadScenario('scenarios/quickstart.json'), { stream: { tasks: 120 }, engine: { inFlight: 4 }, meta: { every: 30, minTasks: 20 } } as never);
const knobs = procedureKnobs(getPreset('meta'), structureRegistry());

/** The simulated model, with the meta-editor's replies replaced by the ones given, in turn. */
class HostileEditor extends SimPassThrough {
  private next = 0;
  constructor(private readonly replies: readonly string[], seed: number) { super(seed); }
  override async complete(req: CompletionRequest): Promise<Completion> {
    if (req.stage !== 'meta') return super.complete(req);
    const text = this.replies[this.next++ % this.replies.length]!;
    return { text, usage: { promptTokens: 100, completionTokens: 10 }, timing: { ttftMs: 1, totalMs: 2 }, model: 'sim' };
  }
}

/** The simulated model, recording what the meta-editor is shown and every task's hidden part. */
class RecordingSim extends SimPassThrough {
  readonly metaPrompts: string[] = [];
  readonly hidden: string[] = [];
  override taskStarted(t: Task, n: NicheSpec): void {
    const h = t.hidden;
    this.hidden.push(t.question, h.answer, ...(h.aliases ?? []), ...h.distractors, ...(h.tests ?? []), ...(h.prefix ? [h.prefix] : []));
    super.taskStarted(t, n);
  }
  override complete(req: CompletionRequest): Promise<Completion> {
    if (req.stage === 'meta') this.metaPrompts.push(req.messages.map((m) => m.content).join('\n'));
    return super.complete(req);
  }
}

/** At each segment report the run is quiescent: every task started has committed and had its evolve stage applied. */
function expectQuiescentBoundaries(ev: readonly Record<string, unknown>[]): void {
  const started = new Set<string>();
  const done = new Set<string>();
  const evolved = new Set<string>();
  let boundaries = 0;
  for (const e of ev) {
    if (e.type === 'task.started') started.add(String(e.taskId));
    if (e.type === 'task.done') done.add(String(e.taskId));
    if (e.type === 'evolve.applied') evolved.add(String(e.taskId));
    if (e.type === 'meta.report') {
      boundaries++;
      expect([...started].filter((t) => !done.has(t)), `tasks in flight at segment ${String(e.segment)}`).toEqual([]);
      expect([...done].filter((t) => !evolved.has(t)), `evolve stages pending at segment ${String(e.segment)}`).toEqual([]);
    }
  }
  expect(boundaries).toBeGreaterThan(0);
}

describe('meta-editing between segments', () => {
  it('offers the knobs the design lists, as one zod-validated document with bounds', () => {
    const paths = knobs.map((k) => k.path);
    for (const p of [
      'team.weights.wc', 'team.weights.ws', 'team.weights.wo', 'team.weights.wx', 'team.leadlearnK', 'team.offered',
      'population.codream.threshold', 'population.codream.trigger', 'population.codream.routing', 'population.codream.phases',
      'population.lifecycle.every', 'population.lifecycle.prune.enabled', 'population.lifecycle.prune.lag', 'population.lifecycle.fork.enabled',
      'population.lifecycle.merge.enabled', 'population.lifecycle.genesis.enabled', 'population.lifecycle.specialize.enabled',
      'memory.k', 'memory.kMeta', 'engine.staleness.policy', 'engine.staleness.tau', 'engine.inFlight',
      'memory.reflectionNote', 'population.lifecycle.personaNote',
    ]) expect(paths, p).toContain(p);
    // The scenario's own procedure validates; each numeric knob just past either bound does not.
    const procedure = procedureOf(base, knobs, getPreset('meta'));
    expect(procedureViolations(procedure, knobs)).toEqual([]);
    const schema = procedureSchema(knobs);
    for (const k of knobs) {
      if (k.kind !== 'number' && k.kind !== 'int') continue;
      expect(schema.safeParse({ ...procedure, [k.path]: k.min - 1 }).success, k.path).toBe(false);
      expect(schema.safeParse({ ...procedure, [k.path]: k.max + 1 }).success, k.path).toBe(false);
    }
    expect(schema.safeParse({ ...procedure, 'grading.timeoutMs': 1 }).success).toBe(false);
  });

  it('edits the procedure at each segment\'s end, within bounds, the same way every time, stamping every event', async () => {
    const d = dir();
    const seen = new RecordingSim(base.scenario.seed);
    const a = await runScenario(base, { patch: { variant: 'meta' }, outDir: d, report: false, model: seen });
    const b = await runScenario(base, { patch: { variant: 'meta' }, outDir: dir(), report: false, model: new RecordingSim(base.scenario.seed) });
    expect(stable(a.summary)).toEqual(stable(b.summary));
    expect(a.summary.meta).toMatchObject({ segments: 3, outOfBounds: 0 });
    expect(a.summary.meta!.changes).toBeGreaterThan(0);
    const ev = events(d);
    expectQuiescentBoundaries(ev);
    // The meta-editor is shown the segment's numbers, never a task's text, gold answer, hidden test or distractor.
    expect(seen.metaPrompts).toHaveLength(3);
    const secrets = [...new Set(seen.hidden)].filter((x) => x.length >= 4 && /[a-z]/i.test(x));
    expect(secrets.length).toBeGreaterThan(100);
    for (const p of seen.metaPrompts) expect(secrets.filter((x) => p.includes(x))).toEqual([]);
    const edits = ev.filter((e) => e.type === 'meta.edit');
    expect(edits).toHaveLength(3);
    expect(ev.filter((e) => e.type === 'meta.report')).toHaveLength(3);
    // Every value an accepted edit set lies within its knob's bounds.
    for (const e of edits.filter((x) => x.accepted)) {
      for (const c of e.changes as { path: string; to: unknown }[]) {
        const k = knobs.find((x) => x.path === c.path)!;
        expect(k, c.path).toBeDefined();
        expect(knobViolation(k, c.to)).toBeNull();
      }
    }
    // After the run starts under version 0, every event says the version it happened under.
    const started = ev.findIndex((e) => e.type === 'run.started');
    expect(ev.slice(started).every((e) => typeof e.procedure === 'number')).toBe(true);
    expect(Math.max(...ev.map((e) => Number(e.procedure ?? 0)))).toBe(a.summary.meta!.version);
    // The report draws the procedure over time from the events alone.
    const report = await buildReportData(d, { clock: systemClock, outDir: dir() });
    expect(report.meta.segments.map((x) => x.segment)).toEqual([1, 2, 3]);
    expect(report.meta.edits).toHaveLength(3);
    const changed = edits.flatMap((e) => (e.accepted ? (e.changes as { path: string }[]).map((c) => c.path) : []));
    const section = metaSection(report);
    expect(section.heading).toBe('Procedure over time');
    const knobTable = section.tables.find((t) => t.headers[0] === 'knob')!;
    expect(knobTable.rows.map((r) => r[0])).toEqual([...new Set(changed)].sort());
    // The control runs the same segments and never edits.
    const control = await runScenario(base, { patch: { variant: 'no-meta' }, outDir: dir(), report: false });
    expect(control.summary.meta).toEqual({ segments: 3, accepted: 0, rejected: 0, reverts: 0, version: 0, changes: 0, outOfBounds: 0 });
    expectQuiescentBoundaries(events(control.summary.runDir));
  });

  it('rejects each hostile reply whole, with the reason logged, and goes on under the same procedure', async () => {
    const hostile = [
      JSON.stringify({ patch: { graders: {} } }),
      JSON.stringify({ patch: { 'gold': 'x' } }),
      JSON.stringify({ patch: { 'stream.tasks': 10 } }),
      JSON.stringify({ patch: { 'budget.tokens': 1e12 } }),
      JSON.stringify({ patch: { 'team.telepathy': 1 } }),
      `{"patch": {}, "rationale": "${'x'.repeat(1024 * 1024)}"}`,
      'I would lower the threshold a little.',
      // Every lifecycle trigger set to fire on every task.
      JSON.stringify({ patch: {
        'population.lifecycle.every': 1,
        'population.lifecycle.prune.enabled': true, 'population.lifecycle.prune.window': 1, 'population.lifecycle.prune.lag': 0, 'population.lifecycle.prune.maxPerWindow': 100,
        'population.lifecycle.fork.enabled': true, 'population.lifecycle.fork.margin': 0, 'population.lifecycle.fork.minCompetence': 0, 'population.lifecycle.fork.maxPerWindow': 100,
        'population.lifecycle.merge.enabled': true, 'population.lifecycle.merge.minOverlap': 0, 'population.lifecycle.merge.maxGap': 1, 'population.lifecycle.merge.maxPerWindow': 100,
        'population.lifecycle.genesis.enabled': true, 'population.lifecycle.genesis.minRecurrence': 1, 'population.lifecycle.genesis.maxPerWindow': 100,
        'population.lifecycle.specialize.enabled': true, 'population.lifecycle.specialize.minCompetence': 0, 'population.lifecycle.specialize.margin': 0, 'population.lifecycle.specialize.maxPerWindow': 100,
      } }),
      JSON.stringify({ patch: { 'engine.inFlight': 10000 } }),
    ];
    const s = withOverrides(base, { stream: { tasks: 200 }, meta: { every: 20, minTasks: 20 } } as never);
    const d = dir();
    const model = new HostileEditor(hostile, s.scenario.seed);
    const { summary } = await runScenario(s, { patch: { variant: 'meta' }, outDir: d, report: false, model });
    expect(summary.tasks).toBe(200);
    const edits = events(d).filter((e) => e.type === 'meta.edit');
    expect(edits).toHaveLength(hostile.length);
    const reasons = edits.map((e) => String(e.reason));
    expect(edits.every((e) => e.accepted === false)).toBe(true);
    expect(reasons[0]).toMatch(/graders is frozen/);
    expect(reasons[1]).toMatch(/gold is frozen/);
    expect(reasons[2]).toMatch(/stream\.tasks is frozen/);
    expect(reasons[3]).toMatch(/budget\.tokens is frozen/);
    expect(reasons[4]).toMatch(/team\.telepathy is not a knob/);
    expect(reasons[5]).toMatch(/characters, more than/);
    expect(reasons[6]).toMatch(/not a JSON object/);
    expect(reasons[7]).toMatch(/population\.lifecycle\.every must lie within 20\.\.400, got 1/);
    expect(reasons[8]).toMatch(/engine\.inFlight must lie within 1\.\.64, got 10000/);
    expect(summary.meta).toMatchObject({ rejected: hostile.length, accepted: 0, version: 0, changes: 0, outOfBounds: 0 });
    // Rejected whole: the procedure every task ran under is version 0.
    expect(events(d).every((e) => e.procedure === undefined || e.procedure === 0)).toBe(true);
  });

  it('ends a segment early by its run plan: a token budget, or accuracy flat for K tasks; a plan out of range is rejected', async () => {
    const replies = [
      JSON.stringify({ patch: {}, plan: { tasks: 60, tokens: 1 }, rationale: 'one task' }),
      JSON.stringify({ patch: {}, plan: { tasks: 60, stopWhenFlatFor: 10 }, rationale: 'stop when flat' }),
      JSON.stringify({ patch: {}, plan: { tasks: 5 } }),
    ];
    const s = withOverrides(loadScenario('scenarios/quickstart.json'), { stream: { tasks: 130 }, meta: { every: 20, minTasks: 20 } } as never);
    const d = dir();
    const { summary } = await runScenario(s, { patch: { variant: 'meta' }, outDir: d, report: false, model: new HostileEditor(replies, s.scenario.seed) });
    expect(summary.tasks).toBe(130);
    const ev = events(d);
    const reports = ev.filter((e) => e.type === 'meta.report');
    const edits = ev.filter((e) => e.type === 'meta.edit');
    // Segment 2 ran under a budget of one token: it ended after its first task.
    expect(edits[0]).toMatchObject({ accepted: true, plan: { tasks: 60, tokens: 1 } });
    expect(reports[1]).toMatchObject({ segment: 2, tasks: 1 });
    // Segment 3 ended once its accuracy had not reached a new best for 10 tasks, before its 60.
    expect(edits[1]).toMatchObject({ accepted: true, plan: { tasks: 60, stopWhenFlatFor: 10 } });
    expect(Number(reports[2]!.tasks)).toBeGreaterThanOrEqual(10);
    expect(Number(reports[2]!.tasks)).toBeLessThan(60);
    // Segment 4's plan was out of range: rejected, and the next segment has the default length.
    expect(edits[2]).toMatchObject({ accepted: false, reason: 'plan.tasks must be a whole number 20..400', plan: { tasks: 20 } });
    expect(reports[3]).toMatchObject({ segment: 4, tasks: 20 });
  });

  it('resumes a run cut mid-segment after an edit by re-executing its edits, ending where an uninterrupted run ends', async () => {
    const full = await runScenario(base, { patch: { variant: 'meta' }, outDir: dir(), report: false });
    const d = dir();
    const stop = new AbortController();
    // Stopped with no grace: the tasks in flight are cut, as by a kill, ten tasks past the third edit.
    const first = await runScenario(base, { patch: { variant: 'meta' }, outDir: d, report: false, graceMs: 0, stop: stop.signal, onProgress: (p) => { if (p.done === 100) stop.abort(); } });
    expect(first.interrupted).toBe(true);
    const before = events(d);
    expect(before.some((e) => e.type === 'meta.edit' && e.accepted === true && (e.changes as unknown[]).length > 0)).toBe(true);
    expect(before.some((e) => e.type === 'run.finished')).toBe(false);
    const resumed = await resumeRun(d, { report: false });
    expect(resumed.summary.meta!.changes).toBeGreaterThan(0);
    expect(stable(resumed.summary)).toEqual(stable(full.summary));
  });

  it('runs over HTTP against serve-sim, the meta-editor answering through its own endpoint', async () => {
    const sim = await startServeSim({ port: 0, timeScale: 3000 });
    try {
      // Stage meta on an endpoint of its own: the meta-editor's calls are bound to the group "meta".
      const s = withOverrides(quickstartOver({
        endpoints: [{ baseURL: sim.url, model: 'sim', maxConcurrency: 8, name: 'agents' }, { baseURL: sim.url, model: 'sim', maxConcurrency: 1, group: 'meta', name: 'meta-editor' }],
        bindings: { 'meta-editor': 'meta' },
      }), {
        stream: { tasks: 50, niches: [{ id: 'people-qa' }, { id: 'timeline-qa' }] }, meta: { every: 20, minTasks: 20 },
      } as never);
      const d = dir();
      const { summary } = await runScenario(s, { patch: { variant: 'meta' }, outDir: d, report: false });
      expect(summary.meta?.segments).toBe(2);
      expect(summary.tokens.meta?.calls).toBe(2);
      expect(summary.endpoints?.['meta-editor']?.requests).toBe(2);
      expect(summary.endpoints?.agents?.requests).toBeGreaterThan(50);
      expect(events(d).filter((e) => e.type === 'meta.edit')).toHaveLength(2);
    } finally {
      await sim.close();
    }
  }, 120_000);
});
