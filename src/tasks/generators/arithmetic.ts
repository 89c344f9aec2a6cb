import type { Rng } from '../../core/rng';
import type { GeneratedTask, TaskGenerator } from '../niche';
import { add, answerWithDistractors, div, frac, mul, sub, type Fraction } from './fraction';
import type { GeneratorDescriptor } from './generator';

/**
 * Multi-step arithmetic word problems. Level 1: two integer steps; level 2: three steps with
 * percentages or cents; level 3: four steps with fractions (answers may be simple fractions).
 */

const NAMES = ['Tamsin', 'Oren', 'Bexley', 'Ysolde', 'Corvin', 'Maelis', 'Dario', 'Femke', 'Ilka', 'Joss', 'Priya', 'Ansel'];
const ITEMS = ['apples', 'pencils', 'marbles', 'stickers', 'cookies', 'seashells', 'candles', 'buttons'];
const GOODS = ['lamp', 'backpack', 'kettle', 'jacket', 'chair', 'teapot', 'clock'];
const PERCENTS = [10, 20, 25, 50] as const;

/** A problem before rendering: its text, gold value, typical mistakes and a mathjs expression. */
interface Worked {
  readonly question: string;
  readonly answer: Fraction;
  readonly mistakes: readonly Fraction[];
  /** The computation written from the question's numbers; tests evaluate it independently. */
  readonly expression: string;
}

const int = (rng: Rng, lo: number, hi: number): number => lo + rng.int(hi - lo + 1);
const f = (n: number, d = 1): Fraction => frac(n, d);

// ---- level 1: two integer steps ----

function change(rng: Rng): Worked {
  const who = rng.pick(NAMES);
  const item = rng.pick(ITEMS);
  const n = int(rng, 2, 6);
  const p = int(rng, 2, 15);
  const bill = [20, 50, 100].find((b) => b > n * p) ?? 100;
  return {
    question: `${who} buys ${n} ${item} at $${p} each and pays with a $${bill} bill. How many dollars of change does ${who} receive?`,
    answer: f(bill - n * p),
    mistakes: [f(n * p), f(bill - p), f(bill - (n - 1) * p), f(bill + n * p)],
    expression: `${bill} - ${n} * ${p}`,
  };
}

function boxes(rng: Rng): Worked {
  const who = rng.pick(NAMES);
  const item = rng.pick(ITEMS);
  const a = int(rng, 3, 9);
  const b = int(rng, 4, 12);
  const c = int(rng, 1, a * b - 1);
  return {
    question: `${who} packs ${a} boxes with ${b} ${item} in each box, then gives ${c} ${item} to a neighbour. How many ${item} does ${who} have left?`,
    answer: f(a * b - c),
    mistakes: [f(a * b), f(a * b + c), f(a + b - c), f((a - 1) * b - c)],
    expression: `${a} * ${b} - ${c}`,
  };
}

function share(rng: Rng): Worked {
  const who = rng.pick(NAMES);
  const item = rng.pick(ITEMS);
  const k = int(rng, 2, 8);
  const total = k * int(rng, 3, 12);
  const extra = int(rng, 1, total - 1);
  const start = total - extra;
  return {
    question: `${who} has ${start} ${item} and buys ${extra} more, then splits all of them equally among ${k} friends. How many ${item} does each friend get?`,
    answer: f(total, k),
    mistakes: [f(start, k), f(start - extra, k), f(total - k), f(total, k - 1)],
    expression: `(${start} + ${extra}) / ${k}`,
  };
}

// ---- level 2: three steps with percentages or cents ----

function sale(rng: Rng): Worked {
  const who = rng.pick(NAMES);
  const good = rng.pick(GOODS);
  const p = 20 * int(rng, 1, 10);
  const pct = rng.pick(PERCENTS);
  const n = int(rng, 2, 5);
  const ship = int(rng, 3, 12);
  const each = mul(f(p), f(100 - pct, 100));
  return {
    question: `A ${good} normally costs $${p}. During a sale it is ${pct}% off. ${who} buys ${n} of them and pays $${ship} for delivery. How many dollars does ${who} pay in total?`,
    answer: add(mul(f(n), each), f(ship)),
    mistakes: [
      f(n * p + ship),
      add(mul(f(n * p), f(pct, 100)), f(ship)),
      mul(f(n), each),
      add(sub(f(n * p), mul(f(p), f(pct, 100))), f(ship)),
    ],
    expression: `${n} * ${p} * (1 - ${pct}/100) + ${ship}`,
  };
}

function wages(rng: Rng): Worked {
  const who = rng.pick(NAMES);
  const w = 2 * int(rng, 4, 12);
  const h = int(rng, 3, 8);
  const d = int(rng, 2, 6);
  const earned = w * h * d;
  // Only percentages that leave a whole-dollar answer; 50% always qualifies because w is even.
  const pct = rng.pick(PERCENTS.filter((q) => (earned * q) % 100 === 0));
  return {
    question: `${who} earns $${w} an hour and works ${h} hours a day for ${d} days. ${who} saves ${pct}% of the money and spends the rest. How many dollars does ${who} spend?`,
    answer: f(earned * (100 - pct), 100),
    mistakes: [f(earned * pct, 100), f(earned), f(w * h * (100 - pct), 100), f(w * (h + d) * (100 - pct), 100)],
    expression: `${w} * ${h} * ${d} * (1 - ${pct}/100)`,
  };
}

