import { describe, expect, it } from 'vitest';
import { createMathGrader, normalizeMathAnswer } from '../../../src/tasks/graders';
import { MATH_COMPLETIONS, taskOf } from './completions.fixtures';

const grader = createMathGrader();

describe('math grader: extraction from real completion shapes', () => {
  for (const c of MATH_COMPLETIONS) {
    it(`extracts from ${c.name}`, () => {
      expect(grader.extract(c.text)).toBe(c.extracted);
    });
  }
});

describe('math grader: normalization', () => {
  it.each([
    ['$\\left(3\\right)$', '(3)'],
    ['1,234,567', '1234567'],
    ['\\$1,000', '1000'],
    ['5\\text{ cm}', '5'],
    ['12 dollars', '12'],
    ['50\\%', '50'],
    ['90^\\circ', '90'],
    ['\\dfrac{1}{2}', '(1)/(2)'],
    ['\\tfrac12', '(1)/(2)'],
    ['\\frac{\\frac{1}{2}}{3}', '((1)/(2))/(3)'],
    ['\\sqrt{2}', 'sqrt(2)'],
    ['\\sqrt[3]{8}', 'nthRoot(8,3)'],
    ['2\\cdot 3', '2*3'],
    ['x^{2}', 'x^(2)'],
    ['x = 7', '7'],
    ['\\boxed{\\frac12}', '(1)/(2)'],
    ['5 x', '5x'],
  ])('normalizes %s to %s', (raw, want) => {
    expect(normalizeMathAnswer(raw)).toBe(want);
  });
});

