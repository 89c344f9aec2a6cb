import { describe, expect, it } from 'vitest';
import { splitReasoning } from '../../../src/llm/openai/reasoning';
import { retryAfterMs } from '../../../src/llm/openai/retry-policy';

describe('reasoning output', () => {
  it('takes <think> blocks out of the answer', () => {
    expect(splitReasoning('<think>\nstep 1\n</think>\n\\boxed{4}')).toEqual({ text: '\\boxed{4}', reasoning: 'step 1' });
    expect(splitReasoning('a <think>x</think> b <think>y</think>')).toEqual({ text: 'a  b', reasoning: 'x\ny' });
  });

  it('handles a block opened by the chat template, an unclosed block, and reasoning_content', () => {
    expect(splitReasoning('thinking in the template\n</think>\nAnswer: 3')).toEqual({ text: 'Answer: 3', reasoning: 'thinking in the template' });
    expect(splitReasoning('Answer: <think>cut off here')).toEqual({ text: 'Answer:', reasoning: 'cut off here' });
    expect(splitReasoning('Answer: 3', 'separate field')).toEqual({ text: 'Answer: 3', reasoning: 'separate field' });
    expect(splitReasoning('plain')).toEqual({ text: 'plain', reasoning: '' });
  });
});

describe('retry-after headers', () => {
  const h = (o: Record<string, string>) => new Headers(o);
  it('prefers retry-after-ms, then retry-after in seconds or as an HTTP date', () => {
    expect(retryAfterMs(h({ 'retry-after-ms': '250', 'retry-after': '3' }), 0)).toBe(250);
    expect(retryAfterMs(h({ 'retry-after': '3' }), 0)).toBe(3000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(h({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }), now)).toBe(5000);
    expect(retryAfterMs(h({}), 0)).toBeUndefined();
    expect(retryAfterMs(h({ 'retry-after': '99999' }), 0)).toBe(120_000);
  });
});
