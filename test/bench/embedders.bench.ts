// `npm run bench -- embedders`: the hashed embedder against use-lite (Universal Sentence Encoder
// Lite, in-process): embeddings per second, paraphrase retrieval on GSM8K- and HumanEval-style
// questions shipped in test/fixtures/paraphrases/, and what use-lite costs a 600-task run.
// EVO_EMBED_TASKS=N runs the run-time part on N tasks instead.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { cosine } from '../../src/core/vector';
import { hashedTextEmbedder } from '../../src/engine/run/embedder-choice';
import { loadScenario, runScenario } from '../../src/index';
import { withOverrides } from '../../src/engine/scenario/scenario';
import type { TextEmbedder } from '../../src/llm/text-embedder';
import { createUseLiteEmbedder } from '../../src/llm/use-lite-embedder';

interface Pair { kind: string; source: string; paraphrase: string }
const PAIRS = (JSON.parse(readFileSync(path.resolve('test/fixtures/paraphrases/questions.json'), 'utf8')) as { pairs: Pair[] }).pairs;
const EMBEDDERS: [string, () => TextEmbedder][] = [['hashed', hashedTextEmbedder], ['use-lite', createUseLiteEmbedder]];

/** Share of paraphrases whose nearest source (cosine) is their own, and the mean reciprocal rank of it. */
async function retrieval(e: TextEmbedder, pairs: readonly Pair[]): Promise<{ hit1: number; mrr: number }> {
  const sources = await e.embed(pairs.map((p) => p.source));
  const queries = await e.embed(pairs.map((p) => p.paraphrase));
  let hits = 0;
  let rr = 0;
  queries.forEach((q, i) => {
    const own = cosine(q, sources[i]!);
    const rank = 1 + sources.filter((s, j) => j !== i && cosine(q, s) >= own).length;
    if (rank === 1) hits++;
    rr += 1 / rank;
  });
  return { hit1: hits / pairs.length, mrr: rr / pairs.length };
}

const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };

/** Print the figures; exit status 1 unless use-lite retrieves paraphrases better than hashed. */
export async function benchEmbedders(): Promise<void> {
  const texts = PAIRS.flatMap((p) => [p.source, p.paraphrase]);
  console.log(`embeddings per second (${texts.length} questions; a fresh embedder, so nothing is cached)`);
  for (const [name, make] of EMBEDDERS) {
    const e = make();
    let t = performance.now();
    await e.embed(['load the model']);
    const load = performance.now() - t;
    const fresh = make();
    t = performance.now();
    for (const x of texts.slice(0, 40)) await fresh.embed([x]);
    const one = 40 / ((performance.now() - t) / 1000);
    const batch = make();
    t = performance.now();
    await batch.embed(texts);
    const all = texts.length / ((performance.now() - t) / 1000);
    console.log(`  ${name.padEnd(9)} first call (load) ${load.toFixed(0).padStart(6)} ms · one at a time ${one.toFixed(1).padStart(8)}/s · in one batch ${all.toFixed(1).padStart(8)}/s`);
  }

  console.log(`\nparaphrase retrieval: the nearest of ${PAIRS.length} source questions to each paraphrase is its own (hit@1), and the mean reciprocal rank`);
  const scores: Record<string, number> = {};
  for (const [name, make] of EMBEDDERS) {
    const cells: string[] = [];
    for (const kind of ['gsm8k', 'humaneval', 'all']) {
      const set = kind === 'all' ? PAIRS : PAIRS.filter((p) => p.kind === kind);
      const r = await retrieval(make(), set);
      if (kind === 'all') scores[name] = r.hit1;
      cells.push(`${kind} (${set.length}) hit@1 ${r.hit1.toFixed(3)} MRR ${r.mrr.toFixed(3)}`);
    }
    console.log(`  ${name.padEnd(9)} ${cells.join(' · ')}`);
  }
  const better = scores['use-lite']! > scores.hashed!;
  console.log(`  ${better ? 'ok' : 'FAILED'}: use-lite ${scores['use-lite']!.toFixed(3)} against hashed ${scores.hashed!.toFixed(3)} hit@1`);
  if (!better) process.exitCode = 1;

  const tasks = Number(process.env.EVO_EMBED_TASKS ?? 600);
  if (tasks <= 0) return;
  const base = loadScenario(path.resolve('scenarios/quickstart.json'));
  console.log(`\nrun-time cost: quickstart, evochamber, seed 1, ${tasks} tasks, simulated model (CPU seconds of this process; wall under the machine's load)`);
  for (const name of ['hashed', 'use-lite'] as const) {
    const scenario = withOverrides(base, { memory: { embedder: name } });
    const c0 = cpu();
    const t0 = performance.now();
    const { summary } = await runScenario(scenario, { patch: { seed: 1, 'stream.tasks': tasks }, report: false, outDir: path.join(mkdtempSync(path.join(tmpdir(), 'evo-bench-emb-')), 'run') });
    const wall = (performance.now() - t0) / 1000;
    console.log(`  ${name.padEnd(9)} ${(cpu() - c0).toFixed(1).padStart(7)} CPU s · ${wall.toFixed(1).padStart(7)} s wall · accuracy ${summary.accuracy.toFixed(3)} · lessons ${summary.agents.lessons}`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchEmbedders();
