import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../../src/index';
import { withOverrides } from '../../../src/engine/scenario/scenario';
import { planSweep } from '../../../src/engine/sweep/plan';

const quick = withOverrides(loadScenario('scenarios/quickstart.json'), { stream: { tasks: 40 } });

describe('plan', () => {
  it('predicts each run of a sweep from one pilot per variant, and adds them up', async () => {
    const pilots: string[] = [];
    const p = await planSweep(quick, {
      variants: ['single-agent', 'evochamber'], seeds: 2, pilotTasks: 8, patch: { prices: { sim: { input: 1, output: 2 } } },
      onPilot: (v, n) => pilots.push(`${v}:${n}`),
    });
    expect(pilots).toEqual(['single-agent:8', 'evochamber:8']);
    expect(p.runs.map((r) => `${r.variant}/${r.seed}`)).toEqual(['single-agent/1', 'single-agent/2', 'evochamber/1', 'evochamber/2']);
    for (const r of p.runs) {
      expect(r.tasks).toBe(40);
      expect(r.completionTokens).toBeGreaterThan(0);
      expect(r.virtualHours).toBeGreaterThan(0);
      expect(r.usd).toBeCloseTo((r.promptTokens + 2 * r.completionTokens) / 1e6, 3);
      // Each decoding sequence's context weighted by the tokens it generates: with answers of unequal
      // length, above a mean call's prompt plus half its answer (and below its prompt plus its answer's
      // longest possible half, whatever the lengths).
      const meanCall = r.promptTokens / r.calls + r.completionTokens / r.calls / 2;
      expect(r.decodeContext).toBeGreaterThan(meanCall);
      expect(r.decodeContext!).toBeLessThan(r.promptTokens + r.completionTokens);
    }
    // A single agent's run costs less than the full system's, whose team calls several members.
    const of = (v: string) => p.runs.find((r) => r.variant === v && r.seed === 1)!;
    expect(of('single-agent').completionTokens).toBeLessThan(of('evochamber').completionTokens);
    expect(p.total.completionTokens).toBe(p.runs.reduce((a, r) => a + r.completionTokens, 0));
    expect(p.total.virtualHours).toBeCloseTo(p.runs.reduce((a, r) => a + r.virtualHours, 0), 9);
    // Runs sharing one server at once approach its maximum rate: fewer hours than run after run.
    expect(p.total.hoursAtMaxRate).not.toBeNull();
    expect(p.total.hoursAtMaxRate!).toBeLessThan(p.total.virtualHours);
  });

  it('gives one line and exit 2 for a bad flag, before any pilot runs', () => {
    const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'plan', 'scenarios/quickstart.json', ...args], { encoding: 'utf8', timeout: 60_000 });
    for (const [args, msg] of [
      [['--price', 'gpt-4o=1/2'], /--price: unknown model "gpt-4o"/],
      [['--seeds', '0'], /--seeds takes a whole number ≥ 1, got "0"/],
      [['--latency', 'h200'], /--latency: unknown profile "h200"/],
    ] as const) {
      const r = cli(...args);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(msg);
    }
  });
});
