import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, runScenario } from '../../src/index';

const quickstart = loadScenario(path.resolve('scenarios/quickstart.json'));
const out = () => mkdtempSync(path.join(tmpdir(), 'evo-team-'));
const events = (dir: string) => readFileSync(path.join(dir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));

describe('team level in the simulated world', () => {
  it('LeadLearn closes the loop: each outcome becomes a bank record, and a later leader is shown those records and cites their statistics on its niche', async () => {
    // Whether this pays (evochamber beats no-leadlearn, choices differ by niche, 3 seeds × 360
    // tasks) is a bench that checks its claims: npm run bench -- team-level. Here, the loop that
    // makes it possible: each task's outcome becomes a bank record, and a later task's leader is
    // shown exactly the records and per-niche statistics committed before that task started.
    const TASKS = 120;
    const { runDir, summary } = await runScenario(quickstart, { variant: 'evochamber', tasks: TASKS, report: false, outDir: out() });
    const ev = events(runDir);
    const startedAt = new Map<string, number>(ev.filter((e) => e.type === 'task.started').map((e) => [e.taskId, e.poolVersion]));
    const bank = new Map<string, { niche: string; structure: string; outcome: number; poolVersion: number }>(
      ev.filter((e) => e.type === 'leadlearn.entry').map((e) => [`lead:${e.taskId}`, e]));
    expect(bank.size).toBe(TASKS - summary.failures);
    expect(summary.leadlearn.entries).toBe(bank.size);
    let shown = 0;
    let cited = 0;
    for (const c of ev.filter((e) => e.type === 'structure.chosen')) {
      const start = startedAt.get(c.taskId)!;
      const retrieved = c.retrieved as Array<{ id: string; niche: string; structure: string; outcome: number }>;
      for (const r of retrieved) {
        const e = bank.get(r.id);
        expect(e, `${c.taskId} was shown ${r.id}, which no task committed`).toBeDefined();
        expect(e!.poolVersion, `${c.taskId} (started at ${start}) was shown ${r.id}, committed at ${e!.poolVersion}`).toBeLessThanOrEqual(start);
        expect([r.niche, r.structure, r.outcome]).toEqual([e!.niche, e!.structure, e!.outcome]);
      }
      // Records of the task's own niche come first.
      const firstOther = retrieved.findIndex((r) => r.niche !== c.niche);
      if (firstOther >= 0) expect(retrieved.slice(firstOther).every((r) => r.niche !== c.niche)).toBe(true);
      shown += retrieved.length;
      // The simulated leader cites the statistic it read in the prompt; it must be the bank's, as of the start.
      const m = /^(\S+) averaged ([\d.]+) over (\d+) tasks in this area$/.exec(c.why);
      if (!m) continue;
      const outcomes = [...bank.values()].filter((e) => e.niche === c.niche && e.structure === m[1] && e.poolVersion <= start).map((e) => e.outcome);
      expect([c.taskId, outcomes.length, (outcomes.reduce((a, b) => a + b, 0) / outcomes.length).toFixed(2)]).toEqual([c.taskId, Number(m[3]), m[2]]);
      cited++;
    }
    expect(shown).toBeGreaterThan(TASKS);
    expect(cited).toBeGreaterThan(TASKS / 2);
  });

  it('evochamber-bandit chooses with no model call: the bank gets every outcome, the leader writes no note', async () => {
    const { runDir, summary } = await runScenario(quickstart, { variant: 'evochamber-bandit', tasks: 24, report: false, outDir: out() });
    expect(summary.leadlearn.entries).toBe(24);
    expect(summary.tokens.leadlearn).toBeUndefined();
    const log = events(runDir);
    expect(log.filter((e) => e.type === 'structure.chosen').every((e) => e.source === 'bandit')).toBe(true);
    expect(log.filter((e) => e.type === 'leadlearn.note')).toHaveLength(0);
  });

  it('no-team always votes: every structure it records is voting', async () => {
    // Whether the team level pays (evochamber beats no-team, 3 seeds × 360 tasks) is a bench that
    // checks its claim: npm run bench -- team-level.
    const { summary } = await runScenario(quickstart, { variant: 'no-team', tasks: 24, report: false, outDir: out() });
    expect(Object.values(summary.structures).flatMap((s) => Object.keys(s))).toEqual(expect.arrayContaining(['voting']));
    expect(Object.values(summary.structures).every((s) => Object.keys(s).join() === 'voting')).toBe(true);
  });

  it('records roles, the structure choice and why, member answers, disagreement and synergy in the event log', async () => {
    const { runDir, summary } = await runScenario(quickstart, { variant: 'evochamber', tasks: 24, report: false, outDir: out() });
    const log = events(runDir);
    const team = log.find((e) => e.type === 'team.assembled');
    expect(team.members.map((m: { role: string }) => m.role)).toEqual(['anchor', 'complement', 'scout']);
    expect(Object.keys(team.scores)).toHaveLength(3);
    const chosen = log.filter((e) => e.type === 'structure.chosen');
    expect(chosen).toHaveLength(24);
    expect(chosen.some((e) => e.retrieved.length > 0)).toBe(true);
    const graded = log.filter((e) => e.type === 'task.graded');
    expect(graded.every((e) => typeof e.disagreement === 'boolean')).toBe(true);
    expect(log.filter((e) => e.type === 'synergy.updated').length).toBe(24 * 3);
    expect(log.filter((e) => e.type === 'leadlearn.entry').length).toBe(24);
    // The summary's rate is the logged one; some tasks split the team and some do not.
    const split = graded.filter((e) => e.disagreement).length;
    expect(split).toBeGreaterThan(0);
    expect(split).toBeLessThan(24);
    expect(summary.disagreementRate).toBeCloseTo(split / 24, 3);
    expect(Object.values(summary.structures).flatMap((s) => Object.values(s)).reduce((a, b) => a + b, 0)).toBe(24);
  });
});
