import { describe, expect, it } from 'vitest';
import { parseReflection } from '../../src/individual/reflection-parse';
import { MAX_JSON_INPUT } from '../../src/llm/parse-json';

describe('parseReflection', () => {
  it('reads {lesson, meta} from a reply with reasoning and a fence, trimming both', () => {
    const reply = `<think>The team got it wrong because of units.</think>
Here is my reflection:
\`\`\`json
{"lesson": "  Convert to SI units before adding.  ", "meta": " Verify assumptions early. "}
\`\`\``;
    expect(parseReflection(reply)).toEqual({ lesson: 'Convert to SI units before adding.', meta: 'Verify assumptions early.' });
  });

  it('accepts insight / meta_insight / metaInsight key variants', () => {
    expect(parseReflection('{"insight": "a", "meta_insight": "b"}')).toEqual({ lesson: 'a', meta: 'b' });
    expect(parseReflection('{"lesson": "a", "metaInsight": "b"}')).toEqual({ lesson: 'a', meta: 'b' });
    expect(parseReflection("{'Lesson': 'a', 'Meta-Insight': 'b'}")).toEqual({ lesson: 'a', meta: 'b' });
  });

  it('gives an empty meta when none is provided', () => {
    expect(parseReflection('{"lesson": "only a lesson"}')).toEqual({ lesson: 'only a lesson', meta: '' });
  });

  it('treats non-string fields as missing', () => {
    expect(parseReflection('{"lesson": 42, "meta": "m"}')).toBeUndefined();
    expect(parseReflection('{"lesson": ["a", "b"]}')).toBeUndefined();
    expect(parseReflection('{"lesson": "a", "meta": {"x": 1}}')).toEqual({ lesson: 'a', meta: '' });
  });

  it('rejects an empty lesson', () => {
    expect(parseReflection('{"lesson": "   ", "meta": "m"}')).toBeUndefined();
    expect(parseReflection('{"meta": "m"}')).toBeUndefined();
  });

  it('looks one level inside a wrapper object', () => {
    expect(parseReflection('{"reflection": {"lesson": "inner", "meta": "m"}}')).toEqual({ lesson: 'inner', meta: 'm' });
  });

  it('falls back to Lesson: / Meta: lines', () => {
    const reply = `I reflected on the outcome.
- **Lesson:** Draw the diagram before writing equations.
- **Meta:** Visualize first.
Thanks!`;
    expect(parseReflection(reply)).toEqual({ lesson: 'Draw the diagram before writing equations.', meta: 'Visualize first.' });
    expect(parseReflection('Lesson: check edge cases')).toEqual({ lesson: 'check edge cases', meta: '' });
  });

  it('ignores lines inside a think block', () => {
    expect(parseReflection('<think>Lesson: draft idea</think>\nNothing to add.')).toBeUndefined();
  });

  it('returns undefined for garbage', () => {
    for (const g of ['', 'no reflection here', '{"foo": "bar"}', 'Meta: only meta']) expect(parseReflection(g)).toBeUndefined();
  });

  it('reads labelled lines in the first MAX_JSON_INPUT characters of a runaway reply', () => {
    const filler = 'word '.repeat(MAX_JSON_INPUT / 5);
    expect(parseReflection(`Lesson: early\n${filler}\nMeta: late`)).toEqual({ lesson: 'early', meta: '' });
    expect(parseReflection(`${filler}\nLesson: late`)).toBeUndefined();
  });
});
