import { accuracySection } from './charts/accuracy-charts';
import { codreamSection } from './charts/codream-charts';
import { competenceSection } from './charts/competence-charts';
import { costSection } from './charts/cost-charts';
import { lineageSection } from './charts/lineage-charts';
import { agentColors } from './charts/palette';
import type { Section } from './charts/section';
import { specialistSection } from './charts/specialist-charts';
import { structureSection } from './charts/structure-charts';
import { metaSection } from './charts/meta-charts';
import { renderPage, type RenderedPage } from './html/page';
import { patchLines } from './reproduce';
import type { ReportData } from './report-data';

/** Section ids of a run report, in page order. */
export const RUN_SECTIONS = ['competence', 'specialists', 'lineage', 'codream', 'structures', 'accuracy', 'procedure', 'cost', 'reproduce'] as const;

/** Every section of a run report, built from its data. */
export function runSections(d: ReportData): Section[] {
  const agents = agentColors(d.agents.map((a) => a.agentId));
  return [
    competenceSection(d, agents),
    specialistSection(d, agents),
    lineageSection(d, agents),
    codreamSection(d, agents),
    structureSection(d),
    accuracySection(d),
    metaSection(d),
    costSection(d),
    reproduceSection(d),
  ];
}

/** Problems with the log a reader should know before trusting the charts (`live`: a run still going is not one). */
export function logWarnings(d: ReportData, opts: { live?: boolean } = {}): string[] {
  const out: string[] = [];
  const { skippedCount, skipped } = d.log;
  if (skippedCount > 0) {
    const lastOnly = skippedCount === 1 && skipped[0]?.last;
    out.push(lastOnly
      ? `The event log's last line (line ${skipped[0]!.line}) is truncated or garbled — the run was probably stopped mid-write; it was skipped.`
      : `${skippedCount} unreadable line${skippedCount > 1 ? 's' : ''} in the event log were skipped (first: line ${skipped[0]?.line}, ${skipped[0]?.reason}).`);
  }
  for (const [type, n] of Object.entries(d.log.malformed)) out.push(`${n} ${type} event${n > 1 ? 's' : ''} did not have the expected fields and were left out.`);
  if (!d.run.finished && !(opts.live && d.run.status === 'running')) out.push(`The run did not finish (status "${d.run.status}"): ${d.run.tasksDone} of ${d.run.plannedTasks} tasks are in the log.`);
  return out;
}

/** Render a run report page. */
export function renderRunPage(d: ReportData): Promise<RenderedPage> {
  return renderPage({
    title: `EvoChamber report — ${d.run.scenario} · ${d.run.variant} · seed ${d.run.seed}`,
    subtitle: [
      `Run ${d.run.id} · ${d.run.tasksDone} tasks · ${d.agents.length} agents · ${d.niches.length} niches · backend ${d.run.backend ?? 'unknown'} · accuracy ${d.accuracy.overall?.toFixed(3) ?? '–'}`,
      `Started ${d.run.createdAt} · ${d.log.events} events read from ${d.run.dir}/events.jsonl`,
    ],
    warnings: logWarnings(d),
    agents: { domain: d.agents.map((a) => a.agentId), range: agentColors(d.agents.map((a) => a.agentId)).range },
    sections: runSections(d),
    footer: `Generated ${d.generatedAt} by evochamber report from the run's event log; data.json beside this file holds everything drawn here.`,
  });
}

const runConfig = (d: ReportData) => d.run.config as { engine?: { inFlight?: number | 'auto' }; model?: { backend?: string } } | null;
const inFlightOf = (d: ReportData) => {
  const w = runConfig(d)?.engine?.inFlight ?? 1;
  return w === 'auto' ? 'an adaptive number (auto)' : String(w);
};
const simulated = (d: ReportData) => (runConfig(d)?.model?.backend ?? 'sim') === 'sim';

function reproduceSection(d: ReportData): Section {
  return {
    id: 'reproduce',
    heading: 'Reproduce',
    intro: `Scenario ${d.run.scenario}, variant ${d.run.variant}, seed ${d.run.seed}, ${d.run.plannedTasks} tasks, ${inFlightOf(d)} in flight. ${
      simulated(d) ? 'Under the simulated model a rerun gives the same results (apart from timing).' : `A rerun asks the model again; evochamber run --replay ${d.run.dir} answers every call from this run's journal instead.`}`,
    charts: [],
    tables: [],
    notes: [],
    code: [
      { label: `The scenario exactly as run (saved beside this report as ${d.reproduce.scenarioFile}):`, text: d.reproduce.command },
      { label: 'Or from the original scenario file, if it is unchanged:', text: d.reproduce.fromOriginal },
      { label: 'What the run changed in that file (run.json patch, by path):', text: patchLines(d.reproduce.patch) },
      { label: 'Scenario as run (run.json config)', text: JSON.stringify(d.run.config, null, 2), collapsed: true },
    ],
  };
}
