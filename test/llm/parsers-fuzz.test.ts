/**
 * Every parser of model text (test/fixtures/parsers-under-test.ts) against 1,000+ adversarial
 * inputs: seeded token soups, the pathological shapes at 64 KiB, and the shapes that once stalled
 * a parser (backticks, `{` floods, one long line, repeated `<think>`) at 1 MiB. Each must return;
 * speed is measured by `npm run bench -- parsers`, never asserted here.
 */
import { describe, expect, it } from 'vitest';
import { pathologicalInputs, randomInputs } from '../fixtures/hostile-text';
import { PARSERS } from '../fixtures/parsers-under-test';

const MIB = 1024 * 1024;
const STALLERS = ['backticks', '{ flood', 'one long line', 'repeated <think>', 'json fences', '[ flood'];
const big = pathologicalInputs(MIB).filter((p) => STALLERS.includes(p.name));
const medium = pathologicalInputs(64 * 1024);
const small = randomInputs(1000, 600, 42);
const inputs = [...small, ...medium.map((p) => p.text), ...big.map((p) => p.text), '', ' ', '\u0000', '\uffff'.repeat(3)];

describe('parsers of model text: fuzz', () => {
  it(`feeds ${inputs.length} inputs (${big.length} of 1 MiB) to each parser`, () => {
    expect(inputs.length).toBeGreaterThanOrEqual(1000);
    expect(big.map((p) => p.name).sort()).toEqual([...STALLERS].sort());
  });

  for (const [name, parse] of Object.entries(PARSERS)) {
    it(`${name} returns on every input`, () => {
      const failures: string[] = [];
      for (const text of inputs) {
        try {
          parse(text);
        } catch (err) {
          failures.push(`${JSON.stringify(text.slice(0, 40))}: ${String(err).slice(0, 80)}`);
        }
      }
      expect(failures).toEqual([]);
    });
  }
});
