import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/cli/main';
import { loadScenario, runScenario } from '../../../src/index';
import { runAblation } from '../../../src/engine/sweep/ablate';
import { EVENT_CATALOGUE, eventsMarkdown } from '../../../src/store/events';

const out = () => mkdtempSync(path.join(tmpdir(), 'evo-events-schema-'));

/** What `evochamber schema events` prints, parsed. */
async function printedSchema(args: string[]): Promise<string> {
  let text = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => { text += String(chunk); return true; });
  try {
    expect(await main(args)).toBe(0);
  } finally {
    spy.mockRestore();
  }
  return text;
}

type Validate = ((v: unknown) => boolean) & { errors?: unknown[] | null };

/** Every line of a log that the schema rejects, with ajv's first error. */
function invalidLines(validate: Validate, file: string): string[] {
  const bad: string[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line) as { type: string; seq: number };
    if (!validate(e)) bad.push(`${path.basename(path.dirname(file))} seq ${e.seq} ${e.type}: ${JSON.stringify(validate.errors?.[0])}`);
  }
  return bad;
}

function typesIn(file: string): Set<string> {
  return new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { type: string }).type));
}

describe('the event catalogue, published', () => {
  let validate: Validate;
  beforeAll(async () => {
    const schema = JSON.parse(await printedSchema(['schema', 'events'])) as Record<string, unknown>;
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    // A real draft-2020-12 validator, as a notebook or another tool would use, not zod checking itself.
    const ajv = new Ajv2020({ strict: false, allErrors: false });
    validate = ajv.compile(schema) as Validate;
  });

  it('names every catalogue type once in the JSON Schema, and rejects unknown fields and types', async () => {
    const schema = JSON.parse(await printedSchema(['schema', 'events'])) as { oneOf: { properties: { type: { const: string } } }[] };
    const types = schema.oneOf.map((s) => s.properties.type.const);
    expect(types).toEqual(EVENT_CATALOGUE.map((d) => d.type));
    expect(new Set(types).size).toBe(types.length);
    const ok = { id: 'x', seq: 0, type: 'run.failed', error: 'boom' };
    expect(validate(ok)).toBe(true);
    expect(validate({ ...ok, surprise: 1 })).toBe(false);
    expect(validate({ ...ok, type: 'run.exploded' })).toBe(false);
    expect(validate({ id: 'x', seq: 0, type: 'task.graded', taskId: 't', niche: 'n', reward: '1', extracted: null, detail: '', disagreement: false })).toBe(false);
  });

  it('docs/runs-on-disk.md lists exactly the catalogue (the generated block matches it)', async () => {
    const doc = readFileSync(path.resolve('docs/runs-on-disk.md'), 'utf8');
    const begin = doc.indexOf('<!-- events:begin');
    const end = doc.indexOf('<!-- events:end -->');
    expect(begin).toBeGreaterThan(0);
    const block = doc.slice(doc.indexOf('\n', begin) + 1, end);
    expect(block).toBe(eventsMarkdown());
    expect(await printedSchema(['schema', 'events', '--markdown'])).toBe(eventsMarkdown());
  });

  describe('every line of real runs validates against the printed schema', () => {
    const seen = new Set<string>();
    afterAll(() => {
      // Which types these four runs never wrote (rare paths: failures, budgets, resumes): said, not hidden.
      const unseen = EVENT_CATALOGUE.map((d) => d.type).filter((t) => !seen.has(t));
      process.stdout.write(`event types not met in the schema test's runs: ${unseen.join(', ')}\n`);
    });
    const quickstart = () => loadScenario(path.resolve('scenarios/quickstart.json'));

    it('a quickstart run (lifecycle windows every 10 tasks)', async () => {
      const r = await runScenario(quickstart(), { patch: { 'stream.tasks': 40, 'population.lifecycle.every': 10 }, outDir: out(), report: false });
      const file = path.join(r.runDir, 'events.jsonl');
      expect(invalidLines(validate, file)).toEqual([]);
      for (const t of typesIn(file)) seen.add(t);
    });

    it('a hard run at in-flight 8 with the reflective staleness policy (stale items dropped, patched or kept)', async () => {
      const hard = loadScenario(path.resolve('scenarios/hard.json'));
      const patch = {
        'stream.tasks': 32, 'engine.inFlight': 8, 'engine.evolveTiming': 'when-ready', 'model.latency': 'qwen3-8b-h100-vllm',
        'engine.staleness': { policy: 'reflective', tau: 1 },
      };
      const r = await runScenario(hard, { patch, outDir: out(), report: false });
      const file = path.join(r.runDir, 'events.jsonl');
      expect(invalidLines(validate, file)).toEqual([]);
      const types = typesIn(file);
      expect(r.summary.evolve.maxGap).toBeGreaterThan(1);
      expect(['evolve.dropped', 'evolve.patched', 'evolve.fallback'].some((t) => types.has(t))).toBe(true);
      for (const t of types) seen.add(t);
    });

    it('a meta run (segments reported and edited)', async () => {
      const r = await runScenario(quickstart(), { patch: { 'stream.tasks': 30, variant: 'meta', meta: { every: 10, minTasks: 10 } }, outDir: out(), report: false });
      const file = path.join(r.runDir, 'events.jsonl');
      expect(invalidLines(validate, file)).toEqual([]);
      const types = typesIn(file);
      expect(types.has('meta.report') && types.has('meta.edit')).toBe(true);
      for (const t of types) seen.add(t);
    });

    it('an ablation (every run of it; in flight "auto", so the controller logs its changes)', async () => {
      const outDir = out();
      await runAblation(quickstart(), { patch: { 'stream.tasks': 24, 'engine.inFlight': 'auto' }, variants: ['evochamber', 'single-agent'], seeds: 1, outDir });
      const logs = readdirSync(outDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('events.jsonl'));
      expect(logs).toHaveLength(2);
      for (const f of logs) {
        expect(invalidLines(validate, path.join(outDir, f))).toEqual([]);
        for (const t of typesIn(path.join(outDir, f))) seen.add(t);
      }
    });
  });
});
