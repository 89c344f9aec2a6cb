import type { Rng } from '../../core/rng';
import type { TaskGenerator } from '../niche';
import { body, buildCodeTask, int, type CodeProblem, type PyValue } from './code-task';
import type { GeneratorDescriptor } from './generator';

/**
 * Python functions over strings. Level 1: word- and letter-level basics; level 2: case,
 * punctuation and a parameter (Caesar shift, palindromes, run-length encoding); level 3:
 * parsing and conversion with multi-digit counts, case boundaries and ties.
 */

const WORDS = ['amber', 'brook', 'cinder', 'drift', 'ember', 'fable', 'glint', 'harbor', 'iris', 'jolt', 'kettle', 'lumen', 'moss', 'nook', 'orbit', 'pebble', 'quartz', 'ripple', 'sable', 'tundra', 'umber', 'vale', 'wisp', 'yonder', 'zephyr', 'ox', 'fig', 'sky'];
const PUNCT = ['', '', ',', '!', '.', '?'];

const str = (a: readonly PyValue[], i = 0): string => a[i] as string;
const words = (rng: Rng, lo: number, hi: number): string[] => Array.from({ length: int(rng, lo, hi) }, () => rng.pick(WORDS));
/** Randomly upper-cases letters so case handling is exercised. */
const mixCase = (rng: Rng, s: string, p = 0.3): string => [...s].map((c) => (rng.chance(p) ? c.toUpperCase() : c)).join('');
const phrase = (rng: Rng, lo: number, hi: number): string => mixCase(rng, words(rng, lo, hi).join(' '));
const isVowel = (c: string): boolean => 'aeiou'.includes(c.toLowerCase());

// ---- level 1 ----

const countVowels: CodeProblem = {
  names: ['count_vowels', 'vowel_count', 'num_vowels'],
  params: ['s'],
  make: () => ({
    text: 'returns the number of vowels (a, e, i, o, u, in either case) in `s`.',
    body: body("return sum(1 for c in s.lower() if c in 'aeiou')"),
    bugs: [body("return sum(1 for c in s if c in 'aeiou')"), body("return sum(1 for c in s.lower() if c in 'aeiouy')"), body("return len(s) - sum(1 for c in s.lower() if c in 'aeiou')")],
    run: (a) => [...str(a)].filter(isVowel).length,
    edge: [['Ocean Eye'], [''], ['rhythm']],
    input: (rng) => [phrase(rng, 1, 3)],
  }),
};

const reverseWords: CodeProblem = {
  names: ['reverse_words', 'words_backwards', 'flip_word_order'],
  params: ['s'],
  make: () => ({
    text: 'returns the words of `s` (separated by single spaces) in reverse order, joined by single spaces.',
    body: body("return ' '.join(s.split()[::-1])"),
    bugs: [body('return s[::-1]'), body("return ' '.join(w[::-1] for w in s.split())"), body("return ' '.join(sorted(s.split(), reverse=True))")],
    run: (a) => str(a).split(' ').filter((w) => w !== '').reverse().join(' '),
    edge: [['red fox runs'], ['kite']],
    input: (rng) => [words(rng, 2, 5).join(' ')],
  }),
};

const capitalizeWords: CodeProblem = {
  names: ['capitalize_words', 'title_words', 'headline_case'],
  params: ['s'],
  make: () => ({
    text: 'returns `s` with the first letter of every word in upper case and all other letters in lower case (words are separated by single spaces and contain only letters).',
    body: body("return ' '.join(w[:1].upper() + w[1:].lower() for w in s.split(' '))"),
    bugs: [body('return s.capitalize()'), body("return ' '.join(w[:1].upper() + w[1:] for w in s.split(' '))"), body('return s.upper()')],
    run: (a) => str(a).split(' ').map((w) => w.slice(0, 1).toUpperCase() + w.slice(1).toLowerCase()).join(' '),
    edge: [['hELLO wORLD'], ['ox']],
    input: (rng) => [phrase(rng, 2, 4)],
  }),
};

