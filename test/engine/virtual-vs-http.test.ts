import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { parseScenario, runScenario } from '../../src/index';

// The agreement check: virtual time predicts what a real-time run against serve-sim takes.
// serve-sim runs in its own process at --time-scale X (so the run's own CPU time is not in the
// model's timeline); math niches only: their long answers (median 1.5k tokens, ≈ 11 s of model time)
// dwarf the run's own CPU time per call (a few ms, multiplied by X on the client side), and a code
// sandbox's real CPU time would be multiplied by X too.
const X = 30;
const SEED = 3;
const TASKS = 16;
const IN_FLIGHT = 8;

const dir = mkdtempSync(path.join(tmpdir(), 'evo-virtual-http-'));
const children: ChildProcess[] = [];
afterAll(() => { for (const c of children) if (c.exitCode === null) c.kill('SIGKILL'); });

async function spawnServeSim(): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve-sim', '--port', '0', '--profile', 'qwen3-8b-h100-vllm', '--time-scale', String(X), '--seed', String(SEED)], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`serve-sim exited early with ${code}`)));
  });
  return /(http:\S+)/.exec(line)![1]!;
}

const scenario = (model: Record<string, unknown>) => parseScenario({
  name: 'virtual-vs-http', seed: SEED,
  stream: { order: 'shuffled', tasks: TASKS, niches: [{ id: 'arithmetic' }, { id: 'algebra' }] },
  agents: { count: 4 }, engine: { inFlight: IN_FLIGHT }, model,
}, 'virtual-vs-http.json', dir);

describe('virtual time agrees with a real-time run against serve-sim', () => {
  it(`virtualSeconds is within 15 % of wall time × ${X} against serve-sim --time-scale ${X} (qwen3-8b-h100-vllm, ${IN_FLIGHT} tasks in flight)`, async () => {
    const url = await spawnServeSim();
    const virtual = (await runScenario(scenario({ backend: 'sim', latency: 'qwen3-8b-h100-vllm' }), { report: false, outDir: path.join(dir, 'virtual') } as Parameters<typeof runScenario>[1])).summary;
    const t0 = performance.now();
    const http = (await runScenario(scenario({
      backend: 'openai', endpoints: [{ baseURL: url, model: 'sim', maxConcurrency: 256 }], simSideChannel: true, retries: 0,
    }), { report: false, outDir: path.join(dir, 'http') } as Parameters<typeof runScenario>[1])).summary;
    const modelSeconds = ((performance.now() - t0) / 1000) * X;
    const ratio = modelSeconds / virtual.virtualSeconds!;
    console.log(`virtual: ${virtual.virtualSeconds!.toFixed(1)} s (computed in ${virtual.timing.wallSeconds.toFixed(2)} s); HTTP against serve-sim --time-scale ${X}: ${(modelSeconds / X).toFixed(2)} s wall × ${X} = ${modelSeconds.toFixed(1)} s; ratio ${ratio.toFixed(3)}`);
    // Nearly the same work for the server. Not identical: the HTTP backend moves <think> blocks out of
    // the answer text, so later prompts (and answers) drift a little from the in-process run's.
    console.log(`completion tokens: virtual ${virtual.tokens.total.completionTokens}, HTTP ${http.tokens.total.completionTokens}; calls ${virtual.tokens.total.calls}, ${http.tokens.total.calls}`);
    expect(Math.abs(http.tokens.total.completionTokens / virtual.tokens.total.completionTokens - 1)).toBeLessThan(0.1);
    expect(Math.abs(ratio - 1)).toBeLessThan(0.15);
  }, 60_000);
});
