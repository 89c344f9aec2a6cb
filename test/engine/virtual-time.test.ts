import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseScenario, resumeRun, runScenario, type RunSummary } from '../../src/index';
import { modelFlagsPatch, type ModelFlags } from '../../src/cli/model-flags';
import { applyScenarioPatch } from '../../src/engine/scenario/apply-patch';
import type { LoadedScenario } from '../../src/engine/scenario/scenario';

const applyModelFlags = async (l: LoadedScenario, f: ModelFlags) => applyScenarioPatch(l, await modelFlagsPatch(l, f));

const dir = mkdtempSync(path.join(tmpdir(), 'evo-virtual-'));
const scenario = (model: Record<string, unknown> = { backend: 'sim', latency: 'qwen3-8b-h100-vllm' }, tasks = 12) => parseScenario({
  name: 'virtual', seed: 4,
  stream: { order: 'shuffled', tasks, niches: [{ id: 'arithmetic' }, { id: 'algebra' }, { id: 'people-qa' }, { id: 'list-functions' }] },
  agents: { count: 4 }, model,
}, 'virtual.json', dir);
const stable = (s: RunSummary) => JSON.stringify({ ...s, runDir: undefined, timing: undefined, reportPath: undefined });
let n = 0;
const run = (loaded: ReturnType<typeof scenario>, inFlight: number, extra: Record<string, unknown> = {}) =>
  runScenario(loaded, { patch: { 'engine.inFlight': inFlight }, report: false, outDir: path.join(dir, `r${n++}`), ...extra } as Parameters<typeof runScenario>[1]);

describe('virtual time (--latency)', () => {
  it('adds virtualSeconds, tokensPerSecond and utilization (sequential)', async () => {
    const plain = (await run(scenario({ backend: 'sim' }), 1)).summary;
    const timed = (await run(scenario(), 1)).summary;
    expect(timed.latency).toBe('qwen3-8b-h100-vllm');
    expect(timed.virtualSeconds!).toBeGreaterThan(0);
    expect(timed.tokensPerSecond!).toBeGreaterThan(0);
    expect(timed.utilization!).toBeGreaterThan(0);
    expect(timed.utilization!).toBeLessThan(1);
    // Generated tokens (aborted requests' partial output included) over virtual seconds: of the order of the billed ones.
    expect(timed.tokensPerSecond! * timed.virtualSeconds!).toBeGreaterThan(0.5 * timed.tokens.total.completionTokens);
    expect(timed.tokensPerSecond! * timed.virtualSeconds!).toBeLessThan(1.5 * timed.tokens.total.completionTokens);
    // Requests take time here, so speculative completion really cancels some (in zero time none is
    // outstanding when the majority is decided): the rest of the summary may differ from the plain run's.
    expect(timed.tasks).toBe(plain.tasks);
    expect(plain.virtualSeconds).toBeUndefined();
  });

  it('is deterministic for a seed (code grading in a real sandbox included), and more tasks in flight take less virtual time', async () => {
    const a = (await run(scenario(), 8)).summary;
    const b = (await run(scenario(), 8)).summary;
    expect(stable(b)).toBe(stable(a));
    const sequential = (await run(scenario(), 1)).summary;
    expect(sequential.virtualSeconds!).toBeGreaterThan(2 * a.virtualSeconds!);
    expect(a.utilization!).toBeGreaterThan(sequential.utilization!);
  });

  it('api-small runs too (decode speed independent of load)', async () => {
    const s = (await run(scenario({ backend: 'sim', latency: 'api-small' }, 6), 2)).summary;
    expect(s.latency).toBe('api-small');
    // 70 tok/s per request, two tasks at a time and several calls per task in parallel: well above one stream's 70.
    expect(s.tokensPerSecond!).toBeGreaterThan(70);
    expect(s.utilization).not.toBeNull();
  });

  it('a resumed run ends with the same summary, virtual figures included, as an uninterrupted one (journal answers take virtual time too)', async () => {
    const reference = (await run(scenario(), 1)).summary;
    const stop = new AbortController();
    let done = 0;
    const outDir = path.join(dir, 'interrupted');
    // Sequential, so the stop leaves nothing in flight; journaled, so the resume serves the first
    // tasks' answers from the journal (through the virtual server, which must time them the same).
    const first = await runScenario(scenario(), {
      patch: { 'engine.inFlight': 1 }, report: false, outDir, stop: stop.signal, journal: true,
      onProgress: () => { if (++done === 5) stop.abort(); },
    } as Parameters<typeof runScenario>[1]);
    expect(first.interrupted).toBe(true);
    const resumed = await resumeRun(outDir, { report: false } as Parameters<typeof resumeRun>[1]);
    expect(resumed.summary.virtualSeconds).toBe(reference.virtualSeconds);
    expect(stable(resumed.summary)).toBe(stable(reference));
  });

  it('is refused with an HTTP backend, in the scenario file and on the command line, naming the field or flag', async () => {
    expect(() => scenario({ backend: 'openai', endpoints: [{ baseURL: 'http://127.0.0.1:1/v1', model: 'm' }], latency: 'api-small' }))
      .toThrow(/virtual\.json: model\.latency: virtual time runs only the in-process simulator/);
    expect(() => scenario({ backend: 'sim', latency: 'h200' })).toThrow(/model\.latency: unknown latency profile \(profiles: qwen3-8b-h100-vllm, api-small\)/);
    const plain = scenario({ backend: 'sim' });
    await expect(applyModelFlags(plain, { latency: 'api-small', 'base-url': ['http://127.0.0.1:1/v1'] })).rejects.toThrow(/--latency runs the in-process simulator/);
    await expect(applyModelFlags(plain, { latency: 'nope' })).rejects.toThrow(/--latency: unknown profile "nope"/);
    const http = scenario({ backend: 'openai', endpoints: [{ baseURL: 'http://127.0.0.1:1/v1', model: 'm' }] });
    await expect(applyModelFlags(http, { latency: 'api-small' })).rejects.toThrow(/add --backend sim/);
    const ok = await applyModelFlags(http, { latency: 'api-small', backend: 'sim' });
    expect(ok.scenario.model).toEqual({ backend: 'sim', latency: 'api-small' });
    // --backend sim keeps a scenario's own latency.
    const kept = await applyModelFlags(scenario(), { backend: 'sim' });
    expect(kept.scenario.model).toEqual({ backend: 'sim', latency: 'qwen3-8b-h100-vllm' });
  });
});