const longestWord: CodeProblem = {
  names: ['longest_word', 'widest_word', 'biggest_word'],
  params: ['s'],
  make: () => ({
    text: 'returns the longest word in `s` (words are separated by single spaces; `s` has at least one word); if several words tie, return the first of them.',
    body: body('best = ""', 'for w in s.split():', '    if len(w) > len(best):', '        best = w', 'return best'),
    bugs: [
      body('best = ""', 'for w in s.split():', '    if len(w) >= len(best):', '        best = w', 'return best'),
      body('return min(s.split(), key=len)'),
      body('return sorted(s.split(), key=len)[-1]'),
    ],
    run: (a) => str(a).split(' ').reduce((best, w) => (w.length > best.length ? w : best), ''),
    edge: [['ant bee cow'], ['go team now']],
    input: (rng) => [words(rng, 2, 5).join(' ')],
  }),
};

// ---- level 2 ----

const caesar: CodeProblem = {
  names: ['caesar_shift', 'caesar', 'shift_letters'],
  params: ['s', 'k'],
  make: () => ({
    text: 'shifts every letter of `s` forward by `k` places in the alphabet (0 <= k < 26), wrapping from z to a and keeping upper and lower case; other characters stay unchanged.',
    body: body('out = []', 'for c in s:', "    if 'a' <= c <= 'z':", '        out.append(chr((ord(c) - 97 + k) % 26 + 97))', "    elif 'A' <= c <= 'Z':", '        out.append(chr((ord(c) - 65 + k) % 26 + 65))', '    else:', '        out.append(c)', "return ''.join(out)"),
    bugs: [
      body("return ''.join(chr(ord(c) + k) if c.isalpha() else c for c in s)"),
      body("return ''.join(chr((ord(c) - 97 + k) % 26 + 97) if c.isalpha() else c for c in s.lower())"),
      body("return ''.join(chr((ord(c) - 97 + k) % 26 + 97) if c.isalpha() else c for c in s)"),
    ],
    run: (a) =>
      [...str(a)]
        .map((c) => {
          const base = c >= 'a' && c <= 'z' ? 97 : c >= 'A' && c <= 'Z' ? 65 : -1;
          return base < 0 ? c : String.fromCharCode(((c.charCodeAt(0) - base + (a[1] as number)) % 26) + base);
        })
        .join(''),
    edge: [['xyz', 3], ['Hello, World!', 1]],
    input: (rng) => [words(rng, 1, 3).map((w) => mixCase(rng, w) + rng.pick(PUNCT)).join(' '), int(rng, 1, 25)],
  }),
};

const palindrome: CodeProblem = {
  names: ['is_palindrome', 'reads_same_backwards', 'is_mirror_text'],
  params: ['s'],
  make: () => ({
    text: 'returns `True` if `s` reads the same forwards and backwards when only letters and digits are considered and case is ignored, else `False`.',
    body: body('t = [c.lower() for c in s if c.isalnum()]', 'return t == t[::-1]'),
    bugs: [body('return s == s[::-1]'), body('t = s.lower()', 'return t == t[::-1]'), body("t = s.replace(' ', '').lower()", 'return t == t[::-1]')],
    run: (a) => {
      const t = [...str(a).toLowerCase()].filter((c) => /[a-z0-9]/.test(c)).join('');
      return t === [...t].reverse().join('');
    },
    edge: [['Never odd, or even.'], ['Racecar'], ['abca']],
    input: (rng) => {
      const half = rng.pick(WORDS) + (rng.chance(0.5) ? ' ' : '') + rng.pick(WORDS);
      const mirrored = half + (rng.chance(0.5) ? rng.pick(['x', '']) : '') + [...half].reverse().join('');
      // Half the cases are true palindromes, half are broken by swapping one letter.
      const text = rng.chance(0.5) ? mirrored : mirrored.slice(0, -1) + (mirrored.endsWith('q') ? 'z' : 'q');
      return [mixCase(rng, text) + rng.pick(PUNCT)];
    },
  }),
};

