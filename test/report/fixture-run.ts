// A hand-made run directory whose event log has the population-level events real runs do not
// write yet, following the event contract the report is built against:
//
// run.started        {scenario, variant, seed, tasks}
// agent.spawned      {agentId, origin: 'seed'|'genesis'|'fork'|'merge', persona, parents?, reason?, poolVersion?, window?}
// task.started       {taskId, niche, difficulty, block, poolVersion}
// structure.chosen   {taskId, niche, structure, source, why, retrieved}
// task.graded        {taskId, niche, reward (0-1), correct, extracted, detail, disagreement}
// competence.updated {taskId, agentId, niche, reward, competence, exposure, poolVersion}
// codream.session    {taskId, niche, trigger, members, insights, poolVersion, promptTokens, completionTokens}
// codream.insight    {taskId, insightId, text, level, niche (null for cross-domain), authors}
// insight.routed     {taskId, insightId, from, to, niche|null, level, pool, median, competence}
// lifecycle.window   {window, poolVersion, tasksSeen, roster: [{agentId, competence, exposure}], specialists: {niche: agentId|null}}
// lifecycle.decision {window, operator: 'genesis'|'fork'|'merge'|'prune'|'specialize', agents, reason, poolVersion}
// agent.retired      {agentId, reason, successor, window, poolVersion}
// agent.persona      {agentId, persona, reason, window, poolVersion}
// task.done          {taskId, reward, poolVersion, startedAt}
// run.finished       {accuracy, tasks}
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Niches of the fixture run. */
export const FIXTURE_NICHES = ['arithmetic', 'algebra', 'people-qa'] as const;
/** Tasks in the fixture run; two blocks of 30. */
export const FIXTURE_TASKS = 60;

/** How the fixture differs from a clean finished run. */
export interface FixtureOptions {
  /** Cut the last line in half, as a run killed mid-write leaves it (and leave run.json "running"). */
  readonly truncate?: boolean;
}

// Skill of each agent per niche: the fixture's specialists are agent-01 (arithmetic), agent-02
// (algebra), agent-03 (people-qa); the fork agent-05 inherits agent-02's algebra.
const SKILL: Record<string, Record<string, number>> = {
  'agent-01': { arithmetic: 0.9, algebra: 0.4, 'people-qa': 0.5 },
  'agent-02': { arithmetic: 0.5, algebra: 0.9, 'people-qa': 0.4 },
  'agent-03': { arithmetic: 0.4, algebra: 0.5, 'people-qa': 0.9 },
  'agent-04': { arithmetic: 0.3, algebra: 0.3, 'people-qa': 0.3 },
  'agent-05': { arithmetic: 0.5, algebra: 0.85, 'people-qa': 0.5 },
  'agent-06': { arithmetic: 0.8, algebra: 0.5, 'people-qa': 0.8 },
  'agent-07': { arithmetic: 0.5, algebra: 0.5, 'people-qa': 0.6 },
};
const STRUCTURES = ['voting', 'debate', 'generator-critic', 'decompose'];
const LEVELS = ['task-local', 'subdomain', 'cross-domain'];

