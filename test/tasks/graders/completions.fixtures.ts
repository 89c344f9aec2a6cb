/** Raw completions shaped like real LLM output (reasoning models, chat models, code models). */
import type { Domain, Task } from '../../../src/tasks/task';

/** A task with only the fields graders read. */
export function taskOf(domain: Domain, answer: string, extra: Partial<Task['hidden']> = {}): Task {
  return {
    id: `${domain}-0001`,
    index: 0,
    niche: `${domain}-fixture`,
    domain,
    difficulty: 1,
    block: 0,
    question: 'fixture',
    hidden: { answer, distractors: [], ...extra },
  };
}

/** Math completions and the answer each should yield. */
export const MATH_COMPLETIONS: readonly { name: string; text: string; extracted: string | null }[] = [
  {
    name: 'reasoning trace with a wrong draft inside <think>',
    text: '<think>\nLet me try. 3/4 + 1/4 ... maybe \\boxed{7}? No.\n</think>\n\nAdding gives $\\boxed{\\frac{3}{4}}$.',
    extracted: '\\frac{3}{4}',
  },
  {
    name: 'stray </think> from a chat template that opened the tag in the prompt',
    text: 'so x is 9 or 10, check... 10 works.\n</think>\nThe answer is $\\boxed{10}$',
    extracted: '10',
  },
  { name: 'truncated thinking with no answer', text: '<think>\nFirst compute 12 * 7 = 84, then', extracted: null },
  {
    name: 'several boxes: the last one wins, nested braces kept',
    text: 'Try \\boxed{2}. Actually the correct value is \\boxed{\\frac{1}{\\sqrt{2}}}.',
    extracted: '\\frac{1}{\\sqrt{2}}',
  },
  { name: '\\fbox', text: 'Hence \\fbox{42}.', extracted: '42' },
  { name: 'GSM8K-style #### line with thousands comma', text: 'She earns 1,200 + 34.\n#### 1,234', extracted: '1,234' },
  { name: 'markdown "Final Answer"', text: 'Steps...\n\n**Final Answer:** $12$ dollars.', extracted: '12 dollars' },
  { name: '"The final answer is" prose', text: 'So the final answer is $42$. I hope it is correct.', extracted: '42' },
  { name: 'Answer: with an assignment', text: 'Solving, we get x = 7.\nAnswer: x = 7', extracted: 'x = 7' },
  { name: 'no marker: last number', text: 'He had 3 apples, then bought 4.5 more kilos', extracted: '4.5' },
  { name: 'no marker: a negative last number keeps its sign', text: 'The temperature fell to -12.5 degrees', extracted: '-12.5' },
  { name: 'no marker: a range is not a negative number', text: 'It takes 2-5 days', extracted: '5' },
  { name: 'nothing numeric at all', text: 'I am not sure how to solve this.', extracted: null },
];

/** QA completions and the span each should yield. */
export const QA_COMPLETIONS: readonly { name: string; text: string; extracted: string | null }[] = [
  {
    name: 'think block, then Answer: line',
    text: '<think>The passage says Lyon? No, Paris.</think>\nAnswer: Paris.',
    extracted: 'Paris',
  },
  { name: 'last Answer: wins, quotes trimmed', text: 'Answer: Lyon\nWait.\nFinal answer: "Marie Curie"', extracted: 'Marie Curie' },
  { name: 'boxed span', text: 'The organization is \\boxed{\\text{Acme Corp}}.', extracted: 'Acme Corp' },
  { name: 'markdown bold answer', text: '**Answer:** **The Eiffel Tower**', extracted: 'The Eiffel Tower' },
  { name: 'no marker: last non-empty line', text: 'Reading the passage carefully.\n\nOslo\n\n', extracted: 'Oslo' },
  { name: 'only thinking', text: '<think>hmm', extracted: null },
];

/** Code completions and the program each should yield. */
export const CODE_COMPLETIONS: readonly { name: string; text: string; extracted: string | null }[] = [
  {
    name: 'think block with a draft, then the final ```python block',
    text: '<think>\n```python\ndef add(a, b):\n    return a - b\n```\nwrong sign\n</think>\nHere it is:\n```python\ndef add(a, b):\n    return a + b\n```\nThis adds.',
    extracted: 'def add(a, b):\n    return a + b',
  },
  {
    name: 'a python block followed by a usage block in another language',
    text: '```python\ndef f(x):\n    return x\n```\nRun with:\n```bash\npython f.py\n```',
    extracted: 'def f(x):\n    return x',
  },
  { name: 'untagged fence', text: '```\ndef g():\n    return 1\n```', extracted: 'def g():\n    return 1' },
  { name: 'fence cut off by the token limit', text: 'Sure!\n```python\ndef h(n):\n    return n * 2', extracted: 'def h(n):\n    return n * 2' },
  { name: 'bare code without fences', text: 'def k():\n    return 3', extracted: 'def k():\n    return 3' },
  { name: 'prose only', text: 'I would use a loop over the list.', extracted: null },
];
