import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, runScenario } from '../../src/index';

const out = () => mkdtempSync(path.join(tmpdir(), 'evo-async-det-'));
const stable = (s: object) => JSON.stringify({ ...s, runDir: '', timing: null, reportPath: '' });
/** The stream's events without the ids and wall-clock stamps the log adds. */
const events = (dir: string) => readFileSync(path.join(dir, 'events.jsonl'), 'utf8').trim().split('\n')
  .map((l) => { const { id, time, ...rest } = JSON.parse(l) as Record<string, unknown>; void id; void time; return rest; });

describe('the async engine is deterministic under the simulated model', () => {
  it('with inFlight "auto" and the reflective staleness policy: same summary, same events, adaptive decisions and staleness calls included', async () => {
    const quickstart = loadScenario(path.resolve('scenarios/quickstart.json'));
    // τ = 1 makes most evolve outcomes stale, so the reflective policy calls the model often.
    const opts = { patch: { 'stream.tasks': 60, 'engine.inFlight': 'auto', 'engine.staleness': { policy: 'reflective', tau: 1 } }, report: false } as const;
    const a = await runScenario(quickstart, { ...opts, outDir: out() });
    const b = await runScenario(quickstart, { ...opts, outDir: out() });
    expect(stable(a.summary)).toBe(stable(b.summary));
    expect(events(a.runDir)).toEqual(events(b.runDir));
    // Auto runs the zero-time simulator in virtual time (it needs a clock to measure rates).
    expect(a.summary.inFlight).toBe('auto');
    expect(a.summary.latency).toBe('qwen3-8b-h100-vllm');
    expect(a.summary.virtualSeconds).toBeGreaterThan(0);
    expect(a.summary.staleness.reflectiveCalls).toBeGreaterThan(0);
    expect(a.summary.staleness.kept + a.summary.staleness.patched + a.summary.staleness.dropped).toBeGreaterThan(0);
    expect(a.summary.evolve.maxGap).toBeGreaterThan(1);
    expect(events(a.runDir).filter((e) => e.type === 'engine.concurrency').length).toBeGreaterThan(0);
  }, 180_000);
});
