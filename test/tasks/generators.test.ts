import { spawnSync } from 'node:child_process';
import { all, create } from 'mathjs';
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/core/rng';
import type { GeneratedTask } from '../../src/tasks/niche';
import { generators, getGenerator } from '../../src/tasks/generators';
import { arithmeticWithWorking } from '../../src/tasks/generators/arithmetic';
import { COMPETITION_LEVELS, competitionMathWithParts } from '../../src/tasks/generators/competition-math';

const SEEDS = Array.from({ length: 30 }, (_, i) => `seed-${i}`);
const LEVELS = [1, 2, 3] as const;
const DOMAIN: Record<string, 'math' | 'code' | 'qa'> = {
  arithmetic: 'math',
  algebra: 'math',
  'list-functions': 'code',
  'string-functions': 'code',
  'people-qa': 'qa',
  'timeline-qa': 'qa',
  'competition-math': 'math',
};
/** The levels a generator makes: 1–3, except competition-math's 3–5. */
const levelsOf = (name: string): readonly number[] => (name === 'competition-math' ? COMPETITION_LEVELS : LEVELS);

/** Every task a generator makes at one level over the seed set. */
const tasksOf = (name: string, level: number): GeneratedTask[] =>
  SEEDS.map((s) => getGenerator(name)(level, createRng(`${name}/${s}`)));

// Exact rationals, so 7/3 and 2.25 compare without float error.
const M = create(all!, { number: 'Fraction' });
const asFraction = (text: string) => M.fraction(text);
const CANONICAL = /^-?\d+(\/\d+)?$/;

describe('generator registry', () => {
  it('knows exactly the seven built-in generators', () => {
    expect(Object.keys(generators).sort()).toEqual(Object.keys(DOMAIN).sort());
  });

  it('getGenerator names the unknown generator and the known ones', () => {
    expect(() => getGenerator('geometry')).toThrow(/"geometry".*arithmetic.*timeline-qa/);
    expect(() => getGenerator('toString')).toThrow(/unknown task generator/);
  });
});

// Contract suite: every generator, every level.
describe.each(Object.keys(DOMAIN))('generator %s (contract)', (name) => {
  it('rejects difficulty levels it does not make', () => {
    const levels = levelsOf(name);
    for (const d of [0, levels[0]! - 1, levels[levels.length - 1]! + 1, 1.5]) expect(() => getGenerator(name)(d, createRng(1))).toThrow(RangeError);
  });

  it.each(levelsOf(name))('level %i: deterministic per seed, varied across seeds, sane distractors', (level) => {
    const tasks = tasksOf(name, level);
    SEEDS.forEach((s, i) => expect(getGenerator(name)(level, createRng(`${name}/${s}`))).toEqual(tasks[i]));
    expect(new Set(tasks.map((t) => t.question)).size).toBeGreaterThanOrEqual(20);
    for (const t of tasks) {
      expect(t.difficulty).toBe(level);
      const { answer, distractors } = t.hidden;
      expect(distractors.length).toBeGreaterThanOrEqual(3);
      expect(distractors.length).toBeLessThanOrEqual(5);
      expect(new Set(distractors).size).toBe(distractors.length);
      expect(distractors).not.toContain(answer);
      // The hidden side never leaks into what the agent sees.
      for (const test of t.hidden.tests ?? []) expect(t.question).not.toContain(test);
      if (DOMAIN[name] === 'code') expect(t.question).not.toContain(answer.trim());
    }
  });
});

describe('arithmetic', () => {
  it.each(LEVELS)('level %i: answer equals the independent expression, built from the question numbers', (level) => {
    for (const s of SEEDS) {
      const { task, expression } = arithmeticWithWorking(level, createRng(`arith/${s}`));
      const gold = asFraction(task.hidden.answer);
      expect(task.hidden.answer).toMatch(CANONICAL);
      expect(M.equal(M.evaluate(expression), gold)).toBe(true);
      const inQuestion = new Set((task.question.match(/\d+(\.\d+)?/g) ?? []).map(Number));
      for (const n of (expression.match(/\d+(\.\d+)?/g) ?? []).map(Number)) {
        expect([1, 100].includes(n) || inQuestion.has(n), `${n} of ${expression} in: ${task.question}`).toBe(true);
      }
      for (const d of task.hidden.distractors) {
        expect(d).toMatch(CANONICAL);
        expect(M.equal(asFraction(d), gold)).toBe(false);
      }
    }
  });
});

