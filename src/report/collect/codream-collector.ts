import type { ReportData } from '../report-data';
import type { EventOf } from '../../store/events';

/** CoDream: sessions by niche and trigger, insights by level, and who taught whom (one flow per author of a routed insight). */
export class CodreamCollector {
  private readonly sessions = new Map<string, ReportData['codream']['sessions'][number]>();
  private readonly levels = new Map<string, number>();
  private readonly flows = new Map<string, ReportData['codream']['flows'][number]>();
  private readonly byNiche = new Map<string, ReportData['codream']['routedByNiche'][number]>();
  private routed = 0;
  /** Session tokens, for the cost fallback when run.json has no summary. */
  readonly tokens = { calls: 0, promptTokens: 0, completionTokens: 0 };

  session(e: EventOf<'codream.session'>): void {
    const key = `${e.niche}\u0000${e.trigger}`;
    const s = this.sessions.get(key) ?? { niche: e.niche, trigger: e.trigger, count: 0 };
    s.count += 1;
    this.sessions.set(key, s);
    this.tokens.calls += 1;
    this.tokens.promptTokens += e.promptTokens ?? 0;
    this.tokens.completionTokens += e.completionTokens ?? 0;
  }

  insight(e: EventOf<'codream.insight'>): void {
    this.levels.set(e.level, (this.levels.get(e.level) ?? 0) + 1);
  }

  routedInsight(e: EventOf<'insight.routed'>): void {
    this.routed += 1;
    const niche = e.niche ?? null;
    const nicheKey = `${niche ?? ''}\u0000${e.level}`;
    const n = this.byNiche.get(nicheKey) ?? { niche, level: e.level, count: 0 };
    n.count += 1;
    this.byNiche.set(nicheKey, n);
    for (const from of e.from) {
      const key = [from, e.to, niche ?? '', e.level].join('\u0000');
      const f = this.flows.get(key) ?? { from, to: e.to, niche, level: e.level, count: 0 };
      f.count += 1;
      this.flows.set(key, f);
    }
  }

  finish(): ReportData['codream'] {
    return {
      sessions: [...this.sessions.values()],
      insightsByLevel: Object.fromEntries(this.levels),
      flows: [...this.flows.values()],
      routedByNiche: [...this.byNiche.values()],
      routed: this.routed,
    };
  }
}
