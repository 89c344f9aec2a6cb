import type { RunSummary } from '../engine/loop/summary';

const k = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n));

/** The human-readable run summary printed at the end of `evochamber run`. */
export function formatSummary(s: RunSummary): string {
  const lines = [
    `EvoChamber run: ${s.scenario} · variant ${s.variant} · seed ${s.seed} · ${s.tasks} tasks · backend ${s.backend} · in flight ${s.inFlight}`,
    `accuracy ${s.accuracy.toFixed(3)} (mean reward over ${s.graded} graded tasks; exact ${s.exactRate.toFixed(3)})`,
    ...(s.failures ? [`FAILED: ${s.failures} tasks not graded (infrastructure: ${Object.entries(s.failuresByStage).filter(([, n]) => n > 0).map(([st, n]) => `${st} ${n}`).join(', ')})`] : []),
    ...(s.evolve?.failures ? [`FAILED: ${s.evolve.failures} evolve stages not applied (infrastructure: ${Object.entries(s.evolve.failuresByStage).filter(([, n]) => n > 0).map(([st, n]) => `${st} ${n}`).join(', ')}); their tasks stay graded`] : []),
    ...(Object.values(s.fallbacks).some((n) => n > 0) ? [`fallbacks: ${Object.entries(s.fallbacks).map(([st, n]) => `${st} ${n}`).join(', ')}`] : []),
    'per niche:',
    ...Object.entries(s.perNiche).map(([n, a]) => `  ${n.padEnd(20)} ${a.toFixed(3)}`),
    'tokens by stage (calls, prompt / completion):',
    ...Object.entries(s.tokens).map(([st, u]) => `  ${st.padEnd(20)} ${String(u.calls).padStart(6)}  ${k(u.promptTokens)} / ${k(u.completionTokens)}${u.costNanoUsd !== undefined ? `  $${(u.costNanoUsd / 1e9).toFixed(4)}` : ''}`),
    ...(s.tokens.total?.unpriced ? [`  (${s.tokens.total.unpriced} calls answered by a model with no price, counted at $0)`] : []),
    ...(s.flakyVerdicts ? [`FLAKY: ${s.flakyVerdicts} graded programs gave two verdicts on two runs (the first kept, not cached; task.graded flaky: true)`] : []),
    ...(s.tokens.total?.truncated ? [`TRUNCATED: ${s.tokens.total.truncated} replies cut off by the token limit with no answer (${Object.entries(s.tokens).filter(([st, u]) => st !== 'total' && u.truncated).map(([st, u]) => `${st} ${u.truncated}`).join(', ')}; see docs/backends.md, "Truncated replies")`] : []),
    ...(s.endpoints ? [
      'endpoints (requests, retries, failures, prompt / completion):',
      ...Object.entries(s.endpoints).map(([n, e]) => `  ${n.padEnd(28)} ${String(e.requests).padStart(6)} ${String(e.retries).padStart(5)} ${String(e.failures).padStart(5)}  ${k(e.promptTokens)} / ${k(e.completionTokens)}`),
    ] : []),
    ...(Object.keys(s.structures).length ? [
      'structures chosen per niche:',
      ...Object.entries(s.structures).map(([n, st]) => `  ${n.padEnd(20)} ${Object.entries(st).map(([k, v]) => `${k} ${v}`).join(', ')}`),
      `disagreement rate ${s.disagreementRate.toFixed(3)} · LeadLearn records ${s.leadlearn.entries}, fallbacks ${s.leadlearn.fallbacks}`,
    ] : []),
    ...(s.evolve?.applied ? [`evolve stages applied ${s.evolve.applied} · version gap mean ${s.evolve.meanGap}, max ${s.evolve.maxGap}`] : []),
    ...(s.staleness ? [`staleness ${s.staleness.policy} (tau ${s.staleness.tau}): kept ${s.staleness.kept}, patched ${s.staleness.patched}, dropped ${s.staleness.dropped} · model calls ${s.staleness.reflectiveCalls}, fallbacks ${s.staleness.fallbacks}`] : []),
    ...(s.speculative && (s.speculative.cancelled || s.speculative.debateRoundsSkipped) ? [
      `speculative: ${s.speculative.cancelled} requests cancelled, ${k(s.speculative.tokensSaved)} tokens saved${s.speculative.estimated ? ` (${s.speculative.estimated} estimated)` : ''}`
        + ` · debate rounds skipped ${s.speculative.debateRoundsSkipped}, ~${k(s.speculative.debateTokensSaved)} tokens saved (estimate)`,
    ] : []),
    ...(s.codream.sessions ? [`CoDream sessions ${s.codream.sessions} · insights ${s.codream.insights} · deliveries ${s.codream.routed}`] : []),
    `specialists ${Object.entries(s.specialists).filter(([, a]) => a.length).map(([n, a]) => `${n}: ${a.join(', ')}`).join('; ') || 'none'} · stable ${s.stableSpecialists}`,
    ...(Object.values(s.lineage).some((v) => v > 0) ? [`lifecycle ${Object.entries(s.lineage).map(([k, v]) => `${k} ${v}`).join(', ')}`] : []),
    `agents ${s.agents.count} (${s.agents.active} active) · lessons ${s.agents.lessons} · meta-insights ${s.agents.metaInsights} · reflections parsed ${s.reflections.parsed}, failed ${s.reflections.failed}`,
    ...(s.virtualSeconds !== undefined ? [`virtual time${s.latency ? ` on ${s.latency}` : ''}: ${(s.virtualSeconds / 3600).toFixed(2)} h (${s.virtualSeconds.toFixed(0)} s)`
      + ` · ${(s.tokensPerSecond ?? 0).toFixed(0)} output tokens/s · utilization ${s.utilization === null || s.utilization === undefined ? '–' : `${(100 * s.utilization).toFixed(1)} %`}`] : []),
    `${s.timing.wallSeconds.toFixed(2)} s wall · ${s.timing.tasksPerSecond} tasks/s`,
    `run directory: ${s.runDir}`,
    ...(s.reportPath ? [`report: ${s.reportPath}`] : []),
  ];
  return lines.join('\n');
}
