import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createActor } from 'xstate';
import { describe, expect, it } from 'vitest';
import { loadScenario, runScenario, type RunResult } from '../../src/index';
import { createHashEmbedder } from '../../src/llm/hash-embedder';
import { supervisorMachine } from '../../src/population/supervisor-machine';
import { viewAgent } from '../../src/individual/agent-view';

const out = () => mkdtempSync(path.join(tmpdir(), 'evo-pop-'));
const events = (dir: string) => readFileSync(path.join(dir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const embedder = createHashEmbedder();

/** The six-niche block stream, one run per seed, shared by the tests that read it. */
const blocks = loadScenario(path.resolve('scenarios/blocks.json'));
const blockRuns = new Map<number, Promise<RunResult>>();
function blocksRun(seed: number): Promise<RunResult> {
  if (!blockRuns.has(seed)) blockRuns.set(seed, runScenario(blocks, { patch: { seed }, report: false, outDir: out() }));
  return blockRuns.get(seed)!;
}

/** Median as the routing rule defines it (mean of the middle two for an even count), written out here. */
function medianOf(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * Replay a one-task-in-flight run's log: the active roster (spawns, retirements), each agent's
 * competence (seed agents start unseen at c0, newborns at the pool median of each niche seen so
 * far, then every logged update), and for every CoDream insight the agents strictly below the
 * median on its niche (the task's, for cross-domain ones). Every lifecycle window's roster
 * snapshot, read from the agents themselves, must agree with the replay, so the replay is checked too.
 */
function replayRouting(ev: Array<Record<string, any>>, c0: number) {
  const competence = new Map<string, Record<string, number>>();
  const active: string[] = [];
  const seen: string[] = [];
  const nicheOf = new Map<string, string>();
  const mismatches: string[] = [];
  const comp = (a: string, n: string) => competence.get(a)![n] ?? c0;
  let sessions = 0;
  let windows = 0;
  let skipped = 0;
  const byTask = new Map<string, Array<Record<string, any>>>();
  for (const e of ev) if (e.taskId) byTask.set(e.taskId, [...(byTask.get(e.taskId) ?? []), e]);
  // A task's competence updates take effect when it is done; its routing saw the roster before them.
  let pending: Array<Record<string, any>> = [];
  for (const e of ev) {
    switch (e.type) {
      case 'task.started': nicheOf.set(e.taskId, e.niche); break;
      case 'task.done':
        for (const u of pending) competence.get(u.agentId)![u.niche] = u.competence;
        pending = [];
        if (!seen.includes(nicheOf.get(e.taskId)!)) seen.push(nicheOf.get(e.taskId)!);
        break;
      case 'agent.spawned':
        competence.set(e.agentId, e.origin === 'seed' ? {} : Object.fromEntries(seen.map((n) => [n, medianOf(active.map((a) => comp(a, n)))])));
        active.push(e.agentId);
        break;
      case 'agent.retired': active.splice(active.indexOf(e.agentId), 1); break;
      case 'competence.updated': pending.push(e); break;
      case 'lifecycle.window': {
        windows++;
        const snap = e.roster as Array<{ agentId: string; competence: Record<string, number> }>;
        if (JSON.stringify(snap.map((r) => r.agentId)) !== JSON.stringify(active)) mismatches.push(`window ${e.window}: roster ${snap.map((r) => r.agentId)} vs replayed ${active}`);
        for (const r of snap) {
          for (const [n, c] of Object.entries(r.competence)) {
            if (Math.abs(comp(r.agentId, n) - c) > 1e-12) mismatches.push(`window ${e.window}: ${r.agentId} ${n} ${c} vs replayed ${comp(r.agentId, n)}`);
          }
        }
        break;
      }
      case 'codream.session': {
        if (e.insights === 0) break;
        sessions++;
        const got = new Map<string, string[]>();
        const commit = byTask.get(e.taskId)!;
        for (const r of commit.filter((x: Record<string, any>) => x.type === 'insight.routed')) got.set(r.insightId, [...(got.get(r.insightId) ?? []), r.to]);
        for (const ins of commit.filter((x: Record<string, any>) => x.type === 'codream.insight')) {
          const niche = ins.niche ?? e.niche;
          const med = medianOf(active.map((a) => comp(a, niche)));
          const want = active.filter((a) => comp(a, niche) < med);
          skipped += active.length - want.length;
          const have = got.get(ins.insightId) ?? [];
          if (JSON.stringify(have) !== JSON.stringify(want)) mismatches.push(`${ins.insightId} (${niche}, median ${med}): sent to ${have}, below the median: ${want}`);
        }
        break;
      }
    }
  }
  return { sessions, windows, skipped, mismatches };
}

describe('population level', () => {
  it('merge keeps every lesson exactly once and retires the other agent with a pointer to its successor', () => {
    const s = createActor(supervisorMachine, { input: { dim: embedder.dim, synergyEta: 0.2, synergy0: 0.5 } }).start();
    for (const id of ['keep', 'gone']) {
      s.send({ type: 'SPAWN_AGENT', input: { id, persona: 'p', dim: embedder.dim, eta: 0.1, c0: 0.5, origin: { kind: 'seed', parents: [], poolVersion: 0 } } });
    }
    const lesson = (text: string, niche: string | null = 'algebra') => ({ id: text, text, niche, level: 'lesson' as const, source: 'reflection' as const, taskId: null, poolVersion: 0, key: embedder.embedSync(text) });
    s.send({ type: 'APPLY_UPDATE', update: { taskId: 't1', observations: [], experiences: [
      { agentId: 'keep', entry: lesson('isolate x first') }, { agentId: 'keep', entry: lesson('check units', null) },
      { agentId: 'gone', entry: lesson('Isolate  x first') }, { agentId: 'gone', entry: lesson('divide both sides') },
      { agentId: 'gone', entry: lesson('check units', null) }, { agentId: 'gone', entry: lesson('quote the sentence', 'people-qa') },
    ] } });
    s.send({ type: 'MERGE_AGENTS', keep: 'keep', retire: 'gone' });
    const keep = viewAgent(s.getSnapshot().context.agents.get('keep')!);
    const gone = viewAgent(s.getSnapshot().context.agents.get('gone')!);
    expect(keep.archive.entries().map((e) => e.text).sort()).toEqual(['check units', 'divide both sides', 'isolate x first', 'quote the sentence']);
    expect(gone.status).toBe('retired');
    expect(gone.successor).toBe('keep');
    expect(gone.archive.size()).toBe(4);
    // Knowledge sent to a merged-away agent reaches its successor.
    s.send({ type: 'APPLY_UPDATE', update: { taskId: 't2', observations: [], experiences: [{ agentId: 'gone', entry: lesson('late insight') }] } });
    expect(viewAgent(s.getSnapshot().context.agents.get('keep')!).archive.has('late insight', 'algebra')).toBe(true);
  });

  it('a full run keeps the roster within bounds, never selects a retired agent, and logs who taught whom', async () => {
    // Seed 1 of the block stream below: 600 tasks, a lifecycle window every 60, 6 seed agents, 3 to 8 allowed.
    const { runDir, summary } = await blocksRun(1);
    const { minAgents, maxAgents } = blocks.scenario.population.lifecycle;
    const ev = events(runDir);
    const windows = ev.filter((e) => e.type === 'lifecycle.window');
    expect(windows.length).toBe(10);
    for (const w of windows) {
      expect(w.roster.length).toBeGreaterThanOrEqual(minAgents);
      expect(w.roster.length).toBeLessThanOrEqual(maxAgents);
    }
    // The lifecycle is busy enough to press on the upper bound and to retire agents.
    expect(Math.max(...windows.map((w) => w.roster.length))).toBe(maxAgents);
    expect(ev.filter((e) => e.type === 'agent.retired').length).toBeGreaterThan(0);
    const retiredAt = new Map<string, number>();
    for (const e of ev) {
      if (e.type === 'agent.retired') retiredAt.set(e.agentId, e.seq);
      if (e.type === 'team.assembled') {
        const started = ev.find((x) => x.type === 'task.started' && x.taskId === e.taskId)!;
        for (const m of e.members) {
          // A task's team is fixed when it starts; a task started after the retirement must not use the agent.
          const r = retiredAt.get(m.agentId);
          if (r !== undefined) expect(started.poolVersion).toBeLessThan(ev[r].poolVersion);
        }
      }
    }
    const lineage = Object.values(summary.lineage).reduce((a, b) => a + b, 0);
    expect(lineage).toBe(ev.filter((e) => e.type === 'lifecycle.decision').length);
    expect(ev.filter((e) => e.type === 'lifecycle.decision').every((e) => typeof e.reason === 'string' && e.reason.length > 20)).toBe(true);
    const routed = ev.filter((e) => e.type === 'insight.routed');
    expect(summary.codream.routed).toBe(routed.length);
    expect(routed.length).toBeGreaterThan(0);
    expect(routed.every((e) => e.from.length > 0)).toBe(true);
    // Who got each insight, checked against competences the router did not compute: replayed from
    // the agents' own updates in the log, with the pool median recomputed here.
    const check = replayRouting(ev, blocks.scenario.memory.c0);
    expect(check.sessions).toBe(ev.filter((e) => e.type === 'codream.session' && e.insights > 0).length);
    expect(check.windows).toBe(10);
    expect(check.mismatches).toEqual([]);
    // Routing is selective here: some insights skip some agents.
    expect(check.skipped).toBeGreaterThan(0);
    expect(ev.filter((e) => e.type === 'lesson.added' && e.source === 'codream').length).toBeGreaterThan(0);
  }, 180_000); // guards against a hang, sized for a loaded 2-core machine

  it('each window names as specialist the agent its roster snapshot says leads the niche by the margin, and the stable ones are those that held it', async () => {
    // Whether specialists emerge and depend on the seed (3 seeds × 600 tasks) is a bench that
    // checks its claim: npm run bench -- population-level. Here, the rule that names them, replayed
    // from each window's roster snapshot of the seed-1 run with the scenario's thresholds.
    const { runDir, summary } = await blocksRun(1);
    const { c0 } = blocks.scenario.memory;
    const { margin, minExposure, stableWindows } = blocks.scenario.population.lifecycle.specialist;
    const windows = events(runDir).filter((e) => e.type === 'lifecycle.window');
    const held = new Map<string, { agentId: string; windows: number }>();
    let named = 0;
    for (const w of windows) {
      const roster = w.roster as Array<{ agentId: string; competence: Record<string, number>; exposure: Record<string, number> }>;
      const want: Record<string, string | null> = {};
      for (const niche of Object.keys(w.specialists)) {
        // Highest competence leads (ties to the earliest in the roster); a specialist leads the runner-up by the margin, with enough exposure.
        const ranked = roster.map((r, i) => ({ r, i, c: r.competence[niche] ?? c0 })).sort((x, y) => y.c - x.c || x.i - y.i);
        const [top, second] = ranked;
        want[niche] = top && second && top.c - second.c >= margin - 1e-9 && (top.r.exposure[niche] ?? 0) >= minExposure ? top.r.agentId : null;
      }
      expect(w.specialists, `window ${w.window}`).toEqual(want);
      for (const [niche, agentId] of Object.entries(want)) {
        const before = held.get(niche);
        if (agentId === null) held.delete(niche);
        else held.set(niche, { agentId, windows: before?.agentId === agentId ? before.windows + 1 : 1 });
        if (agentId !== null) named++;
      }
      const stable = Object.fromEntries([...held].filter(([, h]) => h.windows >= stableWindows).map(([n, h]) => [n, h.agentId]));
      expect(w.stable, `window ${w.window}`).toEqual(stable);
    }
    expect(named).toBeGreaterThan(0);
    expect(summary.stableSpecialists).toBe(Object.keys(windows.at(-1).stable).length);
    expect(summary.stableSpecialists).toBeGreaterThan(0);
  });
});