const runLength: CodeProblem = {
  names: ['run_length_encode', 'rle', 'compress_runs'],
  params: ['s'],
  make: () => ({
    text: "returns the run-length encoding of `s`: each maximal run of one repeated character becomes that character followed by the run length, e.g. 'aaab' becomes 'a3b1'; an empty string gives ''.",
    body: body('out = []', 'i = 0', 'while i < len(s):', '    j = i', '    while j < len(s) and s[j] == s[i]:', '        j += 1', '    out.append(s[i] + str(j - i))', '    i = j', "return ''.join(out)"),
    bugs: [
      body('from collections import Counter', "return ''.join(c + str(n) for c, n in Counter(s).items())"),
      body('out = []', 'count = 1', 'for i in range(1, len(s)):', '    if s[i] == s[i - 1]:', '        count += 1', '    else:', '        out.append(s[i - 1] + str(count))', '        count = 1', "return ''.join(out)"),
      body('out = []', 'i = 0', 'while i < len(s):', '    j = i', '    while j < len(s) and s[j] == s[i]:', '        j += 1', "    out.append(s[i] + (str(j - i) if j - i > 1 else ''))", '    i = j', "return ''.join(out)"),
    ],
    run: (a) => (str(a).match(/(.)\1*/g) ?? []).map((r) => `${r[0]}${r.length}`).join(''),
    edge: [['aabccca'], ['']],
    input: (rng) => [Array.from({ length: int(rng, 2, 5) }, () => rng.pick(['a', 'b', 'c', 'x']).repeat(int(rng, 1, 4))).join('')],
  }),
};

const countLongWords: CodeProblem = {
  names: ['count_long_words', 'long_word_count', 'words_longer_than'],
  params: ['s', 'n'],
  make: () => ({
    text: 'returns how many words of `s` (separated by single spaces) have strictly more than `n` letters.',
    body: body('return sum(1 for w in s.split() if len(w) > n)'),
    bugs: [body('return sum(1 for w in s.split() if len(w) >= n)'), body('return sum(1 for w in s.split() if len(w) < n)'), body('return sum(len(w) for w in s.split() if len(w) > n)')],
    run: (a) => str(a).split(' ').filter((w) => w.length > (a[1] as number)).length,
    edge: [['tree apple mango', 4]],
    input: (rng) => [words(rng, 2, 6).join(' '), int(rng, 2, 6)],
  }),
};

// ---- level 3 ----

const runLengthDecode: CodeProblem = {
  names: ['run_length_decode', 'expand_runs', 'rle_decode'],
  params: ['s'],
  make: () => ({
    text: "decodes a run-length string in which each letter is followed by its positive count, which may have several digits (e.g. 'x12y3' gives twelve x then three y); an empty string gives ''.",
    body: body('out = []', 'i = 0', 'while i < len(s):', '    j = i + 1', '    while j < len(s) and s[j].isdigit():', '        j += 1', '    out.append(s[i] * int(s[i + 1:j]))', '    i = j', "return ''.join(out)"),
    bugs: [
      body("return ''.join(s[i] * int(s[i + 1]) for i in range(0, len(s), 2))"),
      body('out = []', 'i = 0', 'while i < len(s):', '    j = i + 1', '    while j < len(s) and s[j].isdigit():', '        j += 1', '    out.append(s[i] * int(s[j - 1]))', '    i = j', "return ''.join(out)"),
      body('out = []', 'i = 0', 'while i < len(s):', '    j = i + 1', '    while j < len(s) and s[j].isdigit():', '        j += 1', '    out.append(s[i] * (int(s[i + 1:j]) - 1))', '    i = j', "return ''.join(out)"),
    ],
    run: (a) => (str(a).match(/[a-z]\d+/g) ?? []).map((r) => (r[0] as string).repeat(Number(r.slice(1)))).join(''),
    edge: [['x12y3'], ['']],
    input: (rng) => [Array.from({ length: int(rng, 1, 4) }, () => `${rng.pick(['a', 'b', 'k', 'z'])}${int(rng, 1, 14)}`).join('')],
  }),
};

