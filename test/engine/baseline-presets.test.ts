import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, PRESETS, runScenario } from '../../src/index';

const out = () => mkdtempSync(path.join(tmpdir(), 'evo-baselines-'));
const events = (dir: string) => readFileSync(path.join(dir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const quickstart = loadScenario(path.resolve('scenarios/quickstart.json'));

describe('the paper\'s baselines as presets', () => {
  it('name the published baseline each stands for, and differ from their neighbours only in the parts that make them that baseline', () => {
    const named: Record<string, RegExp> = {
      'single-agent': /\bSA\b/, 'self-consistency': /\bSC\b/, 'per-agent-memory': /EvoMem.*AgentNet/,
      'shared-memory': /MemCollab/, 'structure-only': /DyLAN/,
    };
    for (const [name, re] of Object.entries(named)) expect(PRESETS[name]!.description, name).toMatch(re);
    const { name: _a, description: _b, codream: shared, ...rest } = PRESETS['shared-memory']!;
    const { name: _c, description: _d, codream: own, ...restOwn } = PRESETS['per-agent-memory']!;
    expect(rest).toEqual(restOwn);
    expect([own, shared]).toEqual(['off', 'symmetric']);
    expect(rest).toMatchObject({ chooser: 'fixed', lifecycle: false, memory: true });
  });

  it('shared-memory gives every insight of a session to every agent, the team\'s members and the agents at or above the median included', async () => {
    const { runDir, summary } = await runScenario(quickstart, { tasks: 40, variant: 'shared-memory', report: false, outDir: out() });
    const ev = events(runDir);
    const roster = ev.filter((e) => e.type === 'agent.spawned').map((e) => e.agentId as string);
    expect(roster).toHaveLength(4);
    expect(ev.some((e) => e.type === 'agent.retired' || e.type === 'lifecycle.decision')).toBe(false);
    const sessions = ev.filter((e) => e.type === 'codream.session' && e.insights > 0);
    expect(sessions.length).toBeGreaterThan(3);
    let atOrAbove = 0;
    for (const s of sessions) {
      const insights = ev.filter((e) => e.type === 'codream.insight' && e.taskId === s.taskId);
      for (const ins of insights) {
        const routed = ev.filter((e) => e.type === 'insight.routed' && e.insightId === ins.insightId);
        expect(routed.map((r) => r.to).sort(), ins.insightId).toEqual([...roster].sort());
        for (const m of s.members) expect(routed.map((r) => r.to), `${ins.insightId} to member ${m}`).toContain(m);
        atOrAbove += routed.filter((r) => r.competence >= r.median).length;
      }
    }
    // Asymmetric routing would give these none.
    expect(atOrAbove).toBeGreaterThan(0);
    expect(summary.codream.routed).toBeGreaterThan(0);
  });

  it('per-agent-memory, its control, moves nothing between agents', async () => {
    const { runDir, summary } = await runScenario(quickstart, { tasks: 40, variant: 'per-agent-memory', report: false, outDir: out() });
    expect(summary.codream.sessions).toBe(0);
    expect(events(runDir).filter((e) => e.type === 'insight.routed')).toHaveLength(0);
    expect(summary.agents.lessons).toBeGreaterThan(0);
  });
});
