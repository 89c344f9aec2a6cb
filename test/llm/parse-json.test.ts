import { describe, expect, it } from 'vitest';
import { parseJsonLoose } from '../../src/llm/parse-json';
import { stripThinking } from '../../src/core/text';

// Reply shapes seen from real models (reasoning models, chatty instruct models, small local models).
const replies = {
  thinkThenJson: `<think>
The user wants a lesson. Maybe {"lesson": "draft"}? No, better to be specific.
</think>
{"lesson": "Convert units first.", "meta": "Check assumptions."}`,
  orphanCloseThink: `Okay, let me think. I could answer {"lesson": "draft"}.
</think>

{"lesson": "final", "meta": "m"}`,
  unclosedThink: `<think>I will answer {"lesson": "draft"} but I am still thinking and got cut off`,
  jsonFenceWithProse: `Sure! Here is my reflection:

\`\`\`json
{
  "lesson": "Read the question twice.",
  "meta": "Slow down on word problems."
}
\`\`\`

Let me know if you need anything else.`,
  fencePreferredOverEarlierObject: `I considered {"lesson": "early"} but settled on:
\`\`\`json
{"lesson": "fenced"}
\`\`\``,
  proseAround: `After reviewing the task, my answer is {"lesson": "a", "meta": "b"} and that's all.`,
  trailingCommas: `{"lesson": "x", "tags": ["a", "b",], "meta": "y",}`,
  singleQuotes: `{'lesson': 'don't skip the units', 'meta': 'it\\'s about care'}`,
  smartQuotes: `{\u201clesson\u201d: \u201cuse the \u2018right\u2019 formula\u201d, \u201cmeta\u201d: \u201ccheck\u201d}`,
  comments: `{
  // the main takeaway
  "lesson": "x", /* inline */ "meta": "y"
}`,
  unquotedKeys: `{lesson: "x", meta_insight: "y", score: 1e-3, ok: True, none: None}`,
  bracesInStrings: `Result: {"lesson": "use a set like {1, 2} and close with }", "meta": "quote \\" and {"}`,
  nestedObjects: `{"reflection": {"lesson": "inner", "meta": "m"}, "reward": 1}`,
  latexBeforeJson: `The answer is \\boxed{42} since {x | x > 0}. {"lesson": "boxed answers work"}`,
  rawNewlineInString: `{"lesson": "line one
line two"}`,
  literalUnicodeEscape: `{"lesson": "caf\\u00e9"}`,
  windowsPathEscape: `{'lesson': 'use C:\\dev\\scratch for scratch'}`,
};

describe('parseJsonLoose', () => {
  it('skips reasoning blocks, including an orphan closing tag', () => {
    expect(parseJsonLoose(replies.thinkThenJson)).toEqual({ lesson: 'Convert units first.', meta: 'Check assumptions.' });
    expect(parseJsonLoose(replies.orphanCloseThink)).toEqual({ lesson: 'final', meta: 'm' });
  });

  it('treats an unclosed think block as reasoning, not as the answer', () => {
    expect(parseJsonLoose(replies.unclosedThink)).toBeUndefined();
  });

  it('prefers a json fence and ignores prose around it', () => {
    expect(parseJsonLoose(replies.jsonFenceWithProse)).toEqual({ lesson: 'Read the question twice.', meta: 'Slow down on word problems.' });
    expect(parseJsonLoose(replies.fencePreferredOverEarlierObject)).toEqual({ lesson: 'fenced' });
  });

  it('finds an object embedded in prose', () => {
    expect(parseJsonLoose(replies.proseAround)).toEqual({ lesson: 'a', meta: 'b' });
  });

  it('repairs trailing commas, comments and bare keys', () => {
    expect(parseJsonLoose(replies.trailingCommas)).toEqual({ lesson: 'x', tags: ['a', 'b'], meta: 'y' });
    expect(parseJsonLoose(replies.comments)).toEqual({ lesson: 'x', meta: 'y' });
    expect(parseJsonLoose(replies.unquotedKeys)).toEqual({ lesson: 'x', meta_insight: 'y', score: 0.001, ok: true, none: null });
  });

  it('repairs single and smart quotes without splitting on apostrophes', () => {
    expect(parseJsonLoose(replies.singleQuotes)).toEqual({ lesson: "don't skip the units", meta: "it's about care" });
    expect(parseJsonLoose(replies.smartQuotes)).toEqual({ lesson: 'use the \u2018right\u2019 formula', meta: 'check' });
  });

  it('does not count braces inside strings', () => {
    expect(parseJsonLoose(replies.bracesInStrings)).toEqual({ lesson: 'use a set like {1, 2} and close with }', meta: 'quote " and {' });
    expect(parseJsonLoose(replies.nestedObjects)).toEqual({ reflection: { lesson: 'inner', meta: 'm' }, reward: 1 });
  });

  it('skips brace groups that are not JSON', () => {
    expect(parseJsonLoose(replies.latexBeforeJson)).toEqual({ lesson: 'boxed answers work' });
  });

  it('handles raw newlines and escapes inside strings', () => {
    expect(parseJsonLoose(replies.rawNewlineInString)).toEqual({ lesson: 'line one\nline two' });
    expect(parseJsonLoose(replies.literalUnicodeEscape)).toEqual({ lesson: 'café' });
    expect(parseJsonLoose(replies.windowsPathEscape)).toEqual({ lesson: 'use C:\\dev\\scratch for scratch' });
  });

  it('leaves valid JSON untouched, including arrays at the top level', () => {
    const valid = { a: "it's", b: [1, 2, { c: 'x, }' }], d: 'http://x.y/z // not a comment' };
    expect(parseJsonLoose(JSON.stringify(valid))).toEqual(valid);
    expect(parseJsonLoose('  [1, 2, 3]  ')).toEqual([1, 2, 3]);
  });

  it('returns undefined for garbage and never throws', () => {
    const garbage = ['', 'no json here', '{', '{"lesson": "unterminated', '{lesson: always check}', '}{', '```json\n```', '{"a": 1 "b": 2}'];
    for (const g of garbage) expect(parseJsonLoose(g)).toBeUndefined();
    expect(parseJsonLoose(undefined as unknown as string)).toBeUndefined();
    expect(parseJsonLoose('{'.repeat(5000))).toBeUndefined();
  });
});

describe('stripThinking', () => {
  it('removes closed, orphan-closed and unclosed blocks', () => {
    expect(stripThinking('<think>a</think>b<THINK>c</THINK>d')).toBe('bd');
    expect(stripThinking('reasoning</think>answer')).toBe('answer');
    expect(stripThinking('answer<think>cut off')).toBe('answer');
  });

  it('ends a block at its first closer (an opener inside is part of it), and keeps only what follows the last stray closer', () => {
    expect(stripThinking('a<think>x<think>y</think>b')).toBe('ab');
    expect(stripThinking('a<think>x<think>y</think>b</think>c')).toBe('c');
    expect(stripThinking('r1</think>r2</thinking>answer<thinking>t</think> end')).toBe('answer end');
    expect(stripThinking('a<think>t</think>b</think>c<think>u</think>d')).toBe('cd');
    expect(stripThinking('</think>'.repeat(1000) + 'ok')).toBe('ok');
    expect(stripThinking(`x${'<think>'.repeat(1000)}`)).toBe('x');
  });
});
