import { describe, expect, it } from 'vitest';
import { collapseSpaces, linesWith } from '../../src/core/text';

describe('collapseSpaces', () => {
  it('is replace(/\\s+/g, " ") on every whitespace JavaScript knows, lone surrogates kept', () => {
    const cases = ['', ' ', 'a  b', ' a\tb\n', '\u3000x\ufeff', 'a\ud800 b  c', '  ', 'no-space', `${'x'.repeat(20000)}\n\n${'y'.repeat(9000)}`,
      '\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\v\f\r', '```\n'.repeat(5000)];
    for (const s of cases) expect(collapseSpaces(s)).toBe(s.replace(/\s+/g, ' '));
  });

  it('agrees with the regex on seeded mixes of spaces, surrogate pairs, lone surrogates and byte-order marks', () => {
    const units = [' ', '  ', '\n', '\t', '\u00a0', '\u3000', '\ufeff', 'a', 'é', '\ud83d\ude00', '\ud800', '\udc00', 'x y'];
    let seed = 7;
    const next = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
    for (let k = 0; k < 2000; k++) {
      let s = '';
      for (let j = Math.floor(next() * 12); j > 0; j--) s += units[Math.floor(next() * units.length)];
      expect(collapseSpaces(s)).toBe(s.replace(/\s+/g, ' '));
    }
  });
});

describe('linesWith', () => {
  it('is split(/\\r?\\n/) keeping the lines the probe matches in, each once', () => {
    const cases = ['', 'Lesson: a', 'x\r\nLesson: a\r\nlesson lesson\n\nMeta: b\r', 'a\rlesson\r\r\nb', '\nlesson\n', 'lesson\n', 'no label here',
      'meta\nlesson', `${'\n'.repeat(1000)}LESSON`];
    for (const s of cases) expect(linesWith(s, /lesson|meta/gi)).toEqual(s.split(/\r?\n/).filter((l) => /lesson|meta/i.test(l)));
  });

  it('gives a match that spans lines the line it starts in', () => {
    expect(linesWith('a x\ny b\nc', /x\sy/g)).toEqual(['a x']);
  });

  it('refuses a probe without the g flag (it would never move on)', () => {
    expect(() => linesWith('a', /a/)).toThrow(/global/);
  });
});
