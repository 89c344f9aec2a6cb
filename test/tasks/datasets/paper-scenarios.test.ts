import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseScenario, runScenario, ScenarioError } from '../../../src/index';
import { buildNiches, GraderSet } from '../../../src/tasks/niche-registry';
import { DATASET_FORMATS } from '../../../src/tasks/datasets/dataset-rows';
import { FIXTURES } from './fixture-files';

const FIXTURE_FILE: Record<string, string> = {
  gsm8k: 'gsm8k.jsonl', math: 'math.jsonl', aime: 'aime.json', mbpp: 'mbpp.jsonl', 'mbpp-plus': 'mbpp-plus.jsonl',
  humaneval: 'humaneval.jsonl', codecontests: 'codecontests.jsonl', hotpotqa: 'hotpotqa.json', drop: 'drop.jsonl',
};
const PAPER = ['paper-hard-math', 'paper-hard-code', 'paper-aflow-stream'];
const readScenario = (name: string): unknown => JSON.parse(readFileSync(path.resolve('scenarios', `${name}.json`), 'utf8'));

/** A temp checkout: `scenarios/` (where the paper scenarios resolve from) and, if asked, `data/` filled with the fixtures. */
function workspace(withData: boolean): string {
  const root = mkdtempSync(path.join(tmpdir(), 'evo-paper-'));
  mkdirSync(path.join(root, 'scenarios'));
  if (withData) {
    mkdirSync(path.join(root, 'data'));
    for (const [format, fixture] of Object.entries(FIXTURE_FILE)) copyFileSync(path.join(FIXTURES, fixture), path.join(root, 'data', `${format}.jsonl`));
    // paper-hard-math has a niche per AIME year 2022-2025: a usable row for each (the shared fixture lacks 2023 and 2025).
    const years = [2022, 2023, 2024, 2025].map((year) => ({ problem: `Find ${year} minus ${year - 7}.`, answer: '7', year }));
    writeFileSync(path.join(root, 'data', 'aime.jsonl'), years.map((r) => JSON.stringify(r)).join('\n'));
  }
  return path.join(root, 'scenarios');
}

describe("the paper's three streams", () => {
  it('without the data, loading names the dataset path field and says the file is missing', () => {
    const dir = workspace(false);
    let err: unknown;
    try {
      parseScenario(readScenario('paper-hard-math'), 'paper-hard-math.json', dir);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ScenarioError);
    expect((err as Error).message).toBe(`paper-hard-math.json: stream.niches[0].dataset.path: dataset file not found: ${path.resolve(dir, '../data/math.jsonl')}`);
  });

  it.each(PAPER)('%s validates and builds its niches when data/ holds files in the right formats', async (name) => {
    const dir = workspace(true);
    const { scenario } = parseScenario(readScenario(name), `${name}.json`, dir);
    const graders = new GraderSet({ codeWorkers: 1, codeTimeoutMs: 3000 });
    try {
      const niches = buildNiches(scenario.stream.niches, dir, graders);
      expect([...niches.keys()]).toEqual(scenario.stream.niches.map((n) => n.id));
      if (name === 'paper-hard-math') {
        expect(niches.get('math-hard')!.spec.difficulties).toEqual([4, 5]);
        for (const y of [2022, 2023, 2024, 2025]) expect(niches.get(`aime-${y}`)!.spec.difficulties).toEqual([3]);
      }
    } finally {
      await graders.close();
    }
  });

  it('rejects a filter the format does not have, naming the field', () => {
    const bad = { name: 'b', stream: { tasks: 2, niches: [{ id: 'm', dataset: { format: 'mbpp', path: path.join(FIXTURES, 'mbpp.jsonl'), filter: { years: [2024] } } }] } };
    expect(() => parseScenario(bad, 'b.json')).toThrow('b.json: stream.niches[0].dataset.filter.years: format "mbpp" has no "years" filter (filters: none)');
  });
});

describe('every dataset format in one run', () => {
  it('grades every task and reports every niche', async () => {
    const niches = DATASET_FORMATS.map((format) => ({ id: format, dataset: { format, path: path.join(FIXTURES, FIXTURE_FILE[format]!) } }));
    const loaded = parseScenario({ name: 'all-formats', variant: 'single-agent', grading: { codeWorkers: 1 }, stream: { order: 'interleaved', tasks: 18, niches } }, 'all.json');
    const outDir = mkdtempSync(path.join(tmpdir(), 'evo-all-formats-'));
    const { summary } = await runScenario(loaded, { report: false, outDir });
    expect(summary.tasks).toBe(18);
    expect(Object.keys(summary.perNiche).sort()).toEqual([...DATASET_FORMATS].sort());
    const events = readFileSync(path.join(outDir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; niche?: string; skipped?: number });
    expect(events.filter((e) => e.type === 'task.graded')).toHaveLength(18);
    const skipped = Object.fromEntries(events.filter((e) => e.type === 'dataset.rows-skipped').map((e) => [e.niche, e.skipped]));
    expect(skipped).toEqual({ gsm8k: 2, math: 2, aime: 2, mbpp: 2, 'mbpp-plus': 2, humaneval: 2, codecontests: 2, hotpotqa: 2, drop: 3 });
  });
});
