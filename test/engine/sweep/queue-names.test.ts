import { describe, expect, it } from 'vitest';
import { formatAblationTable, type RunSummary } from '../../../src/index';
import { aggregateAblation } from '../../../src/engine/sweep/ablate';
import { parseRedisTarget } from '../../../src/engine/sweep/redis-target';
import { redactRedisUrl } from '../../../src/engine/sweep/queue-names';
import { sweepJobId } from '../../../src/engine/sweep/queue-names';

describe('sweep queue names and URLs', () => {
  it('redacts the password and user of a Redis URL, and keeps the rest', () => {
    expect(redactRedisUrl('redis://:hunter2@10.0.0.5:6379')).toBe('redis://:***@10.0.0.5:6379');
    expect(redactRedisUrl('rediss://ops:hunter2@redis.lab:6380/2')).toBe('rediss://***:***@redis.lab:6380/2');
    expect(redactRedisUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
    expect(redactRedisUrl('not a url //user:hunter2@x')).not.toContain('hunter2');
  });

  it('rejects a --queue value that is not a redis URL, without echoing its password', () => {
    expect(() => parseRedisTarget('http://:hunter2@host:6379')).toThrow(/redis:\/\/ or rediss:\/\/ URL, got "http:\/\/:\*\*\*@host:6379"/);
    expect(parseRedisTarget('redis://:pw@h:1').shown).toBe('redis://:***@h:1');
  });

  it('names one job per (sweep, variant, seed) without the ":" BullMQ reserves', () => {
    expect(sweepJobId('ab12', 'no-team', 3)).toBe('ab12.no-team.s3');
  });
});

describe('aggregating a sweep with failed runs', () => {
  const summary = (variant: string, seed: number, accuracy: number) =>
    ({ variant, seed, accuracy, perNiche: { algebra: accuracy }, stableSpecialists: 1, runDir: `/runs/${variant}-s${seed}` }) as unknown as RunSummary;
  const plan = { scenario: 'q', variants: ['a', 'b'], seedList: [1, 2], outDir: '/out' };

  it('leaves failed seeds out of the figures, names them, and shows them in the table', () => {
    const results = new Map([['a/1', summary('a', 1, 0.5)], ['a/2', summary('a', 2, 0.7)], ['b/1', summary('b', 1, 0.4)]]);
    const failed = [{ variant: 'b', seed: 2, error: 'grader crashed', attempts: 3 }];
    const r = aggregateAblation(plan, results, { failed, hosts: new Map([['a/1', 'gpu1'], ['a/2', 'gpu2'], ['b/1', 'gpu1']]) });
    expect(r.variants.a!.accuracy).toEqual({ mean: 0.6, sd: 0.1414 });
    expect(r.variants.b!).toMatchObject({ accuracy: { mean: 0.4, sd: 0 }, failedSeeds: [2], runs: ['/runs/b-s1'], hosts: ['gpu1'] });
    expect(r.failed).toEqual(failed);
    const table = formatAblationTable(r);
    // One seed left: its value stands alone, never "± 0.000".
    expect(table).toMatch(/^b\s+0\.400 .*\(failed seeds: 2\)$/m);
    expect(table).toContain('failed: b seed 2 after 3 attempts: grader crashed');
  });

  it('marks a variant with no finished seed FAILED', () => {
    const failed = [1, 2].map((seed) => ({ variant: 'b', seed, error: 'x', attempts: 1 }));
    const r = aggregateAblation(plan, new Map([['a/1', summary('a', 1, 0.5)], ['a/2', summary('a', 2, 0.5)]]), { failed });
    expect(formatAblationTable(r)).toMatch(/^b\s+FAILED \(all 2 seeds failed\)$/m);
  });
});