/** The equation lines of an algebra question, e.g. `3x + 5 = 2x - 7`. */
const equationsOf = (question: string): string[] =>
  question.split('\n').map((l) => l.trim()).filter((l) => /^[-\dxy+*/^(). ]+=[-\dxy+*/^(). ]+$/.test(l));

/** True when x = `xText` solves every equation (y, if present, is solved from the first one). */
function solves(equations: readonly string[], xText: string): boolean {
  const x = asFraction(xText);
  const fns = equations.map((e) => {
    const [lhs, rhs] = e.split('=');
    return M.compile(`(${lhs}) - (${rhs})`);
  });
  const scope: Record<string, unknown> = { x };
  if (equations.some((e) => e.includes('y'))) {
    const h0 = fns[0]!.evaluate({ x, y: M.fraction(0) });
    const h1 = fns[0]!.evaluate({ x, y: M.fraction(1) });
    scope.y = M.divide(M.unaryMinus(h0), M.subtract(h1, h0));
  }
  return fns.every((f) => M.equal(f.evaluate(scope), 0) as boolean);
}

describe('algebra', () => {
  it.each(LEVELS)('level %i: the answer satisfies the equations and no distractor does', (level) => {
    for (const t of tasksOf('algebra', level)) {
      const eqs = equationsOf(t.question);
      expect(eqs.length, t.question).toBeGreaterThanOrEqual(level === 3 && t.question.includes('system') ? 2 : 1);
      const positive = t.question.includes('positive');
      const ok = (v: string): boolean => solves(eqs, v) && (!positive || M.larger(asFraction(v), 0) === true);
      expect(t.hidden.answer).toMatch(CANONICAL);
      expect(asFraction(t.hidden.answer).toFraction()).toBe(t.hidden.answer);
      expect(ok(t.hidden.answer), `${t.question} -> ${t.hidden.answer}`).toBe(true);
      for (const d of t.hidden.distractors) expect(ok(d), `${t.question} distractor ${d}`).toBe(false);
    }
  });
});

describe('competition-math', () => {
  it.each(COMPETITION_LEVELS)('level %i: L - 2 hardest-level parts (one at level 3), the gold is their sum and no distractor is', (level) => {
    for (const s of SEEDS) {
      const { task, parts } = competitionMathWithParts(level, createRng(`comp/${s}`));
      expect(parts).toHaveLength(Math.max(1, level - 2));
      for (const p of parts) expect(p.difficulty).toBe(3);
      for (const p of parts.filter((q) => equationsOf(q.question).length > 0)) expect(solves(equationsOf(p.question), p.hidden.answer), p.question).toBe(true);
      const sum = parts.reduce((acc, p) => M.add(acc, asFraction(p.hidden.answer)), M.fraction(0));
      expect(task.hidden.answer).toMatch(CANONICAL);
      expect(M.equal(asFraction(task.hidden.answer), sum), task.question).toBe(true);
      for (const d of task.hidden.distractors) expect(M.equal(asFraction(d), sum), `${task.question} distractor ${d}`).toBe(false);
      if (level > 3) for (const p of parts) expect(task.question).toContain(p.question);
    }
  });
});

/** Run each program with its tests in one python3 process; returns pass/fail per test. */
function runPython(checks: { code: string; tests: readonly string[] }[]): boolean[][] {
  const runner = [
    'import json, sys',
    'out = []',
    'for c in json.load(sys.stdin):',
    '    ns = {}',
    '    try:',
    '        exec(c["code"], ns)',
    '    except Exception:',
    '        out.append([False] * len(c["tests"]))',
    '        continue',
    '    res = []',
    '    for t in c["tests"]:',
    '        try:',
    '            exec(t, ns)',
    '            res.append(True)',
    '        except Exception:',
    '            res.append(False)',
    '    out.append(res)',
    'print(json.dumps(out))',
  ].join('\n');
  const r = spawnSync('python3', ['-c', runner], { input: JSON.stringify(checks), encoding: 'utf8', timeout: 15_000 });
  if (r.status !== 0) throw new Error(`python3 failed: ${r.stderr || r.error?.message}`);
  return JSON.parse(r.stdout) as boolean[][];
}

