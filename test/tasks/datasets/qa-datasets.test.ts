import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createQaGrader } from '../../../src/tasks/graders';
import { loadDrop } from '../../../src/tasks/datasets/drop';
import { loadHotpotQa } from '../../../src/tasks/datasets/hotpotqa';
import type { GeneratedTask } from '../../../src/tasks/niche';
import { asTask, FIXTURES } from './fixture-files';

const grader = createQaGrader();
const file = (name: string) => path.join(FIXTURES, name);

/** Gold and every alias get F1 1; every distractor is graded wrong. */
async function expectGoldsRightDistractorsWrong(row: GeneratedTask): Promise<void> {
  const task = asTask(row, 'qa');
  for (const gold of [row.hidden.answer, ...(row.hidden.aliases ?? [])]) {
    const g = await grader.grade(`Reasoning...\nAnswer: ${gold}`, task);
    expect([g.reward, g.correct]).toEqual([1, true]);
  }
  for (const d of row.hidden.distractors) expect((await grader.grade(`Answer: ${d}`, task)).correct).toBe(false);
}

describe('HotpotQA dataset', () => {
  it('renders every context passage (distractor setting) into the question, both context shapes', () => {
    const { rows, skipped } = loadHotpotQa(file('hotpotqa.json'));
    expect(rows.map((r) => [r.hidden.answer, r.difficulty])).toEqual([["Arthur's Magazine", 2], ['yes', 1]]);
    expect(rows[0]!.question).toMatch(/^Passages:\n\n## Arthur's Magazine\n.*\n\n## First for Women\n.*started in 1989\.\n\nQuestion: Which magazine/s);
    expect(rows[1]!.question).toContain('## Ed Wood\nEdward Davis Wood Jr.');
    expect(skipped).toBe(2); // context not passages, no answer
  });

  it('takes distractors from the passages: same-length capitalized spans, or the other of yes/no', async () => {
    const [magazine, yes] = loadHotpotQa(file('hotpotqa.json')).rows;
    expect(magazine!.hidden.distractors).toEqual(['T.S. Arthur', 'J.H. Ingraham']);
    expect(yes!.hidden.distractors).toEqual(['no']);
    await expectGoldsRightDistractorsWrong(magazine!);
    await expectGoldsRightDistractorsWrong(yes!);
  });
});

describe('DROP dataset', () => {
  it('reads Hugging Face spans and original qa_pairs with number / date answers', () => {
    const { rows, skipped } = loadDrop(file('drop.jsonl'));
    expect(rows.map((r) => r.hidden.answer)).toEqual(['Jason Hanson', '300', '1990']);
    expect(rows[0]!.question).toMatch(/^Passage:\nTo start the season[\s\S]*\n\nQuestion: Who kicked the first field goal/);
    expect(rows[1]!.hidden.distractors).toEqual(['1990', '1,200', '2000']);
    expect(rows[0]!.hidden.distractors).toContain('Connor Barth');
    expect(skipped).toBe(3); // empty answer, no passage, broken JSON
  });

  it('gold answers get F1 1 under the QA grader; distractors do not', async () => {
    for (const row of loadDrop(file('drop.jsonl')).rows) await expectGoldsRightDistractorsWrong(row);
  });
});
