import { TIME_SCALE, virtualAgainstHttp } from '../fixtures/virtual-vs-http';

/**
 * `npm run bench -- virtual-vs-http`: does virtual time predict what the same run takes against
 * serve-sim in real time? Three pairs of runs (16 math tasks, 8 in flight, qwen3-8b-h100-vllm,
 * serve-sim --time-scale 30); each ratio is wall time × 30 over virtual seconds. The goal is within
 * 15 % of 1. Printed, never asserted: a loaded machine stretches the wall time.
 */
export async function benchVirtualVsHttp(): Promise<void> {
  const ratios: number[] = [];
  for (let i = 0; i < 3; i++) {
    const { virtual, modelSeconds, ratio } = await virtualAgainstHttp();
    ratios.push(ratio);
    console.log(`pair ${i + 1}: virtual ${virtual.virtualSeconds!.toFixed(1)} s, HTTP ${modelSeconds.toFixed(1)} s (wall × ${TIME_SCALE}), ratio ${ratio.toFixed(3)}`);
  }
  const sorted = [...ratios].sort((a, b) => a - b);
  const median = sorted[1]!;
  console.log(`median ratio ${median.toFixed(3)}: ${Math.abs(median - 1) < 0.15 ? 'within' : 'NOT within'} 15 % of 1`);
}