describe.each(['list-functions', 'string-functions'])('%s', (name) => {
  it('references pass every test; every buggy distractor fails a hidden test (run in python3)', () => {
    const tasks = LEVELS.flatMap((level) => tasksOf(name, level));
    const checks = tasks.flatMap((t) => [
      { code: t.hidden.answer, tests: [...t.hidden.tests!, ...t.publicTests!] },
      ...t.hidden.distractors.map((code) => ({ code, tests: t.hidden.tests! })),
    ]);
    const results = runPython(checks);
    let i = 0;
    for (const t of tasks) {
      expect(t.hidden.tests!.length).toBeGreaterThanOrEqual(5);
      expect(t.hidden.tests!.length).toBeLessThanOrEqual(8);
      expect(t.publicTests).toHaveLength(2);
      expect(t.hidden.answer).toContain(`def ${t.entryPoint}(`);
      expect(t.question).toContain(`\`${t.entryPoint}(`);
      const ref = results[i++]!;
      expect(ref.every(Boolean), `reference fails:\n${t.hidden.answer}\n${t.hidden.tests!.join('\n')}`).toBe(true);
      for (const bug of t.hidden.distractors) {
        expect(results[i++]!.some((p) => !p), `distractor passes all tests:\n${bug}`).toBe(true);
      }
    }
  });
});

/** Split a qa question into its passage and the question line. */
function splitQa(question: string): { passage: string; ask: string } {
  const m = /^Passage:\n([\s\S]+)\n\nQuestion: (.+)$/.exec(question);
  if (!m) throw new Error(`not a qa question: ${question}`);
  return { passage: m[1]!, ask: m[2]! };
}
const sentencesOf = (passage: string): string[] => passage.split(/(?<=\.)\s+/);

/** Re-derive a people-qa answer from the passage text alone (one rule per question form). */
function derivePerson(passage: string, ask: string): string | undefined {
  const ss = sentencesOf(passage);
  const about = (name: string): string[] => ss.filter((s) => s.startsWith(`${name} `) || s.startsWith(`${name},`));
  let m: RegExpExecArray | null;
  if ((m = /^Who is the (.+) at the organization headquartered in (.+)\?$/.exec(ask))) {
    const org = ss.map((s) => /^(.+) is headquartered in (.+)\.$/.exec(s)).find((h) => h?.[2] === m![2])?.[1];
    return ss.find((s) => s.includes(`joined ${org} as`) && s.endsWith(` ${m![1]}.`))?.split(',')[0];
  }
  if ((m = /^Who (?:works as|is) the (.+) at (.+)\?$/.exec(ask))) {
    return ss.find((s) => s.includes(` ${m![1]} at ${m![2]}`))?.split(/ (?:works as|is) /)[0];
  }
  if ((m = /^In which city does (.+) work\?$/.exec(ask))) return / in ([^.]+)\.$/.exec(about(m[1]!)[0] ?? '')?.[1];
  if ((m = /^Where does (.+) live\?$/.exec(ask))) return ss.map((s) => new RegExp(`^${m![1]} lives in (.+)\\.$`).exec(s)).find(Boolean)?.[1];
  if ((m = /^Which organization (?:does (.+) work for|employs (.+))\?$/.exec(ask))) {
    return about((m[1] ?? m[2])!).map((s) => / at ([^.]+?)(?: in [^.]+)?\.$/.exec(s)).find(Boolean)?.[1];
  }
  if ((m = /^In which city does (.+) live now\?$/.exec(ask))) return /now lives in ([^,]+),/.exec(about(m[1]!)[0] ?? '')?.[1];
  if ((m = /^In which city is the organization that (.+) joined headquartered\?$/.exec(ask))) {
    const org = / joined (.+) as an? /.exec(about(m[1]!)[0] ?? '')?.[1];
    return ss.map((s) => new RegExp(`^${org} is headquartered in (.+)\\.$`).exec(s)).find(Boolean)?.[1];
  }
  throw new Error(`unexpected question form: ${ask}`);
}

