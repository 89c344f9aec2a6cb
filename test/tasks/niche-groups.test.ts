import { describe, expect, it } from 'vitest';
import { groupedNiches, nicheGroups, nichesCovered, pooledOver, targetNames } from '../../src/tasks/niche-groups';
import { loadBuiltinNicheSpecs } from '../../src/tasks/niche-registry';

const FIVE = groupedNiches(['math-hard', 'aime-2022', 'aime-2023', 'aime-2024', 'aime-2025'], (id) => loadBuiltinNicheSpecs().get(id));
const TWO = groupedNiches(['math-hard', 'aime'], (id) => loadBuiltinNicheSpecs().get(id));

describe('niche groups: a target may name the niches a published figure covers together', () => {
  it('the four AIME years form the group aime; a niche id, a group and all each cover their niches', () => {
    expect(nicheGroups(FIVE)).toEqual(new Map([['aime', ['aime-2022', 'aime-2023', 'aime-2024', 'aime-2025']]]));
    expect(nichesCovered('aime', FIVE)).toEqual(['aime-2022', 'aime-2023', 'aime-2024', 'aime-2025']);
    expect(nichesCovered('aime-2023', FIVE)).toEqual(['aime-2023']);
    expect(nichesCovered('all', FIVE)).toHaveLength(5);
    expect(nichesCovered('codecontests', FIVE)).toEqual([]);
    expect(targetNames(FIVE)).toEqual(['all', 'math-hard', 'aime-2022', 'aime-2023', 'aime-2024', 'aime-2025', 'aime']);
  });

  it('on the two-niche stream aime is the niche itself (an id wins over a group of that name)', () => {
    expect(nichesCovered('aime', TWO)).toEqual(['aime']);
    expect(targetNames(TWO)).toEqual(['all', 'math-hard', 'aime']);
  });

  it('a group\'s tally is its members\' tasks together', () => {
    const t = (n: number, sum: number) => ({ n, sum, sumSq: sum });
    const tallies = new Map([['math-hard', t(262, 200)], ['aime-2022', t(30, 3)], ['aime-2023', t(30, 6)], ['aime-2025', t(30, 0)]]);
    expect(pooledOver('aime', FIVE, tallies)).toEqual({ n: 90, sum: 9, sumSq: 9 });
    expect(pooledOver('all', FIVE, tallies).n).toBe(352);
  });
});
