import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRng } from '../../src/core/rng';
import { BatchScheduler } from '../../src/sim/server/batch-scheduler';
import { QWEN3_8B_H100_VLLM } from '../../src/llm/latency-profiles';
import { VirtualTimer } from '../../src/sim/server/sim-timer';
import { loadScenario, runScenario } from '../../src/index';
import { withOverrides } from '../../src/engine/scenario/scenario';

/** A closed loop of `clients` clients, each sending `perClient` requests of ≈ hard-stream shape back to back. */
function schedulerLoop(fastForward: boolean, clients: number, perClient: number): { events: number; tokens: number; virtualMs: number; wallMs: number } {
  const timer = new VirtualTimer();
  const sched = new BatchScheduler(QWEN3_8B_H100_VLLM, timer, createRng('bench/latency'), { fastForward });
  const rng = createRng('bench/workload');
  let tokens = 0;
  const send = (left: number) => {
    if (left === 0) return;
    const outputTokens = Math.max(1, Math.round(800 * Math.exp(0.8 * rng.normal())));
    sched.submit({ promptTokens: 300 + rng.int(1500), outputTokens }, { onDone: () => { tokens += outputTokens; send(left - 1); } });
  };
  const t0 = performance.now();
  for (let c = 0; c < clients; c++) send(perClient);
  const events = timer.run(Infinity, 100_000_000);
  return { events, tokens, virtualMs: timer.now(), wallMs: performance.now() - t0 };
}

/**
 * Virtual time (docs/backends.md, "Virtual time"): the batch scheduler's events per second step by step and
 * fast-forwarded, then a sequential run of the hard stream in virtual time beside the same run
 * without latency. `npm run bench -- virtual` (600 tasks; VIRTUAL_TASKS=N for fewer). Prints only.
 */
export async function benchVirtualTime(): Promise<void> {
  for (const clients of [1, 8]) {
    const step = schedulerLoop(false, clients, 200);
    const fast = schedulerLoop(true, clients, 200);
    const same = step.virtualMs === fast.virtualMs ? 'identical' : `DIFFERENT (${step.virtualMs} vs ${fast.virtualMs})`;
    console.log(`scheduler, ${clients} client(s) × 200 requests, ${step.tokens} tokens: step by step ${step.events} events in ${step.wallMs.toFixed(0)} ms (${Math.round(step.events / (step.wallMs / 1000))} events/s); fast-forward ${fast.events} events in ${fast.wallMs.toFixed(0)} ms (${(step.wallMs / fast.wallMs).toFixed(0)}× faster); end times ${same}`);
  }
  const tasks = Number(process.env.VIRTUAL_TASKS ?? 600);
  const dir = mkdtempSync(path.join(tmpdir(), 'evo-bench-virtual-'));
  const hard = loadScenario(path.resolve('scenarios/hard.json'));
  for (const latency of [undefined, 'qwen3-8b-h100-vllm', 'api-small']) {
    const loaded = latency ? withOverrides(hard, { model: { backend: 'sim', latency } } as never) : hard;
    const t0 = performance.now();
    const { summary: s } = await runScenario(loaded, { patch: { 'stream.tasks': tasks, 'engine.inFlight': 1 }, report: false, outDir: path.join(dir, latency ?? 'none') } as Parameters<typeof runScenario>[1]);
    const wall = (performance.now() - t0) / 1000;
    const v = s.virtualSeconds === undefined ? '' : `; ${(s.virtualSeconds / 3600).toFixed(2)} virtual hours, ${s.tokensPerSecond} tok/s, utilization ${s.utilization}`;
    console.log(`hard, ${tasks} tasks sequential, latency ${latency ?? 'none'}: ${wall.toFixed(1)} s wall, ${s.tokens.total.calls} calls, ${s.tokens.total.completionTokens} completion tokens, accuracy ${s.accuracy}${v}`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchVirtualTime();
