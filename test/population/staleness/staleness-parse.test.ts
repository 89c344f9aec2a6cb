import { describe, expect, it } from 'vitest';
import { parseStaleVerdict } from '../../../src/population/staleness/staleness-parse';

describe('parseStaleVerdict', () => {
  it('reads the JSON the prompt asks for', () => {
    expect(parseStaleVerdict('{"decision": "DROP", "text": "", "reason": "already given"}')).toEqual({ decision: 'drop', text: '', reason: 'already given' });
    expect(parseStaleVerdict('{"decision": "PATCH", "text": "Use the helix-orbit sweep.", "reason": "half"}')).toEqual({ decision: 'patch', text: 'Use the helix-orbit sweep.', reason: 'half' });
  });

  it('tolerates think blocks, fences, other key names, case and wrapping', () => {
    expect(parseStaleVerdict('<think>hmm {"decision": "DROP"}</think>\n```json\n{"Action": "keep it"}\n```')).toMatchObject({ decision: 'keep' });
    expect(parseStaleVerdict('{"verdict": "Patch.", "rewritten_text": "x"}')).toBeUndefined();
    expect(parseStaleVerdict('{"verdict": "Patch.", "rewritten": "New text."}')).toMatchObject({ decision: 'patch', text: 'New text.' });
    expect(parseStaleVerdict('{"result": {"decision": "drop", "why": "stale"}}')).toEqual({ decision: 'drop', text: '', reason: 'stale' });
  });

  it('falls back to labelled lines, then to a capitalised verdict', () => {
    expect(parseStaleVerdict('- **Decision:** PATCH\n- **Text:** Apply the orbit fold.**\nReason: partly known')).toEqual({ decision: 'patch', text: 'Apply the orbit fold.', reason: 'partly known' });
    expect(parseStaleVerdict('Nothing new here. DROP.')).toEqual({ decision: 'drop', text: '', reason: '' });
  });

  it('a PATCH without text, a lower-case hint or nothing at all is unusable', () => {
    expect(parseStaleVerdict('{"decision": "PATCH"}')).toBeUndefined();
    expect(parseStaleVerdict('Decision: PATCH')).toBeUndefined();
    expect(parseStaleVerdict('I would keep in mind what the agent knows.')).toBeUndefined();
    expect(parseStaleVerdict('')).toBeUndefined();
    expect(parseStaleVerdict('{"decision": 3}')).toBeUndefined();
  });
});
