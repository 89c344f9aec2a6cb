import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, parseScenario, resumeRun, runScenario, type RunSummary } from '../../../src/index';
import { withOverrides } from '../../../src/engine/scenario/scenario';

const dir = () => path.join(mkdtempSync(path.join(tmpdir(), 'evo-budget-')), 'run');
const base = withOverrides(loadScenario('scenarios/quickstart.json'), { stream: { tasks: 40 } });
const stable = (s: RunSummary) => { const { timing: _t, runDir: _r, reportPath: _p, ...rest } = s; return rest; };
const events = (d: string) => readFileSync(path.join(d, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

describe('a run budget', () => {
  {
    const inFlight = 1;
    it('stops the run as Ctrl-C does, and a resume with a larger one ends with the unbudgeted summary', async () => {
      const { summary: full } = await runScenario(base, { patch: { 'engine.inFlight': inFlight }, outDir: dir(), report: false });
      const budget = Math.round((full.tokens.total.promptTokens + full.tokens.total.completionTokens) / 3);
      const d = dir();
      const stopped = await runScenario(base, { patch: { 'engine.inFlight': inFlight, budget: { tokens: budget } }, outDir: d, report: false });
      expect(stopped.interrupted).toBe(true);
      expect(stopped.budget).toMatchObject({ limit: 'tokens', budget });
      expect(stopped.summary.tasks).toBeGreaterThan(0);
      expect(stopped.summary.tasks).toBeLessThan(40);
      // Committed work stays within the budget (the estimate stopped it before the next task).
      expect(stopped.budget!.spent).toBeLessThanOrEqual(budget);
      const run = JSON.parse(readFileSync(path.join(d, 'run.json'), 'utf8')) as { status: string; budgetStop: { limit: string } };
      expect(run.status).toBe('budget');
      expect(run.budgetStop.limit).toBe('tokens');
      const last = events(d).at(-1)!;
      expect(last).toMatchObject({ type: 'run.budget', limit: 'tokens', budget, committed: stopped.summary.tasks });

      const resumed = await resumeRun(d, { patch: { budget: { tokens: budget * 100 } }, report: false });
      expect(resumed.interrupted).toBeUndefined();
      expect(stable(resumed.summary)).toEqual(stable(full));
      expect(JSON.parse(readFileSync(path.join(d, 'run.json'), 'utf8')).config.budget).toEqual({ tokens: budget * 100 });
    });
  }

  it('with tasks in flight, lets them commit and starts none after, and stop-then-resume is deterministic', async () => {
    // As after Ctrl-C, the tasks after the stop start later, from a newer pool, than in an
    // unbudgeted run: a different schedule, but the same one every time.
    const once = async () => {
      const d = dir();
      const stopped = await runScenario(base, { patch: { 'engine.inFlight': 4, budget: { completionTokens: 60_000 } }, outDir: d, report: false });
      expect(stopped.budget?.limit).toBe('completionTokens');
      const resumed = await resumeRun(d, { patch: { budget: { completionTokens: 10_000_000 } }, report: false });
      expect(resumed.summary.tasks).toBe(40);
      return [stopped.summary.tasks, stable(resumed.summary)] as const;
    };
    const [a, b] = [await once(), await once()];
    expect(a[0]).toBe(b[0]);
    expect(a[1]).toEqual(b[1]);
  });

  it('counts what calls cost at the configured prices, and stops on a dollar budget', async () => {
    const priced = withOverrides(base, { prices: { sim: { input: 0.5, output: 2 } } });
    const { summary } = await runScenario(priced, { outDir: dir(), report: false });
    const t = summary.tokens.total;
    // Whole nano-dollars per call: within a nano-dollar per call of the exact figure.
    expect(Math.abs(t.costNanoUsd! - (t.promptTokens * 0.5 + t.completionTokens * 2) * 1000)).toBeLessThanOrEqual(t.calls);
    const usd = t.costNanoUsd! / 1e9 / 2;
    const stopped = await runScenario(priced, { patch: { budget: { usd } }, outDir: dir(), report: false });
    expect(stopped.budget?.limit).toBe('usd');
    expect(stopped.summary.tasks).toBeLessThan(40);
  });

  it('refuses a budget in dollars without prices, and a budget that is not positive, naming the field', () => {
    expect(() => parseScenario({ ...base.scenario, budget: { usd: 1 } }, 's.json')).toThrow(/s\.json: budget\.usd: a budget in US dollars needs prices/);
    expect(() => parseScenario({ ...base.scenario, budget: { tokens: -5 } }, 's.json')).toThrow(/s\.json: budget\.tokens: /);
    expect(() => parseScenario({ ...base.scenario, budget: {} }, 's.json')).toThrow(/s\.json: budget: give at least one of/);
    expect(() => parseScenario({ ...base.scenario, sweepBudget: { usd: 3 } }, 's.json')).toThrow(/s\.json: sweepBudget\.usd: a budget in US dollars needs prices/);
  });

  it('from the command line: run --budget-tokens exits 4, resume --budget-tokens N ends it as an unbudgeted run', async () => {
    const short = withOverrides(base, { stream: { tasks: 12 } });
    const { summary: full } = await runScenario(short, { outDir: dir(), report: false });
    const budget = Math.round((full.tokens.total.promptTokens + full.tokens.total.completionTokens) / 2);
    const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8', timeout: 120_000 });
    const d = dir();
    const stopped = cli('run', 'scenarios/quickstart.json', '--tasks', '12', '--budget-tokens', String(budget), '--no-report', '--quiet', '--out', d);
    expect(stopped.status, stopped.stderr).toBe(4);
    expect(stopped.stdout).toMatch(new RegExp(`budget spent after \\d+ committed tasks .*evochamber resume ${d} --budget-tokens N`));
    expect(events(d).at(-1)!.type).toBe('run.budget');
    const resumed = cli('resume', d, '--budget-tokens', String(budget * 100), '--no-report', '--quiet', '--json');
    expect(resumed.status, resumed.stderr).toBe(0);
    const summary = JSON.parse(resumed.stdout.trim().split('\n').at(-1)!) as RunSummary;
    expect(stable(summary)).toEqual(stable(full));
  });

  it('gives one line and exit 2 for a bad budget or price flag', () => {
    const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'run', 'scenarios/quickstart.json', '--tasks', '2', '--out', dir(), ...args], { encoding: 'utf8', timeout: 60_000 });
    for (const [args, msg] of [
      [['--budget-tokens=-3'], /--budget-tokens takes a whole number > 0, got "-3"/],
      [['--budget-usd', 'abc'], /--budget-usd takes a number > 0, got "abc"/],
      [['--price', 'gpt-9=1/2'], /--price: unknown model "gpt-9" \(this scenario's models: sim\)/],
      [['--price', 'sim=cheap'], /--price "sim=cheap": expected MODEL=INPUT\/OUTPUT/],
    ] as const) {
      const r = cli(...args);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toMatch(msg);
    }
  });
});