/** Write the fixture run (run.json + events.jsonl) into `dir`; returns the dir. */
export function writeFixtureRun(dir: string, opts: FixtureOptions = {}): string {
  mkdirSync(dir, { recursive: true });
  const lines: string[] = [];
  let seq = 0;
  let pv = 0;
  const emit = (type: string, body: Record<string, unknown>) => lines.push(JSON.stringify({ id: `ev${seq}`, seq: seq++, type, ...body }));
  let state = 12345;
  const rand = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);

  const alive: string[] = [];
  const comp = new Map<string, Record<string, number>>();
  const expo = new Map<string, Record<string, number>>();
  const spawn = (agentId: string, origin: string, extra: Record<string, unknown> = {}) => {
    alive.push(agentId);
    comp.set(agentId, {});
    expo.set(agentId, {});
    emit('agent.spawned', { agentId, origin, persona: `You are ${agentId}.`, poolVersion: pv, ...extra });
  };
  const retire = (agentId: string, reason: string, successor: string | null, window: number) => {
    alive.splice(alive.indexOf(agentId), 1);
    emit('agent.retired', { agentId, reason, successor, window, poolVersion: pv });
  };

  emit('run.started', { scenario: 'fixture', variant: 'evochamber', seed: 7, tasks: FIXTURE_TASKS });
  for (const id of ['agent-01', 'agent-02', 'agent-03', 'agent-04']) spawn(id, 'seed');
  let rewardSum = 0;
  for (let t = 0; t < FIXTURE_TASKS; t++) {
    const niche = FIXTURE_NICHES[t % 3]!;
    const taskId = `${niche}-${String(t).padStart(4, '0')}`;
    const block = t < 30 ? 0 : 1;
    emit('task.started', { taskId, niche, difficulty: 1, block, poolVersion: pv });
    const members = [0, 1, 2].map((k) => alive[(t + k) % alive.length]!);
    emit('team.assembled', { taskId, members: members.map((agentId, k) => ({ agentId, role: k === 0 ? 'anchor' : 'complement' })), scores: null });
    const structure = STRUCTURES[(t * 7 + (t > 30 ? 1 : 0)) % (t > 40 ? 2 : 4)]!;
    emit('structure.chosen', { taskId, niche, structure, source: 'model', why: 'fixture', retrieved: [] });
    const best = Math.max(...members.map((m) => SKILL[m]![niche]!));
    const correct = rand() < best;
    const reward = correct ? 1 : 0;
    rewardSum += reward;
    emit('attempt', { taskId, agentId: members[0], role: 'anchor', step: 'solve', index: 0, extracted: '1', text: 'x', promptTokens: 100, completionTokens: 200 });
    emit('task.graded', { taskId, niche, reward, correct, extracted: '1', detail: 'fixture', disagreement: !correct });
    pv += 1;
    if (!correct) {
      emit('codream.session', { taskId, niche, trigger: 'failure', members, proposals: 2, kept: 2, insights: 2, poolVersion: pv, promptTokens: 300, completionTokens: 150 });
      for (let k = 0; k < 2; k++) {
        const level = LEVELS[(t + k) % 3]!;
        const insightId = `${taskId}:i${k}`;
        const authors = [members[k]!];
        emit('codream.insight', { taskId, insightId, text: 'check units', level, niche: level === 'cross-domain' ? null : niche, authors });
        const to = alive.find((a) => !authors.includes(a) && (SKILL[a]![niche]! < SKILL[authors[0]!]![niche]!)) ?? members[2]!;
        emit('insight.routed', { taskId, insightId, from: authors, to, niche: level === 'cross-domain' ? null : niche, level, pool: level === 'cross-domain' ? 'meta' : 'niche', median: 0.5, competence: 0.4, stored: true });
      }
    }
    for (const m of members) {
      const r = rand() < SKILL[m]![niche]! ? 1 : 0;
      const c = comp.get(m)!;
      const e = expo.get(m)!;
      c[niche] = (c[niche] ?? 0.5) * 0.8 + 0.2 * r;
      e[niche] = (e[niche] ?? 0) + 1;
      emit('competence.updated', { taskId, agentId: m, niche, reward: r, competence: c[niche], exposure: e[niche], poolVersion: pv });
    }
    emit('task.done', { taskId, status: 'graded', reward, poolVersion: pv, startedAt: pv - 1 });
    if ((t + 1) % 15 === 0) lifecycle((t + 1) / 15, t + 1);
  }
  emit('run.finished', { accuracy: rewardSum / FIXTURE_TASKS, tasks: FIXTURE_TASKS });

  function lifecycle(window: number, tasksSeen: number) {
    const roster = alive.map((agentId) => ({ agentId, competence: { ...comp.get(agentId) }, exposure: { ...expo.get(agentId) } }));
    const specialists: Record<string, string | null> = {};
    for (const n of FIXTURE_NICHES) {
      const exposed = roster.filter((r) => (r.exposure[n] ?? 0) > 0);
      specialists[n] = exposed.sort((a, b) => b.competence[n]! - a.competence[n]!)[0]?.agentId ?? null;
    }
    emit('lifecycle.window', { window, poolVersion: pv, tasksSeen, roster, specialists, stable: {} });
    const decide = (operator: string, agents: string[], reason: string) => emit('lifecycle.decision', { window, operator, agents, reason, poolVersion: pv });
    if (window === 2) {
      decide('fork', ['agent-02', 'agent-05'], 'agent-02 anchors algebra with a wide margin: fork it');
      spawn('agent-05', 'fork', { parents: ['agent-02'], reason: 'fork of the algebra anchor', window });
      decide('prune', ['agent-04'], 'agent-04 is below the pool median in every niche');
      retire('agent-04', 'below the pool median in every niche for 2 windows', 'agent-05', window);
    }
    if (window === 3) {
      decide('merge', ['agent-01', 'agent-03', 'agent-06'], 'agent-01 and agent-03 overlap on arithmetic');
      spawn('agent-06', 'merge', { parents: ['agent-01', 'agent-03'], reason: 'merge of two overlapping agents', window });
      retire('agent-03', 'merged into agent-06', 'agent-06', window);
      decide('specialize', ['agent-02'], 'agent-02 anchors algebra: rewrite its persona toward it');
      emit('agent.persona', { agentId: 'agent-02', persona: 'You are an algebra specialist.', reason: 'anchors algebra', niche: 'algebra', window, poolVersion: pv });
      decide('genesis', ['agent-07'], 'people-qa has no strong anchor: add a fresh agent');
      spawn('agent-07', 'genesis', { reason: 'people-qa lacks an anchor', window });
    }
  }

  let text = `${lines.join('\n')}\n`;
  if (opts.truncate) text = `${text.slice(0, text.length - Math.floor(lines.at(-1)!.length / 2))}`;
  writeFileSync(path.join(dir, 'events.jsonl'), text);
  const tokens = {
    codream: { calls: 20, promptTokens: 6000, completionTokens: 3000 },
    leadlearn: { calls: 120, promptTokens: 40000, completionTokens: 30000 },
    lifecycle: { calls: 4, promptTokens: 2000, completionTokens: 1000 },
    reflect: { calls: 180, promptTokens: 70000, completionTokens: 60000 },
    solve: { calls: 180, promptTokens: 90000, completionTokens: 300000 },
    total: { calls: 504, promptTokens: 208000, completionTokens: 394000 },
  };
  const run = {
    schemaVersion: 1, id: path.basename(dir), createdAt: '2026-01-01T00:00:00.000Z',
    status: opts.truncate ? 'running' : 'finished',
    config: { name: 'fixture', seed: 7, variant: 'evochamber', stream: { tasks: FIXTURE_TASKS, order: 'blocked', niches: FIXTURE_NICHES.map((id) => ({ id })) } },
    summary: opts.truncate ? null : { scenario: 'fixture', variant: 'evochamber', seed: 7, backend: 'sim', tokens, timing: { wallSeconds: 2.5, tasksPerSecond: 24 } },
    error: null,
  };
  writeFileSync(path.join(dir, 'run.json'), `${JSON.stringify(run, null, 2)}\n`);
  return dir;
}
