import { describe, expect, it } from 'vitest';
import { convergenceLine, fitTables, type FitReportData } from '../../src/report/fit-report';

const convergence: FitReportData['convergence'] = {
  met: false, simplexCollapsed: false, predictedDecrease: 7.83, gainThreshold: 6.2, drop: -0.4, dropThreshold: 3.1, rule: 'the rule',
};

describe('fit report', () => {
  it('the convergence line gives the predicted gain and the later drop against their noise thresholds', () => {
    const line = convergenceLine({ convergence });
    expect(line).toContain('converged: NO');
    expect(line).toContain('a further step would gain 7.83 against 6.20 from noise alone');
    expect(line).toContain('the lowest later evaluation is 0.40 above the fit against 3.10 from noise alone');
    // A report written before the thresholds existed still reads.
    expect(convergenceLine({ convergence: { met: true, simplexCollapsed: true, predictedDecrease: 0.5, rule: 'old' } })).toBe('converged: yes (a further step would gain 0.50; simplex collapsed). Rule: old');
  });

  it('a parameter the targets do not determine is said so, the others keep their errors', () => {
    const param = (name: string, se: number) => ({ name, start: 0, lo: 0, hi: 1, value: 0.5, se, interval: [0.4, 0.6] as const, open: [false, false] as const, pinned: Number.isFinite(se), profile: [] });
    const d: FitReportData = {
      schemaVersion: 1, world: 'w', scenario: 's', targetsFile: 't.json', seeds: [1], tasks: null, chi2: 1, dof: 1, pValue: 0.3, converged: false, convergence,
      covariance: null, heldOut: [], evaluations: { total: 10, paid: 10, fromJournal: 0, search: 5, budget: 10 },
      parameters: [param('base', 0.12), param('coverage', Infinity)], targets: [], notPinned: ['coverage'], undetermined: ['coverage'], unmoved: [],
    };
    const text = fitTables(d);
    expect(text).toMatch(/base .* 0\.120 /);
    expect(text).toMatch(/coverage .* not determined /);
    expect(text).toContain('not determined by the targets (on a direction whose χ² changes by less than 1 across the whole box; no standard error): coverage');
  });
});
