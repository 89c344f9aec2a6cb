import { vl, type Section } from './charts/section';
import { renderPage, type RenderedPage } from './html/page';

/** The fit report's data (`<world>.fit.json`, written by `evochamber calibrate`): what this page draws. */
export interface FitReportData {
  readonly schemaVersion: 1;
  readonly world: string;
  readonly scenario: string;
  readonly targetsFile: string;
  readonly seeds: readonly number[];
  readonly tasks: number | null;
  readonly chi2: number;
  readonly dof: number;
  /** P(χ²_dof ≥ χ²): the fit's goodness. */
  readonly pValue: number;
  readonly converged: boolean;
  readonly convergence: {
    readonly met: boolean; readonly simplexCollapsed: boolean; readonly predictedDecrease: number | null; readonly rule: string;
    /** The noise thresholds of the gain and of a later evaluation's drop below the fit; absent in reports from before. */
    readonly gainThreshold?: number | null; readonly drop?: number | null; readonly dropThreshold?: number | null;
    readonly betterPoint?: { readonly name: string; readonly value: number; readonly chi2: number };
  };
  /** The parameters' covariance (parameter units) from the response surface; null when singular. */
  readonly covariance: readonly (readonly number[])[] | null;
  /** Leave-one-target-out: each target refitted without, against its prediction interval. */
  readonly heldOut: readonly {
    readonly index: number; readonly variant: string; readonly niche: string; readonly scenario: string;
    readonly target: number; readonly predicted: number; readonly interval: readonly [number, number]; readonly inside: boolean;
    /** The value at the refit: its plane's (`surface`) or runs there (`evaluation`); absent in reports from before. */
    readonly by?: 'surface' | 'evaluation';
  }[];
  readonly evaluations: { readonly total: number; readonly paid: number; readonly fromJournal: number; readonly search: number; readonly budget: number };
  /** Wall time of this session and its pace; absent from the world file (it is not deterministic). */
  readonly wallSeconds?: number;
  readonly evaluationsPerMinute?: number;
  readonly parameters: readonly {
    readonly name: string; readonly start: number; readonly lo: number; readonly hi: number; readonly value: number; readonly se: number;
    readonly interval: readonly [number, number]; readonly open: readonly [boolean, boolean]; readonly pinned: boolean;
    readonly profile: readonly { readonly value: number; readonly chi2: number }[];
  }[];
  readonly targets: readonly {
    readonly index: number; readonly variant: string; readonly niche: string; readonly scenario: string; readonly source: string;
    readonly target: number; readonly se: number; readonly fitted: number; readonly fittedSe: number; readonly fittedN: number;
    readonly interval: readonly [number, number]; readonly within: boolean; readonly moved: boolean;
  }[];
  readonly notPinned: readonly string[];
  /** Parameters on a direction the targets do not determine (no standard error); absent in reports from before. */
  readonly undetermined?: readonly string[];
  readonly unmoved: readonly number[];
  /** A profile point better than the fit (the search had not converged). */
  readonly betterInProfile?: { readonly name: string; readonly value: number; readonly chi2: number };
}

const f3 = (x: number) => x.toFixed(3);
const interval = (p: FitReportData['parameters'][number]) =>
  `${p.open[0] ? '≤ ' : ''}${f3(p.interval[0])} – ${p.open[1] ? '≥ ' : ''}${f3(p.interval[1])}`;

const notConverged = (b: NonNullable<FitReportData['betterInProfile']>) =>
  `the search had not converged: the profile of ${b.name} found χ² ${b.chi2.toFixed(2)} at ${f3(b.value)}, below the fit's by more than noise allows (raise --budget, or lengthen the runs)`;

const pText = (p: number) => (Number.isNaN(p) ? 'no degree of freedom' : `p = ${p < 0.001 ? p.toExponential(1) : p.toFixed(3)}`);
const seText = (se: number) => (Number.isFinite(se) ? f3(se) : 'not determined');

