import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { getGenerator } from '../../src/tasks/generators';
import { loadNicheSpecs, parseNicheSpec } from '../../src/tasks/niche-schema';

const GOOD = {
  id: 'algebra',
  domain: 'math',
  title: 'Solving for x',
  description: 'Solve equations for x.',
  keywords: ['algebra', 'equations'],
  generator: 'algebra',
  difficulties: [1, 2, 3],
  answerFormat: 'Give the final answer as \\boxed{...}.',
};

const dirs: string[] = [];
/** A temp folder holding the given files (name → JSON value or raw text). */
function folder(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'niches-'));
  dirs.push(dir);
  for (const [name, body] of Object.entries(files)) {
    writeFileSync(join(dir, name), typeof body === 'string' ? body : JSON.stringify(body));
  }
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('parseNicheSpec', () => {
  it('accepts a good spec unchanged', () => {
    expect(parseNicheSpec(GOOD, 'niches/algebra.json')).toEqual(GOOD);
  });

  it('names the file and the field for a wrong type', () => {
    expect(() => parseNicheSpec({ ...GOOD, keywords: 'algebra' }, 'niches/algebra.json')).toThrow(
      /^niches\/algebra\.json: keywords: expected array/,
    );
  });

  it('rejects unknown fields, naming them (top level and nested)', () => {
    expect(() => parseNicheSpec({ ...GOOD, colour: 'blue' }, 'niches/algebra.json')).toThrow(
      'niches/algebra.json: colour: unknown field',
    );
    const nested = { ...GOOD, generator: undefined, dataset: { format: 'gsm8k', path: 'x.jsonl', split: 'test' } };
    expect(() => parseNicheSpec(nested, 'n.json')).toThrow('n.json: dataset.split: unknown field');
  });

  it('points into arrays and enums', () => {
    expect(() => parseNicheSpec({ ...GOOD, difficulties: [1, 'two'] }, 'a.json')).toThrow(/a\.json: difficulties\.1: expected number/);
    expect(() => parseNicheSpec({ ...GOOD, domain: 'poetry' }, 'a.json')).toThrow(/a\.json: domain: /);
  });

  it('requires exactly one task source', () => {
    expect(() => parseNicheSpec({ ...GOOD, generator: undefined }, 'a.json')).toThrow(/generator: expected exactly one/);
    const both = { ...GOOD, dataset: { format: 'gsm8k', path: 'x.jsonl' } };
    expect(() => parseNicheSpec(both, 'a.json')).toThrow(/generator: expected exactly one/);
  });
});

describe('loadNicheSpecs', () => {
  it('loads every *.json in a folder, sorted by file name, ignoring other files', () => {
    const dir = folder({ 'b.json': { ...GOOD, id: 'b' }, 'a.json': { ...GOOD, id: 'a' }, 'README.md': '# not a niche' });
    expect(loadNicheSpecs(dir).map((s) => s.id)).toEqual(['a', 'b']);
  });

  it('names the failing file and field', () => {
    const dir = folder({ 'algebra.json': { ...GOOD, keywords: 3 } });
    expect(() => loadNicheSpecs(dir)).toThrow(`${join(dir, 'algebra.json')}: keywords: expected array`);
  });

  it('names the file on broken JSON and on duplicate ids', () => {
    expect(() => loadNicheSpecs(folder({ 'x.json': '{ "id": ' }))).toThrow(/x\.json: invalid JSON/);
    const dup = folder({ 'a.json': GOOD, 'b.json': GOOD });
    expect(() => loadNicheSpecs(dup)).toThrow(/b\.json: id: duplicate niche id "algebra" \(also in .*a\.json\)/);
  });

  it('the built-in niches folder is valid and every generator it names exists', () => {
    const specs = loadNicheSpecs(join(import.meta.dirname, '../../niches'));
    const builtins = specs.filter((s) => s.generator !== undefined);
    const core = ['algebra', 'arithmetic', 'list-functions', 'people-qa', 'string-functions', 'timeline-qa'];
    // The six core niches, and fourteen that stand for the paper's benchmarks (docs/niches-and-graders.md).
    const standIns = ['aime', 'aime-2022', 'aime-2023', 'aime-2024', 'aime-2025', 'codecontests', 'drop', 'gsm8k', 'hotpotqa', 'humaneval', 'math', 'math-hard', 'mbpp', 'mbpp-plus'];
    expect(builtins.map((s) => s.id).sort()).toEqual([...core, ...standIns].sort());
    const domains: Record<string, string> = {
      arithmetic: 'math', algebra: 'math', 'list-functions': 'code', 'string-functions': 'code', 'people-qa': 'qa', 'timeline-qa': 'qa',
      'competition-math': 'math',
    };
    const levels: Record<string, readonly number[]> = { 'competition-math': [3, 4, 5] };
    for (const s of builtins) {
      expect(() => getGenerator(s.generator!)).not.toThrow();
      // A niche's domain is its generator's (a core niche's generator has the niche's name).
      expect(s.domain, s.id).toBe(domains[s.generator!]);
      if (core.includes(s.id)) expect(s.difficulties).toEqual([1, 2, 3]);
      for (const d of s.difficulties) expect(levels[s.generator!] ?? [1, 2, 3], s.id).toContain(d);
    }
  });

});
