import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, runScenario } from '../../src/index';
import { loadBuiltinNicheSpecs } from '../../src/tasks/niche-registry';

const out = () => mkdtempSync(path.join(tmpdir(), 'evo-paper-streams-'));

/** Each simulated stream, the paper scenario over real data it stands for, and its niches. */
const STREAMS = [
  { file: 'hard-math-5', paper: 'paper-hard-math', niches: ['math-hard', 'aime-2022', 'aime-2023', 'aime-2024', 'aime-2025'] },
  { file: 'hard-code', paper: 'paper-hard-code', niches: ['mbpp-plus', 'codecontests'] },
  { file: 'aflow-stream', paper: 'paper-aflow-stream', niches: ['gsm8k', 'hotpotqa', 'mbpp', 'math', 'humaneval', 'drop'] },
];

describe('the paper\'s three streams in the simulated world', () => {
  it.each(STREAMS)('$file names the same niches as $paper, each a generated niche of the same domain', ({ file, paper, niches }) => {
    const sim = loadScenario(path.resolve(`scenarios/${file}.json`)).scenario;
    expect(sim.stream.niches.map((n) => n.id)).toEqual(niches);
    // The real-data scenario is read as JSON: its dataset files are not shipped, so it does not load.
    const real = (JSON.parse(readFileSync(path.resolve(`scenarios/${paper}.json`), 'utf8')) as { stream: { niches: { id: string }[] } }).stream.niches.map((n) => n.id);
    expect(real).toEqual(niches);
    for (const id of niches) {
      const spec = loadBuiltinNicheSpecs().get(id)!;
      expect(spec.generator, id).toBeDefined();
    }
  });

  it('AIME is the hardest math niche and CodeContests harder than MBPP+', () => {
    const specs = loadBuiltinNicheSpecs();
    const top = (id: string) => Math.min(...specs.get(id)!.difficulties);
    expect(top('aime')).toBeGreaterThanOrEqual(Math.max(...specs.get('math-hard')!.difficulties));
    expect(top('math-hard')).toBeGreaterThan(Math.max(...specs.get('math')!.difficulties));
    expect(top('codecontests')).toBeGreaterThan(Math.max(...specs.get('mbpp-plus')!.difficulties));
  });

  it.each(STREAMS)('$file loads and runs 10 tasks on the simulated model, every task graded', async ({ file, niches }) => {
    const { summary } = await runScenario(loadScenario(path.resolve(`scenarios/${file}.json`)), { patch: { 'stream.tasks': 10 }, report: false, outDir: out() });
    expect(summary.graded).toBe(10);
    expect(summary.failures).toBe(0);
    for (const id of Object.keys(summary.perNiche)) expect(niches).toContain(id);
  });

  it('the hard streams draw their niches in proportion to the benchmarks\' sizes; aflow-stream runs in blocks of 100', () => {
    const math = loadScenario(path.resolve('scenarios/hard-math.json')).scenario.stream;
    expect([math.order, math.tasks, math.niches.map((n) => n.weight)]).toEqual(['shuffled', 262 + 4 * 30, [262, 120]]);
    // The paper's five labels: each AIME year a niche of 30, the four a group a target can name.
    const five = loadScenario(path.resolve('scenarios/hard-math-5.json')).scenario.stream;
    expect([five.tasks, five.niches.map((n) => n.weight)]).toEqual([262 + 4 * 30, [262, 30, 30, 30, 30]]);
    const specs = loadBuiltinNicheSpecs();
    expect(five.niches.slice(1).map((n) => specs.get(n.id)!.group)).toEqual(['aime', 'aime', 'aime', 'aime']);
    const code = loadScenario(path.resolve('scenarios/hard-code.json')).scenario.stream;
    expect([code.order, code.tasks, code.niches.map((n) => n.weight)]).toEqual(['shuffled', 257 + 165, [257, 165]]);
    const aflow = loadScenario(path.resolve('scenarios/aflow-stream.json')).scenario.stream;
    expect([aflow.order, aflow.tasks, aflow.blockSize]).toEqual(['blocks', 600, 100]);
  });
});
