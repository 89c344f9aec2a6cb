import { describe, expect, it } from 'vitest';
import { collapseSpaces } from '../../src/core/text';

describe('collapseSpaces', () => {
  it('is replace(/\\s+/g, " ") on every whitespace JavaScript knows, lone surrogates kept', () => {
    const cases = ['', ' ', 'a  b', ' a\tb\n', '\u3000x\ufeff', 'a\ud800 b  c', '  ', 'no-space', `${'x'.repeat(20000)}\n\n${'y'.repeat(9000)}`,
      '\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\v\f\r', '```\n'.repeat(5000)];
    for (const s of cases) expect(collapseSpaces(s)).toBe(s.replace(/\s+/g, ' '));
  });
});
