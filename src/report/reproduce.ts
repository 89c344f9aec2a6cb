import path from 'node:path';
import { patchArgs, type ScenarioPatch } from '../core/scenario-patch';
import type { ReportData } from './report-data';

/** A word as the shell reads it: bare when it is plain, else single-quoted. */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** `outDir` as the commands name it: relative to here when it is below, else absolute. */
function where(outDir: string): string {
  const rel = path.relative(process.cwd(), outDir);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : outDir;
}

/** The patch as shell words (`--set path=value` per entry). */
const patchWords = (patch: ScenarioPatch) => patchArgs(patch).map(shellWord);

/**
 * How to run the same scenario again, from what the run wrote when it started: the scenario as
 * run (run.json `config`, saved beside the report), which holds every override already; or the
 * original file with the run's patch (run.json `patch`). The report knows neither the CLI's flags
 * nor the scenario's defaults: the patch is the run's own record of what it changed.
 */
export function reproduceCommands(run: { readonly scenario: string; readonly patch: ScenarioPatch }, outDir: string): ReportData['reproduce'] {
  return {
    scenarioFile: 'scenario.json',
    command: `npx evochamber run ${shellWord(path.join(where(outDir), 'scenario.json'))}`,
    fromOriginal: ['npx', 'evochamber', 'run', shellWord(`scenarios/${run.scenario}.json`), ...patchWords(run.patch)].join(' '),
    patch: { ...run.patch },
  };
}

/** What an ablation ran (its `ablation-plan.json`), as far as reproducing it needs. */
export interface AblationPlanView {
  /** The scenario ablate was given (saved beside the report). */
  readonly config: { readonly name?: string };
  readonly variants: readonly string[];
  readonly seeds: number;
  /** What every run changed in it, the sweep's budget and its own settings (`sweep.*`: the order runs go in, each run's window) included. */
  readonly patch: ScenarioPatch;
}

/** How to run the same ablation again: the scenario it was given (saved beside the report) or the original file, each with the ablation's patch. */
export function ablationReproduceCommands(plan: AblationPlanView, outDir: string): ReportData['reproduce'] {
  const own = ['--variants', plan.variants.join(','), '--seeds', String(plan.seeds)];
  const flags = [...own.map(shellWord), ...patchWords(plan.patch)].join(' ');
  return {
    scenarioFile: 'scenario.json',
    command: `npx evochamber ablate ${shellWord(path.join(where(outDir), 'scenario.json'))} ${flags}`,
    fromOriginal: `npx evochamber ablate ${shellWord(`scenarios/${plan.config.name ?? 'scenario'}.json`)} ${flags}`,
    patch: { ...plan.patch },
  };
}

/** A patch as lines, `path = value` each (values as JSON), for the report to print. */
export function patchLines(patch: ScenarioPatch): string {
  const entries = Object.entries(patch);
  return entries.length ? entries.map(([p, v]) => `${p} = ${JSON.stringify(v)}`).join('\n') : '(nothing: the scenario file as it is)';
}