const camelToSnake: CodeProblem = {
  names: ['camel_to_snake', 'to_snake_case', 'snakeify'],
  params: ['s'],
  make: () => ({
    text: "converts a camelCase or PascalCase identifier to snake_case: put '_' before every upper-case letter except when it is the first character, then make everything lower case.",
    body: body('out = []', 'for i, c in enumerate(s):', '    if c.isupper() and i > 0:', "        out.append('_')", '    out.append(c.lower())', "return ''.join(out)"),
    bugs: [
      body('out = []', 'for c in s:', '    if c.isupper():', "        out.append('_')", '    out.append(c.lower())', "return ''.join(out)"),
      body('out = []', 'for i, c in enumerate(s):', '    if c.isupper() and i > 0:', "        out.append('_')", '    out.append(c)', "return ''.join(out)"),
      body('return s.lower()'),
    ],
    run: (a) => [...str(a)].map((c, i) => (/[A-Z]/.test(c) && i > 0 ? `_${c.toLowerCase()}` : c.toLowerCase())).join(''),
    edge: [['ParseHttpValue'], ['x']],
    input: (rng) => {
      const ws = words(rng, 2, 4);
      const first = rng.chance(0.5) ? (ws[0] as string) : (ws[0] as string).replace(/^./, (c) => c.toUpperCase());
      return [first + ws.slice(1).map((w) => w.replace(/^./, (c) => c.toUpperCase())).join('')];
    },
  }),
};

const firstUnique: CodeProblem = {
  names: ['first_unique_char', 'first_non_repeating', 'first_single'],
  params: ['s'],
  make: () => ({
    text: "returns the first character of `s` that occurs exactly once in `s` (case-sensitive), or '' (the empty string) if there is none.",
    body: body('for c in s:', '    if s.count(c) == 1:', '        return c', "return ''"),
    bugs: [
      body('for c in s:', '    if s.count(c) > 1:', '        return c', "return ''"),
      body('for c in reversed(s):', '    if s.count(c) == 1:', '        return c', "return ''"),
      body('for c in s:', '    if s.count(c) == 1:', '        return c', 'return None'),
    ],
    run: (a) => [...str(a)].find((c, _, all) => all.filter((d) => d === c).length === 1) ?? '',
    edge: [['swiss'], ['aabb']],
    input: (rng) => [Array.from({ length: int(rng, 4, 9) }, () => rng.pick(['a', 'b', 'c', 'd', 'e', 'A'])).join('')],
  }),
};

const anagram: CodeProblem = {
  names: ['is_anagram', 'same_letters', 'are_anagrams'],
  params: ['a', 'b'],
  make: () => ({
    text: 'returns `True` if `a` and `b` are anagrams of each other when spaces are ignored and case is ignored, else `False`.',
    body: body("norm = lambda t: sorted(t.replace(' ', '').lower())", 'return norm(a) == norm(b)'),
    bugs: [
      body("norm = lambda t: set(t.replace(' ', '').lower())", 'return norm(a) == norm(b)'),
      body("norm = lambda t: sorted(t.replace(' ', ''))", 'return norm(a) == norm(b)'),
      body("return len(a.replace(' ', '')) == len(b.replace(' ', ''))"),
    ],
    run: (a) => {
      const norm = (t: string): string => [...t.replace(/ /g, '').toLowerCase()].sort().join('');
      return norm(str(a, 0)) === norm(str(a, 1));
    },
    edge: [['Dormitory', 'dirty room'], ['aab', 'abb']],
    input: (rng) => {
      const a = words(rng, 1, 2).join(' ');
      const letters = rng.shuffle([...a.replace(/ /g, '')]);
      // Half the pairs get one letter changed, so both outcomes are tested.
      if (rng.chance(0.5)) letters[0] = letters[0] === 'e' ? 'o' : 'e';
      return [mixCase(rng, a), letters.join('')];
    },
  }),
};

const BY_LEVEL: Record<number, readonly CodeProblem[]> = {
  1: [countVowels, reverseWords, capitalizeWords, longestWord],
  2: [caesar, palindrome, runLength, countLongWords],
  3: [runLengthDecode, camelToSnake, firstUnique, anagram],
};

/** Generator for the `string-functions` niche: write a Python function over strings. */
export const stringFunctions: TaskGenerator = (difficulty, rng) => {
  const pool = BY_LEVEL[difficulty];
  if (!pool) throw new RangeError(`string-functions: unsupported difficulty ${difficulty} (expected 1, 2 or 3)`);
  return buildCodeTask(difficulty, rng.pick(pool), rng);
};

/** The `string-functions` generator. */
export const stringFunctionsGenerator: GeneratorDescriptor = { name: 'string-functions', generate: stringFunctions };
