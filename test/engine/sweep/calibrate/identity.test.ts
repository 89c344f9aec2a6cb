import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../../../src/index';
import { calibrationIdentity, canonical } from '../../../../src/engine/sweep/calibrate/identity';
import { EvaluationJournal, JournalMismatchError } from '../../../../src/engine/sweep/calibrate/journal';
import { loadTargets } from '../../../../src/engine/sweep/calibrate/targets';
import type { FitParameter } from '../../../../src/engine/sweep/calibrate/calibrate';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'evo-identity-'));
const PARAMETERS: FitParameter[] = [{ name: 'base', lo: -4, hi: 5, start: 1.2 }];

/** Reverse the key order of every object: the same content, listed the other way round. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.keys(value).reverse().map((k) => [k, reversed((value as Record<string, unknown>)[k])]));
}

/**
 * A scenario file under `dir` naming a world file (written beside it, under `worldDir`), and the
 * calibration identity of one target on it. `edit` changes the scenario JSON, `worldEdit` the world.
 */
function identityOf(dir: string, o: {
  edit?: (s: Record<string, unknown>) => Record<string, unknown>; world?: Record<string, unknown>; worldDir?: string;
  seeds?: number[]; patch?: Record<string, unknown>; accuracy?: number; parameters?: FitParameter[];
} = {}): string {
  mkdirSync(dir, { recursive: true });
  const worldDir = path.join(dir, o.worldDir ?? 'worlds');
  mkdirSync(worldDir, { recursive: true });
  const worldFile = path.join(worldDir, 'w.json');
  writeFileSync(worldFile, JSON.stringify({ schemaVersion: 1, name: 'w', params: { base: 2 }, niches: { arithmetic: { coverage: 1.5 } }, ...o.world }));
  const hard = loadScenario('hard').scenario;
  const raw = { ...hard, name: 'arith', sim: { world: path.relative(dir, worldFile) }, stream: { ...hard.stream, tasks: 30, niches: [{ id: 'arithmetic' }] } };
  const file = path.join(dir, 'arith.json');
  writeFileSync(file, JSON.stringify(o.edit ? o.edit(raw) : raw));
  const targets = path.join(dir, 'targets.json');
  writeFileSync(targets, JSON.stringify({ schemaVersion: 1, targets: [{ variant: 'single-agent', niche: 'arithmetic', accuracy: o.accuracy ?? 0.4, n: 50, source: 'x' }] }));
  return calibrationIdentity({
    targets: loadTargets(targets, loadScenario(file)), parameters: o.parameters ?? PARAMETERS, seeds: o.seeds ?? [1, 2],
    ...(o.patch ? { patch: o.patch } : {}),
  });
}

describe('calibration identity', () => {
  it('canonical form sorts keys at every level and keeps arrays in order', () => {
    expect(JSON.stringify(canonical({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } }))).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('is the same when nothing that determines the evaluations changed: key order, name, description, the world file\'s place and provenance', () => {
    const base = identityOf(tmp());
    expect(identityOf(tmp(), { edit: (s) => reversed(s) as Record<string, unknown> })).toBe(base);
    expect(identityOf(tmp(), { edit: (s) => ({ ...s, name: 'renamed', description: 'another description' }) })).toBe(base);
    expect(identityOf(tmp(), { worldDir: 'elsewhere/deeper', world: { name: 'other', description: 'moved', fit: { chi2: 3 } } })).toBe(base);
    // The scenario's own variant and seed: every calibration run sets both.
    expect(identityOf(tmp(), { edit: (s) => ({ ...s, variant: 'single-agent', seed: 9 }) })).toBe(base);
  });

  it('changes with anything that moves an evaluation: the world, the stream, every run\'s patch, seeds, targets, parameters', () => {
    const base = identityOf(tmp());
    const others = [
      identityOf(tmp(), { world: { params: { base: 2.5 } } }),
      identityOf(tmp(), { world: { niches: { arithmetic: { coverage: 1.6 } } } }),
      identityOf(tmp(), { edit: (s) => ({ ...s, stream: { ...(s.stream as object), tasks: 31 } }) }),
      identityOf(tmp(), { edit: (s) => ({ ...s, agents: { count: 4, template: 'generalist' } }) }),
      identityOf(tmp(), { patch: { 'stream.tasks': 20 } }),
      identityOf(tmp(), { seeds: [1, 3] }),
      identityOf(tmp(), { accuracy: 0.41 }),
      identityOf(tmp(), { parameters: [{ name: 'base', lo: -4, hi: 6, start: 1.2 }] }),
    ];
    for (const o of others) expect(o).not.toBe(base);
    expect(new Set(others).size).toBe(others.length);
    // A patch that sets what the scenario already says moves nothing.
    expect(identityOf(tmp(), { patch: { 'stream.tasks': 30 } })).toBe(base);
  });

  it('a journal is read back after a change that moves no evaluation, and refused after one that does', () => {
    const dir = tmp();
    const journal = path.join(dir, 'j.jsonl');
    const j = new EvaluationJournal(journal, identityOf(path.join(dir, 'a')));
    j.add({ type: 'eval', key: 'k', values: [1], sims: [{ value: 0.4, n: 30, se: 0.09 }], chi2: 0.5 });
    const moved = new EvaluationJournal(journal, identityOf(path.join(dir, 'b'), { worldDir: 'moved', edit: (s) => ({ ...s, description: 'new' }) }));
    expect(moved.size).toBe(1);
    expect(moved.get('k')?.chi2).toBe(0.5);
    expect(() => new EvaluationJournal(journal, identityOf(path.join(dir, 'c'), { world: { params: { base: 3 } } }))).toThrow(JournalMismatchError);
  });
});