/** The convergence line: the rule, and whether the fit met it. */
export function convergenceLine(d: Pick<FitReportData, 'convergence'>): string {
  const c = d.convergence;
  const noise = (t: number | null | undefined) => (t === null || t === undefined ? '' : ` against ${t.toFixed(2)} from noise alone`);
  const dec = c.predictedDecrease === null ? 'no response surface' : `a further step would gain ${c.predictedDecrease.toFixed(2)}${noise(c.gainThreshold)}`;
  const drop = c.drop === null || c.drop === undefined ? '' : `; the lowest later evaluation is ${c.drop === 0 ? 'level with' : `${Math.abs(c.drop).toFixed(2)} ${c.drop > 0 ? 'below' : 'above'}`} the fit${noise(c.dropThreshold)}`;
  return `converged: ${c.met ? 'yes' : 'NO'} (${dec}${drop}; simplex ${c.simplexCollapsed ? 'collapsed' : 'stopped at its budget'}${c.betterPoint ? `; ${notConverged(c.betterPoint)}` : ''}). Rule: ${c.rule}`;
}

/** The leave-one-target-out table. */
export function heldOutTable(d: Pick<FitReportData, 'heldOut'>): string {
  if (!d.heldOut.length) return 'leave-one-out: not run';
  const w = Math.max(8, ...d.heldOut.map((t) => `${t.variant} / ${t.niche}`.length));
  const inside = d.heldOut.filter((t) => t.inside).length;
  return [
    `leave-one-target-out: ${inside} of ${d.heldOut.length} held-out targets inside their 95% prediction interval (refitted without each)`,
    `${'held out'.padEnd(w)}  measured   predicted [95% for the measurement]   inside   by`,
    ...d.heldOut.map((t) => `${`${t.variant} / ${t.niche}`.padEnd(w)}  ${f3(t.target)}      ${f3(t.predicted)} [${f3(t.interval[0])}, ${f3(t.interval[1])}]           ${(t.inside ? 'yes' : 'NO').padEnd(6)}   ${t.by ?? '-'}`),
  ].join('\n');
}

/** The fit as plain-text tables: every target against its fitted value, every parameter with its interval, χ² and p, convergence, leave-one-out. */
export function fitTables(d: FitReportData): string {
  const w = Math.max(8, ...d.targets.map((t) => `${t.variant} / ${t.niche}`.length), ...d.parameters.map((p) => p.name.length));
  return [
    `fit of ${d.world} on ${d.scenario}: χ² ${d.chi2.toFixed(2)} on ${d.dof} degrees of freedom (${d.targets.length} targets − ${d.parameters.length} parameters), ${pText(d.pValue)}; ${d.evaluations.total} evaluations, ${d.evaluations.paid} paid, seeds ${d.seeds.join(', ')}`,
    convergenceLine(d),
    `${'target'.padEnd(w)}  measured ± 1.96 se    fitted [95%]            within`,
    ...d.targets.map((t) => `${`${t.variant} / ${t.niche}`.padEnd(w)}  ${f3(t.target)} ± ${f3(1.96 * t.se)}       ${f3(t.fitted)} [${f3(t.interval[0])}, ${f3(t.interval[1])}]   ${t.within ? 'yes' : 'NO'}${t.moved ? '' : ' (no evaluation moved it)'}`),
    `${'parameter'.padEnd(w)}  start    fitted   se (covariance)   95% interval (profile)`,
    ...d.parameters.map((p) => `${p.name.padEnd(w)}  ${f3(p.start).padStart(6)}   ${f3(p.value).padStart(6)}   ${seText(p.se).padStart(15)}   ${interval(p)}${p.pinned ? '' : '   not pinned down by the targets'}`),
    d.notPinned.length ? `not pinned down: ${d.notPinned.join(', ')}` : 'every fitted parameter is pinned down by the targets',
    ...(d.undetermined?.length ? [`not determined by the targets (on a direction whose χ² changes by less than 1 across the whole box; no standard error): ${d.undetermined.join(', ')}`] : []),
    ...(d.covariance ? [correlationText(d)] : ['covariance: the response surface is singular (some direction is not determined by the targets); the other parameters\' errors are from its inverse on the directions it determines']),
    heldOutTable(d),
  ].join('\n');
}

