import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, runScenario, type RunSummary } from '../../src/index';

const quickstart = loadScenario(path.resolve('scenarios/quickstart.json'));
const out = () => mkdtempSync(path.join(tmpdir(), 'evo-team-'));
const TASKS = 360;
const SEEDS = [1, 2, 3];
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The runs of one variant over SEEDS. (Whether eight tasks in flight learn as well as one is a bench: test/bench/in-flight.bench.ts.) */
async function runs(variant: string): Promise<RunSummary[]> {
  const out2: RunSummary[] = [];
  for (const seed of SEEDS) out2.push((await runScenario(quickstart, { patch: { variant, seed, 'stream.tasks': TASKS }, report: false, outDir: out() })).summary);
  return out2;
}

/** Total-variation distance between two count tables. */
function tv(a: Record<string, number>, b: Record<string, number>): number {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  const na = Object.values(a).reduce((x, y) => x + y, 0);
  const nb = Object.values(b).reduce((x, y) => x + y, 0);
  return 0.5 * [...keys].reduce((s, k) => s + Math.abs((a[k] ?? 0) / na - (b[k] ?? 0) / nb), 0);
}

describe('team level in the simulated world', () => {
  it('LeadLearn learns: structure choices differ by niche, and evochamber beats no-leadlearn over 3 seeds', async () => {
    const [full, noLead] = [await runs('evochamber'), await runs('no-leadlearn')];
    const acc = (rs: RunSummary[]) => mean(rs.map((r) => r.accuracy));
    console.log([
      `accuracy over ${SEEDS.length} seeds × ${TASKS} tasks`,
      'variant        ' + SEEDS.map((s) => `seed ${s}`.padStart(8)).join('') + '    mean',
      ...([['evochamber', full], ['no-leadlearn', noLead]] as const).map(([n, rs]) =>
        n.padEnd(15) + rs.map((r) => r.accuracy.toFixed(3).padStart(8)).join('') + acc(rs).toFixed(3).padStart(8)),
      'structures chosen by evochamber (seed 1):',
      ...Object.entries(full[0]!.structures).map(([n, s]) => `  ${n.padEnd(18)} ${JSON.stringify(s)}`),
    ].join('\n'));
    expect(acc(full)).toBeGreaterThan(acc(noLead));
    // Choices differ by niche: some pair of niches has clearly different structure mixes in every seed.
    for (const r of full) {
      const tables = Object.values(r.structures);
      let widest = 0;
      for (let i = 0; i < tables.length; i++) for (let j = i + 1; j < tables.length; j++) widest = Math.max(widest, tv(tables[i]!, tables[j]!));
      expect(widest).toBeGreaterThan(0.2);
    }
    expect(full.every((r) => r.leadlearn.entries === TASKS - r.failures)).toBe(true);
  }, 300_000); // six 360-task runs: a guard against a hang, sized for a loaded 2-core machine

  it('evochamber-bandit chooses with no model call: the bank gets every outcome, the leader writes no note', async () => {
    const { runDir, summary } = await runScenario(quickstart, { patch: { variant: 'evochamber-bandit', 'stream.tasks': 24 }, report: false, outDir: out() });
    expect(summary.leadlearn.entries).toBe(24);
    expect(summary.tokens.leadlearn).toBeUndefined();
    const events = readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(events.filter((e) => e.type === 'structure.chosen').every((e) => e.source === 'bandit')).toBe(true);
    expect(events.filter((e) => e.type === 'leadlearn.note')).toHaveLength(0);
  });

  it('no-team always votes: every structure it records is voting', async () => {
    // Whether the team level pays (evochamber beats no-team, 3 seeds × 360 tasks) is a bench that
    // checks its claim: npm run bench -- team-level.
    const { summary } = await runScenario(quickstart, { patch: { variant: 'no-team', 'stream.tasks': 24 }, report: false, outDir: out() });
    expect(Object.values(summary.structures).flatMap((s) => Object.keys(s))).toEqual(expect.arrayContaining(['voting']));
    expect(Object.values(summary.structures).every((s) => Object.keys(s).join() === 'voting')).toBe(true);
  });

  it('records roles, the structure choice and why, member answers, disagreement and synergy in the event log', async () => {
    const { runDir, summary } = await runScenario(quickstart, { patch: { variant: 'evochamber', 'stream.tasks': 24 }, report: false, outDir: out() });
    const events = readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const team = events.find((e) => e.type === 'team.assembled');
    expect(team.members.map((m: { role: string }) => m.role)).toEqual(['anchor', 'complement', 'scout']);
    expect(Object.keys(team.scores)).toHaveLength(3);
    const chosen = events.filter((e) => e.type === 'structure.chosen');
    expect(chosen).toHaveLength(24);
    expect(chosen.some((e) => e.retrieved.length > 0)).toBe(true);
    const graded = events.filter((e) => e.type === 'task.graded');
    expect(graded.every((e) => typeof e.disagreement === 'boolean')).toBe(true);
    expect(events.filter((e) => e.type === 'synergy.updated').length).toBe(24 * 3);
    expect(events.filter((e) => e.type === 'leadlearn.entry').length).toBe(24);
    // The summary's rate is the logged one; some tasks split the team and some do not.
    const split = graded.filter((e) => e.disagreement).length;
    expect(split).toBeGreaterThan(0);
    expect(split).toBeLessThan(24);
    expect(summary.disagreementRate).toBeCloseTo(split / 24, 3);
    expect(Object.values(summary.structures).flatMap((s) => Object.values(s)).reduce((a, b) => a + b, 0)).toBe(24);
  });
});