describe('math grader: equivalence', () => {
  it.each([
    ['0.5', '1/2'],
    ['0.5', '\\frac{1}{2}'],
    ['\\boxed{\\frac12}', '0.5'],
    ['1,234', '1234'],
    ['12 dollars', '12'],
    ['\\sqrt{2}/2', '\\frac{1}{\\sqrt{2}}'],
    ['\\dfrac{\\sqrt{3}}{2}', '0.8660254037844386'],
    ['2^{10}', '1024'],
    ['(1, \\frac{1}{2})', '(1,0.5)'],
    ['2x+2', '2(x+1)'],
    ['x(x+1)', 'x^2+x'],
    ['(x+1)^2', 'x^2 + 2x + 1'],
    ['y = 3x', '3x'],
  ])('treats %s and %s as equal', (a, b) => {
    expect(grader.equivalent(a, b)).toBe(true);
    expect(grader.equivalent(b, a)).toBe(true);
  });

  it.each([
    ['0.5', '0.50000001'],
    ['3', '4'],
    ['x', 'y'],
    ['2x', 'x^2'],
    ['abs(x)', 'x'],
    ['(1,2)', '(2,1)'],
    ['(1,2)', '[1,2]'],
    ['9^9^9^9', '9^9^9^8'],
    ['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'a^66'],
    ['', ''],
  ])('tells %s and %s apart', (a, b) => {
    expect(grader.equivalent(a, b)).toBe(false);
  });

  it('uses relative tolerance only where a decimal is involved: integers and fractions compare exactly', async () => {
    expect(grader.equivalent('1000000000000.0', '1000000000000.0001')).toBe(true);
    expect(grader.equivalent('1000000000000', '1000000010000')).toBe(false);
    expect(grader.equivalent('1000000000000', '1000000000001')).toBe(false);
    expect((await grader.grade('\\boxed{1000000000000.0001}', taskOf('math', '1000000000000'))).correct).toBe(false);
    expect((await grader.grade('\\boxed{1000000000000.0001}', taskOf('math', '1000000000000.0'))).correct).toBe(true);
  });

  it('never throws on garbage and never calls it equal to a number', () => {
    const garbage = ['((((', '\\frac{', '}}}{{{', '1/0', 'x=y=z', '\\boxed{', 'ones(10000,10000)', 'import(1)',
      `${'('.repeat(5000)}1`, '9^9^9^9^9', 'NaN', 'Infinity - Infinity', '\u0000\u0001', 'a'.repeat(100_000),
      // Shapes that make mathjs simplify() crawl; they must come back promptly.
      'a'.repeat(190), 'x/y/z/w/v/u/t/s/r/q/p', `${'ab*'.repeat(60)}c`];
    for (const g of garbage) {
      expect(() => grader.equivalent(g, '1')).not.toThrow();
      expect(grader.equivalent(g, '1')).toBe(false);
      expect(grader.equivalent(g, 'x+1')).toBe(false);
      expect(() => grader.extract(g)).not.toThrow();
    }
  });
});

describe('math grader: grading', () => {
  it('rewards a boxed fraction that equals a decimal gold answer', async () => {
    const g = await grader.grade('<think>1/2?</think> So $\\boxed{\\dfrac{1}{2}}$.', taskOf('math', '0.5'));
    expect(g).toMatchObject({ reward: 1, correct: true, extracted: '\\dfrac{1}{2}' });
  });

  it('reduces a GSM8K-style gold solution to its #### answer', async () => {
    const g = await grader.grade('The total is 1,234 dollars.', taskOf('math', 'Add them.\n#### 1234'));
    expect(g.reward).toBe(1);
  });

  it('says what was expected and what it got on a wrong answer', async () => {
    const g = await grader.grade('\\boxed{7}', taskOf('math', '8'));
    expect(g).toMatchObject({ reward: 0, correct: false, extracted: '7', detail: 'expected 8 got 7' });
  });

  it('reports "no answer found" when nothing can be extracted', async () => {
    const g = await grader.grade('<think>still thinking about 5', taskOf('math', '5'));
    expect(g).toMatchObject({ reward: 0, correct: false, extracted: null, detail: 'no answer found' });
  });

  it('grades the same completion the same way twice', async () => {
    const t = taskOf('math', '2(x+1)');
    const a = await grader.grade('\\boxed{2x+2}', t);
    const b = await grader.grade('\\boxed{2x+2}', t);
    expect(a).toEqual(b);
    expect(a.reward).toBe(1);
  });
});

describe('math grader: hostile replies', () => {
  const grade = (reply: string, gold: string) => grader.grade(reply, taskOf('math', gold));
  it.each([
    ['\\boxed{1000000001}', '1000000000'],
    ['\\boxed{42.00000004}', '42'],
    ['\\boxed{4 2}', '42'],
    ['\\boxed{4\\!2}', '42'],
    ['\\boxed{4\\,2}', '42'],
    ['\\boxed{4~2}', '42'],
    ['\\boxed{4\\quad 2}', '42'],
    ['\\boxed{0.33333333333}', '\\frac{1}{3}'],
    ['\\boxed{1.4142135623}', '\\sqrt{2}'],
    ['\\boxed{\\frac{7}{22}}', '\\frac{1}{\\pi}'],
    ['\\boxed{355/113}', '\\pi'],
    // Agrees with x^2 at the three points the grader once fixed (0.5377, -1.8339, 2.2588).
    ['\\boxed{x^2+(x-0.5377)(x+1.8339)(x-2.2588)}', 'x^2'],
    ['\\boxed{x^2+(x-1)(x+2)(x-3)(x+4)(x-5)(x+6)}', 'x^2'],
    ['\\boxed{2^{53}+1}', '9007199254740992'],
  ])('rejects %s for gold %s', async (reply, gold) => {
    expect((await grade(reply, gold)).correct).toBe(false);
  });

  it.each([
    ['\\boxed{1\\,000\\,000}', '1000000'],
    ['\\boxed{10{,}000}', '10000'],
    ['\\boxed{2\\sqrt{3}}', '\\sqrt{12}'],
    ['\\boxed{\\frac{2}{6}}', '\\frac{1}{3}'],
    ['\\boxed{0.25}', '\\frac14'],
    ['\\boxed{2^{53}}', '9007199254740992'],
  ])('accepts %s for gold %s', async (reply, gold) => {
    expect((await grade(reply, gold)).correct).toBe(true);
  });
});

describe('math grader: the final answer is the last one stated', () => {
  const grade = (reply: string, gold: string) => grader.grade(reply, taskOf('math', gold));
  it.each([
    ['\\boxed{1}\n\nWait, actually the answer is 3.', '1', '3'],
    ['So \\boxed{1}. Hmm, let me recheck: so it\'s actually 3.', '1', '3'],
    ['\\boxed{1}\nActually, it is 3 apples.', '1', '3'],
    ['\\boxed{\\frac{1}{2}}\nFinal Answer: The final answer is 3. I hope it is correct.', '\\frac{1}{2}', '3'],
    ['\\boxed{1}\n#### 3', '1', '3'],
  ])('rejects %j for gold %s: it states %s after the box', async (reply, gold, stated) => {
    const g = await grade(reply, gold);
    expect(g).toMatchObject({ correct: false, extracted: stated });
  });

  it.each([
    ['\\boxed{3}\n\nWait, let me verify... yes, the answer is 3.', '3'],
    ['\\boxed{\\frac{1}{2}}. So the answer is 1/2 of the pie.', '\\frac{1}{2}'],
    ['\\boxed{3}\nIt\'s actually 3, as computed.', '3'],
    ['\\boxed{5}. I am confident the answer is correct.', '5'],
    ['\\boxed{12}. This is actually 3 times 4.', '12'],
    ['The answer is 7, no wait: \\boxed{12}', '12'],
    ['\\boxed{x^2+1}\nThe answer is x^2 + 1.', 'x^2+1'],
  ])('accepts %j for gold %s: the same answer, or no other one, after the box', async (reply, gold) => {
    expect((await grade(reply, gold)).correct).toBe(true);
  });
});

describe('math grader: a gold decides where rounding is allowed', () => {
  it('accepts a rounded answer only for a decimal gold', async () => {
    expect((await grader.grade('\\boxed{\\frac{\\sqrt{3}}{2}}', taskOf('math', '0.8660254037844386'))).correct).toBe(true);
    expect((await grader.grade('\\boxed{0.8660254037844386}', taskOf('math', '\\frac{\\sqrt{3}}{2}'))).correct).toBe(false);
    expect((await grader.grade('\\boxed{0.3333333333333333}', taskOf('math', '0.33333333333333331'))).correct).toBe(true);
  });
});

describe('math grader start-up', () => {
  it('grades plain decimal answers without loading mathjs', async () => {
    const { spawnSync } = await import('node:child_process');
    // A fresh process: whether mathjs was required is visible in its module cache.
    const script = `
      import { createRequire } from 'node:module';
      import { createMathGrader } from './src/tasks/graders/index.ts';
      import { taskOf } from './test/tasks/graders/completions.fixtures.ts';
      const r = await createMathGrader().grade('The answer is 42.0', taskOf('math', '42'));
      const loaded = Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('/mathjs/'));
      console.log(JSON.stringify({ reward: r.reward, loaded }));`;
    const out = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout.trim().split('\n').pop()!)).toEqual({ reward: 1, loaded: false });
  });
});

describe('math grader: compiled expressions', () => {
  it('keeps at most COMPILED_CAPACITY of them, and grades the same after evicting', async () => {
    const { COMPILED_CAPACITY, compiledExpressions } = await import('../../../src/tasks/graders/math-grader');
    const first = await grader.grade('\\boxed{2(x+1)}', taskOf('math', '2x+2'));
    // Each comparison compiles both sides (exactly and at 64 digits): twice the capacity in all.
    for (let k = 2; k < COMPILED_CAPACITY / 2 + 2; k++) expect((await grader.grade(`\\boxed{${k}(x+1)}`, taskOf('math', `${k}x + ${k}`))).correct).toBe(true);
    expect(compiledExpressions()).toBe(COMPILED_CAPACITY);
    expect(await grader.grade('\\boxed{2(x+1)}', taskOf('math', '2x+2'))).toEqual(first);
  });
});
