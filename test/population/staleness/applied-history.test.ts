import { describe, expect, it } from 'vitest';
import { createRng, type AgentView } from '../../../src/index';
import { AppliedHistory, collectSince } from '../../../src/population/staleness/applied-history';
import type { UpdateChanges } from '../../../src/population/supervisor-machine';
import { agentView } from '../../fakes/agents';
import { changes, item } from './staleness-fixtures';

const retired = (id: string, successor: string | null): AgentView => ({ ...agentView(id), status: 'retired', successor });

describe('collectSince', () => {
  const log = [
    changes(3, [['a', 'old lesson for a']]),
    changes(5, [['a', 'lesson for a'], ['b', 'algebra lesson for b'], ['b', 'people lesson for b', 'people-qa']]),
    changes(6, [['c', 'meta for c', null]], [['a', 'a duplicate']]),
    changes(8, [['a', 'later lesson for a']]),
  ];

  it('lists entries stored after the version, up to current, for the receiver or in its bucket, oldest first', () => {
    const since = collectSince(log, item('a', 'x', 4), 7);
    expect(since.map((s) => s.kind === 'entry' && `${s.version}:${s.receiver}:${s.text}`)).toEqual([
      '5:a:lesson for a', '5:b:algebra lesson for b',
    ]);
  });

  it('leaves out duplicates, other buckets of other agents, and what came before or after', () => {
    const since = collectSince(log, item('a', 'x', 3), 8);
    const texts = since.map((s) => (s.kind === 'entry' ? s.text : ''));
    expect(texts).not.toContain('a duplicate');
    expect(texts).not.toContain('people lesson for b');
    expect(texts).not.toContain('meta for c');
    expect(texts).not.toContain('old lesson for a');
    expect(texts).toContain('later lesson for a');
  });

  it('a meta item looks at the meta pool, and at everything its receiver got', () => {
    const since = collectSince(log, item('a', 'x', 4, null), 8);
    expect(since.map((s) => s.kind === 'entry' && s.text)).toEqual(['lesson for a', 'meta for c', 'later lesson for a']);
  });

  it('follows merges: entries for the successor count, and the roster change is listed', () => {
    const roster = [retired('b', 'c'), agentView('c')];
    const since = collectSince(log, item('b', 'x', 4, 'people-qa'), 8, roster);
    expect(since).toContainEqual({ kind: 'retired', agentId: 'b', successor: 'c' });
    expect(since.map((s) => s.kind === 'entry' && s.text)).toContain('meta for c');
    expect(since.map((s) => s.kind === 'entry' && s.text)).toContain('people lesson for b');
  });
});

describe('AppliedHistory', () => {
  it('answers as collectSince does, over a random run with merges', () => {
    const rng = createRng('applied-history');
    const agents = ['a', 'b', 'c', 'd', 'e'];
    const niches = ['algebra', 'people-qa', null];
    const log: UpdateChanges[] = [];
    const history = new AppliedHistory(10_000);
    let v = 0;
    for (let t = 0; t < 300; t++) {
      v += rng.chance(0.2) ? 2 : 1; // lifecycle windows bump the version with no update
      const stored = Array.from({ length: rng.int(5) }, () => [rng.pick(agents), `text ${v} ${rng.int(10)}`, rng.pick(niches)] as [string, string, string | null]);
      const c = changes(v, stored, rng.chance(0.3) ? [[rng.pick(agents), 'dup']] : []);
      log.push(c);
      history.push(c);
    }
    const roster = [retired('a', 'b'), agentView('b'), retired('c', null), agentView('d'), agentView('e')];
    let nonEmpty = 0;
    for (let q = 0; q < 200; q++) {
      const version = rng.int(v);
      const current = version + rng.int(v + 2 - version);
      const it = item(rng.pick(agents), 'x', version, rng.pick(niches));
      const got = history.since(it, current, roster);
      expect(got).toEqual(collectSince(log, it, current, roster));
      if (got.some((s) => s.kind === 'entry')) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(100);
  });

  it('keeps only the last `capacity` updates and says when an item reaches further back', () => {
    const history = new AppliedHistory(3);
    for (let v = 1; v <= 6; v++) history.push(changes(v, [['a', `lesson ${v}`]]));
    expect(history.covers(3)).toBe(true);
    expect(history.covers(2)).toBe(false);
    expect(history.since(item('a', 'x', 0), 6).map((s) => s.kind === 'entry' && s.version)).toEqual([4, 5, 6]);
  });

  it('refuses an update older than one already pushed', () => {
    const history = new AppliedHistory();
    history.push(changes(4, []));
    expect(() => history.push(changes(4, []))).toThrow(/version 4 pushed after version 4/);
  });
});
