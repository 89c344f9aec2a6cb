import { describe, expect, it } from 'vitest';
import { parseDebateVote, parseField, parseInsights, parseProposals } from '../../../src/population/codream/codream-parse';

describe('CoDream phase parsing', () => {
  it('reads proposals, defaulting their niches to the task\'s and dropping unusable items', () => {
    const t = '<think>x</think>```json\n{"proposals": [{"strategy": "use the pivot", "niches": ["algebra", 3]}, {"strategy": ""}, {"strategy": "check units"}]}\n```';
    expect(parseProposals(t, 'arithmetic')).toEqual([
      { strategy: 'use the pivot', niches: ['algebra'] },
      { strategy: 'check units', niches: ['arithmetic'] },
    ]);
    expect(parseProposals('no json', 'a')).toEqual([]);
  });

  it('reads debate votes as 0-based indices within range, or null to abstain', () => {
    expect([...parseDebateVote('{"keep": [1, 3, 9, "2"], "drop": []}', 3)!]).toEqual([0, 2, 1]);
    expect(parseDebateVote('keep them all', 3)).toBeNull();
  });

  it('validates insight levels and scopes', () => {
    const t = JSON.stringify({ insights: [
      { text: 'A', level: 'subdomain', niche: 'algebra' },
      { text: 'B', level: 'cross-domain', niche: 'algebra' },
      { text: 'C', level: 'galaxy-brain', niche: 'astrology' },
      { text: '', level: 'task-local' },
    ] });
    expect(parseInsights(t, 'arithmetic', new Set(['algebra', 'arithmetic']))).toEqual([
      { text: 'A', level: 'subdomain', niche: 'algebra' },
      { text: 'B', level: 'cross-domain', niche: null },
      { text: 'C', level: 'subdomain', niche: 'arithmetic' },
    ]);
  });

  it('falls back to prose for single-field phases', () => {
    expect(parseField('{"diagnosis": " slipped "}', 'diagnosis')).toBe('slipped');
    expect(parseField('I slipped on step 2', 'diagnosis')).toBe('I slipped on step 2');
  });
});
