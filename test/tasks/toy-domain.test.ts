import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, parseScenario, runScenario } from '../../src/index';
import { withOverrides } from '../../src/engine/scenario/scenario';
import { registerDomain } from '../../src/tasks/domains';
import { registerGenerator } from '../../src/tasks/generators';
import { registerNicheSpec } from '../../src/tasks/niche-registry';
import { parseNicheSpec } from '../../src/tasks/niche-schema';
import { tallyDomain, tallyGenerator, tallyNiche } from '../fixtures/toy-domain';

describe('a domain added in one file', () => {
  it('is accepted by the niche schema once registered, graded by its own grader, and answered by the simulator in its format', async () => {
    expect(() => parseNicheSpec(tallyNiche, 'letter-tally.json')).toThrow(/letter-tally\.json: domain: unknown domain "tally"/);
    registerDomain(tallyDomain);
    registerGenerator(tallyGenerator);
    registerNicheSpec(tallyNiche);
    const base = loadScenario('scenarios/quickstart.json');
    const s = withOverrides(base, { stream: { tasks: 40, niches: [{ id: 'letter-tally' }, { id: 'arithmetic' }] } } as never);
    expect(parseScenario(s.scenario, 's.json').scenario.stream.niches.map((n) => n.id)).toEqual(['letter-tally', 'arithmetic']);
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'evo-toy-domain-')), 'run');
    const { summary } = await runScenario(s, { outDir: dir, report: false });
    expect(summary.failures).toBe(0);
    expect(summary.perNiche['letter-tally']).toBeGreaterThan(0);
    const events = readFileSync(path.join(dir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const graded = events.filter((e) => e.type === 'task.graded' && e.niche === 'letter-tally');
    expect(graded.length).toBeGreaterThan(5);
    // The simulator wrote its answers in the domain's format, and the domain's grader read them.
    expect(graded.every((e) => e.detail !== 'no Tally: line' || e.reward === 0)).toBe(true);
    expect(graded.some((e) => e.reward === 1)).toBe(true);
    expect(graded.some((e) => e.reward === 0)).toBe(true);
  });
});
