import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, runScenario } from '../../../src/index';
import { loadGsm8k } from '../../../src/tasks/datasets/gsm8k';

const dir = mkdtempSync(path.join(tmpdir(), 'evo-gsm-'));
const rows = [
  { question: 'Ann has 3 apples and buys 4 more. How many apples does she have?', answer: 'She has 3 + 4 = 7.\n#### 7' },
  { question: 'A box holds 1,200 pens; 200 are sold. How many remain?', answer: '1,200 - 200 = 1,000\n#### 1,000' },
  { question: 'no answer marker', answer: 'just text' },
];
writeFileSync(path.join(dir, 'gsm.jsonl'), `${rows.map((r) => JSON.stringify(r)).join('\n')}\n{broken json\n`);

describe('GSM8K dataset niche', () => {
  it('loads rows, takes the answer after ####, and counts malformed rows instead of hiding them', () => {
    const { rows: got, skipped } = loadGsm8k(path.join(dir, 'gsm.jsonl'));
    expect(got.map((r) => r.hidden.answer)).toEqual(['7', '1000']);
    expect(skipped).toBe(2);
  });

  it('runs as a niche in a scenario, with skipped rows recorded', async () => {
    const file = path.join(dir, 'gsm.json');
    writeFileSync(file, JSON.stringify({ name: 'gsm', variant: 'single-agent', stream: { tasks: 4, niches: [{ id: 'gsm', dataset: { format: 'gsm8k', path: 'gsm.jsonl' } }] } }));
    const { summary } = await runScenario(loadScenario(file), { report: false, outDir: path.join(dir, 'run') });
    expect(summary.tasks).toBe(4);
    expect(Object.keys(summary.perNiche)).toEqual(['gsm']);
  });
});