/** The correlation matrix of the fitted parameters, from the covariance. */
function correlationText(d: FitReportData): string {
  const c = d.covariance!;
  const r = (i: number, j: number) => c[i]![j]! / Math.sqrt(c[i]![i]! * c[j]![j]!);
  const w = Math.max(...d.parameters.map((p) => p.name.length));
  return ['parameter correlations (response surface):', ...d.parameters.map((p, i) => `  ${p.name.padEnd(w)}  ${d.parameters.map((_, j) => r(i, j).toFixed(2).padStart(6)).join('')}`)].join('\n');
}

function sections(d: FitReportData): Section[] {
  const targetRows = d.targets.flatMap((t) => {
    const label = `${t.variant} / ${t.niche}${t.scenario !== d.scenario ? ` (${t.scenario})` : ''}`;
    return [
      { label, kind: 'measured', value: t.target, lo: Math.max(0, t.target - 1.96 * t.se), hi: Math.min(1, t.target + 1.96 * t.se) },
      { label, kind: 'fitted', value: t.fitted, lo: t.interval[0], hi: t.interval[1] },
    ];
  });
  const profileRows = d.parameters.flatMap((p) => p.profile.map((x) => ({ parameter: p.name, value: x.value, chi2: x.chi2 })));
  return [
    {
      id: 'targets', heading: 'Targets against the fitted world',
      intro: 'Each measured accuracy (± 1.96 standard errors) beside what the fitted world gives on the same variant and niche (its 95% interval is the simulator\'s own sampling spread over its graded tasks).',
      figures: [
        { label: 'targets within their interval', value: `${d.targets.filter((t) => t.within).length} / ${d.targets.length}` },
        { label: 'χ² (degrees of freedom), p', value: `${d.chi2.toFixed(2)} (${d.dof}), ${pText(d.pValue)}` },
        { label: 'converged', value: d.convergence.met ? 'yes' : 'no' },
        ...(d.convergence.predictedDecrease !== null && d.convergence.gainThreshold != null ? [{ label: 'predicted gain (noise threshold)', value: `${d.convergence.predictedDecrease.toFixed(2)} (${d.convergence.gainThreshold.toFixed(2)})` }] : []),
        { label: 'held-out targets inside their interval', value: `${d.heldOut.filter((t) => t.inside).length} / ${d.heldOut.length}` },
        { label: 'evaluations (paid)', value: `${d.evaluations.total} (${d.evaluations.paid})` },
      ],
      charts: [{
        id: 'fit-targets', title: 'Measured and fitted accuracy',
        caption: 'A fitted bar far from its measured one, with intervals apart, is a target the world could not reach.',
        spec: vl({
          data: { values: targetRows },
          width: 480,
          encoding: { y: { field: 'label', type: 'nominal', title: null, axis: { labelLimit: 320 } }, yOffset: { field: 'kind' }, color: { field: 'kind', type: 'nominal', title: null } },
          layer: [
            { mark: 'rule', encoding: { x: { field: 'lo', type: 'quantitative', title: 'accuracy', scale: { domain: [0, 1] } }, x2: { field: 'hi' } } },
            { mark: { type: 'point', filled: true }, encoding: { x: { field: 'value', type: 'quantitative' } } },
          ],
        }),
      }],
      tables: [{
        caption: 'Every target',
        headers: ['variant', 'niche', 'scenario', 'measured', '± 1.96 se', 'fitted', '95% interval', 'within', 'source'],
        rows: d.targets.map((t) => [t.variant, t.niche, t.scenario, f3(t.target), f3(1.96 * t.se), f3(t.fitted), `${f3(t.interval[0])} – ${f3(t.interval[1])}`, t.within ? 'yes' : t.moved ? 'no' : 'no (nothing fitted moves it)', t.source]),
      }],
      notes: d.unmoved.length ? [`No evaluation moved target(s) ${d.unmoved.join(', ')}: no fitted parameter reaches them.`] : [],
    },
    {
      id: 'parameters', heading: 'Fitted parameters',
      intro: `Each parameter's standard error is from the covariance of a local response surface (every target a plane in the parameters, fitted over the evaluations around the fit); its 95% interval is read from its profile: the objective with that parameter moved and the others following the surface's valley, where it stays within 3.84 of its least. A profile that barely rises, or stays low to both ends, means the targets do not pin the parameter down. ${convergenceLine(d)}`,
      charts: profileRows.length ? [{
        id: 'fit-profiles', title: 'Profiles of the objective',
        caption: 'A steep valley pins a parameter down; a flat line leaves it free.',
        spec: vl({
          data: { values: profileRows },
          facet: { field: 'parameter', type: 'nominal', title: null },
          spec: { width: 220, height: 140, mark: { type: 'line', point: true }, encoding: { x: { field: 'value', type: 'quantitative', scale: { zero: false } }, y: { field: 'chi2', type: 'quantitative', title: 'χ²' } } },
          resolve: { scale: { x: 'independent' } },
        }),
      }] : [],
      tables: [{
        caption: 'Every fitted parameter',
        headers: ['parameter', 'bounds', 'start', 'fitted', 'se (covariance)', '95% interval (profile)', 'pinned down'],
        rows: d.parameters.map((p) => [p.name, `${p.lo} – ${p.hi}`, f3(p.start), f3(p.value), seText(p.se), interval(p), p.pinned ? 'yes' : 'no']),
      }, {
        caption: 'Leave-one-target-out: each target refitted without it, its measurement against the prediction',
        headers: ['variant', 'niche', 'scenario', 'measured', 'predicted', '95% interval', 'inside', 'predicted by'],
        rows: d.heldOut.map((t) => [t.variant, t.niche, t.scenario, f3(t.target), f3(t.predicted), `${f3(t.interval[0])} – ${f3(t.interval[1])}`, t.inside ? 'yes' : 'no', t.by === 'surface' ? 'the response surface' : t.by === 'evaluation' ? 'runs at the refit' : '-']),
      }],
      notes: [
        ...(d.undetermined?.length ? [`Not determined by the targets (no standard error): ${d.undetermined.join(', ')}.`] : []),
        ...(d.notPinned.length ? [`Not pinned down by the targets: ${d.notPinned.join(', ')}.`] : []),
      ],
    },
  ];
}

/** The fit report as one self-contained HTML page (the report's page and chart helpers). */
export function renderFitPage(d: FitReportData): Promise<RenderedPage> {
  return renderPage({
    title: `EvoChamber calibration — ${d.world}`,
    subtitle: [`Scenario ${d.scenario} · targets ${d.targetsFile} · seeds ${d.seeds.join(', ')}${d.tasks !== null ? ` · ${d.tasks} tasks a run` : ''}`],
    warnings: [...(d.convergence.met ? [] : [convergenceLine(d)]), ...d.heldOut.filter((t) => !t.inside).map((t) => `held-out target ${t.variant} / ${t.niche} (${f3(t.target)}) is outside its prediction interval ${f3(t.interval[0])} – ${f3(t.interval[1])}`), ...d.targets.filter((t) => !t.within).map((t) => `target ${t.variant} / ${t.niche} (${f3(t.target)}) is outside the fitted world's reach: ${f3(t.fitted)}`)],
    sections: sections(d),
    footer: `Written by evochamber calibrate; ${d.world}.fit.json beside this file holds everything drawn here.`,
  });
}