function cents(rng: Rng): Worked {
  const who = rng.pick(NAMES);
  const a = int(rng, 1, 4);
  const b = int(rng, 1, 3);
  const n = 2 * int(rng, 1, 4);
  const m = 4 * int(rng, 1, 2);
  // Prices in quarters keep the arithmetic exact; even n and m ÷ 4 make the total whole dollars.
  const total = f(n * (4 * a + 2) + m * (4 * b + 1), 4);
  const bill = [20, 50, 100].find((x) => x > total.num / total.den) ?? 100;
  return {
    question: `${who} buys ${n} pens at $${a}.50 each and ${m} notebooks at $${b}.25 each, paying with a $${bill} bill. How many dollars of change does ${who} get?`,
    answer: sub(f(bill), total),
    mistakes: [total, f(bill - n * a - m * b), sub(f(bill), f(n * (4 * a + 2), 4)), sub(f(bill), f((n + m) * (4 * a + 2), 4))],
    expression: `${bill} - ${n} * ${a}.50 - ${m} * ${b}.25`,
  };
}

// ---- level 3: four steps with fractions ----

function tank(rng: Rng): Worked {
  const who = rng.pick(NAMES);
  const b = int(rng, 2, 5);
  const a = int(rng, 1, b - 1);
  const d = int(rng, 2, 5);
  const c = int(rng, 1, d - 1);
  const cap = b * d * int(rng, 2, 8);
  const e = int(rng, 1, 20);
  const j = int(rng, 2, 7);
  const water = mul(f(cap), f(a, b));
  const left = mul(water, f(d - c, d));
  return {
    question: `A tank holds ${cap} liters and is ${a}/${b} full. ${who} drains ${c}/${d} of the water in it, then adds ${e} liters. The water is then poured equally into ${j} buckets. How many liters end up in each bucket?`,
    answer: div(add(left, f(e)), f(j)),
    mistakes: [
      div(left, f(j)),
      div(add(sub(water, mul(f(cap), f(c, d))), f(e)), f(j)),
      add(left, f(e)),
      div(add(mul(water, f(c, d)), f(e)), f(j)),
      add(div(left, f(j)), f(e)),
    ],
    expression: `(${cap} * ${a}/${b} * (1 - ${c}/${d}) + ${e}) / ${j}`,
  };
}

function recipe(rng: Rng): Worked {
  const who = rng.pick(NAMES);
  const b = int(rng, 2, 4);
  const a = int(rng, 1, b - 1);
  const d = rng.pick([3, 4, 6, 8]);
  const c = int(rng, 1, d - 1);
  const n = int(rng, 2, 6);
  const m = int(rng, 1, 4);
  const used = add(mul(f(n), f(a, b)), mul(f(m), f(c, d)));
  const start = Math.ceil(used.num / used.den) + int(rng, 1, 5);
  return {
    question: `${who} starts with ${start} cups of sugar, bakes ${n} batches of bread that use ${a}/${b} cup each, then ${m} batches of biscuits that use ${c}/${d} cup each. How many cups of sugar are left?`,
    answer: sub(f(start), used),
    mistakes: [
      sub(f(start), mul(f(n), f(a, b))),
      sub(f(start), mul(f(n + m), f(a, b))),
      used,
      add(sub(f(start), mul(f(n), f(a, b))), mul(f(m), f(c, d))),
    ],
    expression: `${start} - ${n} * ${a}/${b} - ${m} * ${c}/${d}`,
  };
}

function markup(rng: Rng): Worked {
  const who = rng.pick(NAMES);
  const good = rng.pick(GOODS);
  // Only rise/cut pairs whose combined factor keeps whole-dollar prices for multiples of $100.
  const pairs = PERCENTS.flatMap((u) => PERCENTS.map((v) => [u, v] as const)).filter(
    ([u, v]) => ((100 + u) * (100 - v)) % 100 === 0,
  );
  const [u, v] = rng.pick(pairs);
  const p = 100 * int(rng, 1, 4);
  const n = int(rng, 2, 4);
  const coupon = 5 * int(rng, 1, 6);
  const each = mul(mul(f(p), f(100 + u, 100)), f(100 - v, 100));
  return {
    question: `A ${good} costs $${p}. The shop raises the price by ${u}%, and a month later cuts the new price by ${v}%. ${who} then buys ${n} of them and uses a coupon for $${coupon} off the whole order. How many dollars does ${who} pay?`,
    answer: sub(mul(f(n), each), f(coupon)),
    mistakes: [
      sub(mul(f(n * p), f(100 + u - v, 100)), f(coupon)),
      mul(f(n), each),
      mul(f(n), sub(each, f(coupon))),
      sub(mul(f(n * p), f(100 - v, 100)), f(coupon)),
    ],
    expression: `${n} * ${p} * (1 + ${u}/100) * (1 - ${v}/100) - ${coupon}`,
  };
}

const BY_LEVEL: Record<number, readonly ((rng: Rng) => Worked)[]> = {
  1: [change, boxes, share],
  2: [sale, wages, cents],
  3: [tank, recipe, markup],
};

/** An arithmetic task plus the mathjs expression behind its answer (for independent checking). */
export function arithmeticWithWorking(difficulty: number, rng: Rng): { task: GeneratedTask; expression: string } {
  const pool = BY_LEVEL[difficulty];
  if (!pool) throw new RangeError(`arithmetic: unsupported difficulty ${difficulty} (expected 1, 2 or 3)`);
  const worked = rng.pick(pool)(rng);
  const { answer, distractors } = answerWithDistractors(worked.answer, worked.mistakes);
  return { task: { difficulty, question: worked.question, hidden: { answer, distractors } }, expression: worked.expression };
}

/** Generator for the `arithmetic` niche: multi-step money, quantity and percentage word problems. */
export const arithmetic: TaskGenerator = (difficulty, rng) => arithmeticWithWorking(difficulty, rng).task;

/** The `arithmetic` generator. */
export const arithmeticGenerator: GeneratorDescriptor = { name: 'arithmetic', generate: arithmetic };