describe('people-qa', () => {
  it.each(LEVELS)('level %i: the gold span follows from the passage; distractors are other passage spans', (level) => {
    for (const t of tasksOf('people-qa', level)) {
      const { passage, ask } = splitQa(t.question);
      const n = sentencesOf(passage).length;
      expect(n).toBeGreaterThanOrEqual(5);
      expect(n).toBeLessThanOrEqual(12);
      expect(passage).toContain(t.hidden.answer);
      expect(ask).not.toContain(t.hidden.answer);
      expect(derivePerson(passage, ask), t.question).toBe(t.hidden.answer);
      for (const d of t.hidden.distractors) expect(passage).toContain(d);
    }
  });

  it('harder levels have longer passages', () => {
    const mean = (level: number): number =>
      tasksOf('people-qa', level).reduce((s, t) => s + splitQa(t.question).passage.length, 0) / SEEDS.length;
    expect(mean(2)).toBeGreaterThan(mean(1));
    expect(mean(3)).toBeGreaterThan(mean(1));
  });
});

/** Year of an event from the passage alone, following "N years after/before the …" links. */
function yearOf(passage: string, name: string, depth = 0): number {
  const s = sentencesOf(passage).find((x) => x.startsWith(`The ${name} `));
  if (!s || depth > 5) throw new Error(`no dating sentence for ${name}`);
  const rel = /came (\d+) years? (after|before) the (.+)\.$/.exec(s);
  if (rel) return yearOf(passage, rel[3]!, depth + 1) + (rel[2] === 'after' ? 1 : -1) * Number(rel[1]);
  return Number(/\b(\d{4})\b/.exec(s)![1]);
}

describe('timeline-qa', () => {
  it.each(LEVELS)('level %i: answers recomputed from the passage; spans appear verbatim', (level) => {
    const forms = new Set<string>();
    for (const t of tasksOf('timeline-qa', level)) {
      const { passage, ask } = splitQa(t.question);
      const { answer, distractors } = t.hidden;
      let m: RegExpExecArray | null;
      if ((m = /^In which year did the (.+) take place\?$/.exec(ask))) {
        forms.add('year');
        expect(answer).toBe(String(yearOf(passage, m[1]!)));
        if (level < 3) expect(passage).toContain(answer);
        for (const d of distractors) expect(d).toMatch(/^\d+$/);
      } else if ((m = /^Which happened first: the (.+) or the (.+)\?$/.exec(ask))) {
        forms.add('first');
        const [a, b] = [m[1]!, m[2]!];
        expect(answer).toBe(yearOf(passage, a) < yearOf(passage, b) ? a : b);
        expect(passage).toContain(answer);
        for (const d of distractors) expect(passage).toContain(`The ${d} `);
      } else if ((m = /^How many years passed between the (.+) and the (.+)\?$/.exec(ask))) {
        forms.add('gap');
        expect(answer).toBe(String(Math.abs(yearOf(passage, m[1]!) - yearOf(passage, m[2]!))));
        expect(t.hidden.aliases).toContain(`${answer} years`);
        for (const d of distractors) expect(Number(d)).toBeGreaterThan(0);
      } else {
        throw new Error(`unexpected question form: ${ask}`);
      }
    }
    // Each level mixes question forms rather than always asking the same thing.
    expect(forms.size).toBeGreaterThanOrEqual(2);
  });
});

describe('niche domains', () => {
  it('qa and math tasks carry no code fields; code tasks always do', () => {
    for (const [name, domain] of Object.entries(DOMAIN)) {
      const t = getGenerator(name)(levelsOf(name)[0]!, createRng('fields'));
      expect(t.entryPoint !== undefined, name).toBe(domain === 'code');
      expect(t.hidden.tests !== undefined, name).toBe(domain === 'code');
    }
  });
});
