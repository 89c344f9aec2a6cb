import OpenAI from 'openai';
import { pathToFileURL } from 'node:url';
import { systemClock } from '../../src/core/clock';
import { predictedStepMs, QWEN3_8B_H100_VLLM } from '../../src/llm/latency-profiles';
import { startServeSim } from '../../src/sim/server/serve-sim';

/** docs/latency-profiles.md's table: per-request decode and aggregate output tok/s by concurrency. */
const TABLE: Record<number, [string, string]> = { 1: ['137', '135'], 8: ['130', '900'], 64: ['77', '4.9k'] };
const MAX_TOKENS = 128;
/**
 * ≈ 1k tokens of prompt (4 characters per token): a shared ≈ 900-token prefix, as EvoChamber's
 * prompts share persona and instructions (served from the prefix cache), and a distinct tail.
 */
const SHARED = 'You are a careful problem solver. Summarise the serving log below in one line. '.repeat(46);
const prompt = (i: number) => `${SHARED}\nRequest ${i}: ${`entry ${i} `.repeat(40)}`;

interface Sample { ttftMs: number; totalMs: number; tokens: number }

async function one(client: OpenAI, i: number): Promise<Sample> {
  const t0 = systemClock.now();
  let ttft: number | undefined;
  let tokens = 0;
  const stream = await client.chat.completions.create({
    model: 'sim', messages: [{ role: 'user', content: prompt(i) }], max_tokens: MAX_TOKENS, stream: true, stream_options: { include_usage: true },
  });
  for await (const c of stream) {
    if (ttft === undefined && c.choices[0]?.delta?.content !== undefined) ttft = systemClock.now() - t0;
    if (c.usage) tokens = c.usage.completion_tokens;
  }
  const totalMs = systemClock.now() - t0;
  return { ttftMs: ttft ?? totalMs, totalMs, tokens };
}

/**
 * serve-sim's `qwen3-8b-h100-vllm` profile in real time, driven by the official openai client
 * (streaming, closed loop) at concurrency 1, 8 and 64; prints achieved figures beside what the
 * profile predicts and what docs/latency-profiles.md's table says. Prints only; asserts nothing.
 */
export async function benchServeSim(): Promise<void> {
  const sim = await startServeSim({ port: 0, profile: 'qwen3-8b-h100-vllm', seed: 1 });
  const client = new OpenAI({ baseURL: sim.url, apiKey: 'EMPTY', maxRetries: 0, timeout: 120_000 });
  console.log(`serve-sim ${sim.profile.name}, real time; prompts ≈1k tokens (≈900 shared), max_tokens ${MAX_TOKENS}, streamed, closed loop`);
  console.log('concurrency  requests  req/s   out tok/s   per-req tok/s  mean TTFT ms | predicted per-req / aggregate | docs/latency-profiles.md per-req / aggregate');
  try {
    let next = 0;
    for (const [c, n] of [[1, 6], [8, 24], [64, 128]] as const) {
      const samples: Sample[] = [];
      const t0 = systemClock.now();
      let issued = 0;
      await Promise.all(Array.from({ length: c }, async () => {
        while (issued < n) { issued++; samples.push(await one(client, next++)); }
      }));
      const secs = (systemClock.now() - t0) / 1000;
      const tokens = samples.reduce((a, s) => a + s.tokens, 0);
      const perReq = samples.reduce((a, s) => a + (s.tokens - 1) / Math.max(1e-3, (s.totalMs - s.ttftMs) / 1000), 0) / samples.length;
      const ttft = samples.reduce((a, s) => a + s.ttftMs, 0) / samples.length;
      const predicted = 1000 / predictedStepMs(QWEN3_8B_H100_VLLM, c, 1000 + MAX_TOKENS / 2);
      const [tPer, tAgg] = TABLE[c]!;
      console.log(
        `${String(c).padStart(11)}  ${String(samples.length).padStart(8)}  ${(samples.length / secs).toFixed(2).padStart(5)}  ${tokens / secs >= 1000 ? `${(tokens / secs / 1000).toFixed(2)}k` : (tokens / secs).toFixed(0)}`.padEnd(45)
        + `${perReq.toFixed(0).padStart(13)}  ${ttft.toFixed(0).padStart(11)} | ${predicted.toFixed(0).padStart(9)} / ${(predicted * c).toFixed(0).padStart(6)}${' '.repeat(11)}| ${tPer.padStart(9)} / ${tAgg}`,
      );
    }
    console.log('(achieved aggregate includes prefill and ramp-up of a closed loop; per-request decode is measured between the first and last token)');
  } finally {
    await sim.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchServeSim();
