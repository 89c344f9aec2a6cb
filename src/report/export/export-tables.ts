import type { RawEvent } from '../../store/events';

/** A column's type in both formats (Parquet's logical type; CSV writes the value as text, null as an empty field). */
export type ColumnType = 'STRING' | 'INT32' | 'INT64' | 'DOUBLE' | 'BOOLEAN';

/** One column of an exported table: its name, type and what it holds (docs/runs-on-disk.md lists them from here). */
export interface ColumnSpec {
  readonly name: string;
  readonly type: ColumnType;
  readonly doc: string;
}

/** An exported table: its file name (without extension), what one row is, and its columns. */
export interface TableSpec {
  readonly name: string;
  readonly row: string;
  readonly columns: readonly ColumnSpec[];
}

const c = (name: string, type: ColumnType, doc: string): ColumnSpec => ({ name, type, doc });
/** Every table starts with the run it came from (an ablation's tables hold all its runs). */
const RUN_COLUMNS = [c('variant', 'STRING', 'the run\'s variant'), c('seed', 'INT32', 'the run\'s seed')] as const;

/** The tables `evochamber export` writes, in order. `runs` only for an ablation. */
export const EXPORT_TABLES = [
  {
    name: 'tasks', row: 'one graded or failed task',
    columns: [
      ...RUN_COLUMNS,
      c('position', 'INT32', 'the task\'s place in commit order (0-based; stream order)'),
      c('task_id', 'STRING', 'task id'), c('niche', 'STRING', 'niche id'), c('block', 'INT32', 'the stream block it came from'),
      c('difficulty', 'DOUBLE', 'the generator\'s difficulty'),
      c('status', 'STRING', '`graded` or `failed` (infrastructure: never graded, updates nothing)'),
      c('reward', 'DOUBLE', 'team reward 0–1 (null when failed)'), c('correct', 'BOOLEAN', 'solved exactly (null when failed)'),
      c('disagreement', 'BOOLEAN', 'the members\' final answers were not all equivalent'),
      c('team', 'STRING', 'the members, comma-separated, in role order'),
      c('anchor', 'STRING', 'the anchor (leader)'), c('complement', 'STRING', 'the complement'), c('scout', 'STRING', 'the scout'),
      c('roles', 'STRING', 'JSON object agent → role (every member, for structures with other roles)'),
      c('structure', 'STRING', 'the structure the team ran'), c('structure_source', 'STRING', 'who chose it (model, bandit, fixed, fallback …)'),
      c('started_version', 'INT32', 'pool version the task read at its start'),
      c('committed_version', 'INT32', 'pool version after its solve commit'),
      c('evolve_applied_version', 'INT32', 'pool version its evolve stage was applied at (null if none)'),
      c('evolve_gap', 'INT32', 'updates applied between computing and applying its evolve stage'),
      c('calls', 'INT32', 'model calls of the task, solve and evolve stages'),
      c('prompt_tokens', 'INT32', 'prompt tokens of the task, solve and evolve stages'),
      c('completion_tokens', 'INT32', 'completion tokens of the task, solve and evolve stages'),
      c('solve_completion_tokens', 'INT32', 'completion tokens of the solve stage alone'),
      c('failed_stage', 'STRING', 'stage a failed task failed in'), c('failed_error', 'STRING', 'why it failed'),
    ],
  },
  {
    name: 'attempts', row: 'one member call of a task\'s structure',
    columns: [
      ...RUN_COLUMNS, c('task_id', 'STRING', 'task id'), c('niche', 'STRING', 'niche id'),
      c('agent', 'STRING', 'the member'), c('role', 'STRING', 'its role in the team'), c('step', 'STRING', 'the structure\'s step (solve, critique, revise, round-2 …)'),
      c('index', 'INT32', 'order within the task'), c('extracted', 'STRING', 'the answer extracted from its reply'),
      c('prompt_tokens', 'INT32', 'prompt tokens'), c('completion_tokens', 'INT32', 'completion tokens'),
      c('cancelled', 'BOOLEAN', 'cut by speculative completion'), c('error', 'STRING', 'the call\'s error, if it failed'),
      c('text', 'STRING', 'the reply (clipped at 2,000 characters, as the log keeps it)'),
    ],
  },
  {
    name: 'competence', row: 'one agent × niche at one lifecycle window (and at the end)',
    columns: [
      ...RUN_COLUMNS, c('agent', 'STRING', 'agent id'), c('niche', 'STRING', 'niche id'),
      c('window', 'INT32', 'lifecycle window number; null for the end of the run'),
      c('tasks_seen', 'INT32', 'tasks committed when it was taken'),
      c('competence', 'DOUBLE', 'EWMA competence 0–1'), c('exposure', 'INT32', 'tasks of the niche the agent served on'),
    ],
  },
  {
    name: 'codream_routes', row: 'one CoDream insight delivered (or offered) to one agent',
    columns: [
      ...RUN_COLUMNS, c('task_id', 'STRING', 'the task whose CoDream session made it'), c('insight_id', 'STRING', 'insight id'),
      c('niche', 'STRING', 'its niche scope (null: cross-domain)'), c('level', 'STRING', 'task-local, subdomain or cross-domain'),
      c('pool', 'STRING', 'the archive pool it went into'),
      c('from', 'STRING', 'its authors, comma-separated'), c('to', 'STRING', 'the receiving agent'),
      c('median', 'DOUBLE', 'the pool\'s median competence on the niche'), c('competence', 'DOUBLE', 'the receiver\'s competence (below the median)'),
      c('stored', 'BOOLEAN', 'false when the agent already held it'),
    ],
  },
  {
    name: 'lineage', row: 'one lifecycle decision applied',
    columns: [
      ...RUN_COLUMNS, c('window', 'INT32', 'lifecycle window'), c('operator', 'STRING', 'genesis, fork, merge, prune or specialize'),
      c('agents', 'STRING', 'the agents it names, comma-separated'), c('reason', 'STRING', 'its recorded reason, with the numbers'),
      c('pool_version', 'INT32', 'pool version it was applied at'),
    ],
  },
  {
    name: 'agents', row: 'one agent ever in the pool',
    columns: [
      ...RUN_COLUMNS, c('agent', 'STRING', 'agent id'), c('origin', 'STRING', 'seed, genesis, fork or merge'),
      c('parents', 'STRING', 'its parents, comma-separated'), c('born_window', 'INT32', 'the lifecycle window it was born in (null: seed)'),
      c('retired_window', 'INT32', 'the window it was retired in (null: active at the end)'), c('successor', 'STRING', 'merged into'),
      c('reason', 'STRING', 'why it was born'),
    ],
  },
  {
    name: 'runs', row: 'one run of an ablation (ablations only)',
    columns: [
      ...RUN_COLUMNS, c('run_dir', 'STRING', 'the run directory'), c('tasks', 'INT32', 'tasks in the stream'),
      c('graded', 'INT32', 'graded tasks'), c('failures', 'INT32', 'failed tasks'), c('accuracy', 'DOUBLE', 'mean reward over graded tasks'),
      c('exact_rate', 'DOUBLE', 'share solved exactly'), c('stable_specialists', 'INT32', 'stable specialists at the end'),
      c('prompt_tokens', 'INT64', 'prompt tokens, every stage'), c('completion_tokens', 'INT64', 'completion tokens, every stage'),
      c('usd', 'DOUBLE', 'US dollars at the scenario\'s prices (null: unpriced)'),
      c('virtual_seconds', 'DOUBLE', 'virtual seconds behind a latency profile (null: zero-time)'),
      c('codream_sessions', 'INT32', 'CoDream sessions'), c('codream_insights', 'INT32', 'insights crystallized'), c('codream_routed', 'INT32', 'insights routed to agents, stored or not (rows of codream_routes)'),
      ...(['genesis', 'fork', 'merge', 'prune', 'specialize'] as const).map((op) => c(op, 'INT32', `${op} decisions applied`)),
    ],
  },
  {
    name: 'paired', row: 'one variant against the ablation\'s reference, task by task (ablations only; docs/reports.md)',
    columns: [
      c('variant', 'STRING', 'the variant'), c('reference', 'STRING', 'the variant it is compared with'),
      c('test', 'STRING', 'paired (same seed, same task id), unpaired (no task shared) or none (no graded task)'),
      c('tasks', 'INT32', 'task pairs (paired), or the variant\'s tasks (unpaired)'), c('reference_tasks', 'INT32', 'unpaired: the reference\'s tasks'),
      c('seeds', 'STRING', 'the seeds the tasks come from, comma-separated'), c('difference', 'DOUBLE', 'mean reward difference, variant minus reference'),
      c('lo', 'DOUBLE', 'its 95 % bootstrap interval, lower bound'), c('hi', 'DOUBLE', 'upper bound'),
      c('p', 'DOUBLE', 'two-sided permutation p-value'), c('p_holm', 'DOUBLE', 'p corrected by Holm\'s method across the variants'),
    ],
  },
] as const satisfies readonly TableSpec[];

/** A table's name. */
export type TableName = (typeof EXPORT_TABLES)[number]['name'];

/** A row: column name → value (null or absent: no value). */
export type Row = Record<string, string | number | boolean | null | undefined>;

type Usage = Record<string, { calls: number; promptTokens: number; completionTokens: number }>;

const str = (x: unknown): string | null => (typeof x === 'string' ? x : null);
const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);
const bool = (x: unknown): boolean | null => (typeof x === 'boolean' ? x : null);
const list = (x: unknown): string | null => (Array.isArray(x) ? x.map(String).join(',') : null);
const sum = (t: unknown, f: (u: Usage[string]) => number): number => Object.values((t ?? {}) as Usage).reduce((a, u) => a + f(u), 0);

/**
 * One run's event log as rows of the export tables (all but `runs` and `paired`): folded one event at a time, in
 * log order. A task becomes a row at its `task.done` (the solve commit); its evolve stage's figures
 * are added when its `evolve.applied` arrives.
 */
export class RunTables {
  readonly rows: Record<Exclude<TableName, 'runs' | 'paired'>, Row[]> = { tasks: [], attempts: [], competence: [], codream_routes: [], lineage: [], agents: [] };
  private readonly pending = new Map<string, Row>();
  private readonly taskRow = new Map<string, Row>();
  private readonly agentRow = new Map<string, Row>();
  private readonly last = new Map<string, Row>();
  private committed = 0;

  constructor(private readonly run: { readonly variant: string; readonly seed: number }) {}

  /** Fold one event. */
  add(e: RawEvent): void {
    const base = { variant: this.run.variant, seed: this.run.seed };
    const taskId = str(e.taskId);
    const pending = (): Row => {
      let r = this.pending.get(taskId!);
      if (!r) this.pending.set(taskId!, (r = { ...base, task_id: taskId }));
      return r;
    };
    switch (e.type) {
      case 'task.started': Object.assign(pending(), { niche: str(e.niche), block: num(e.block), difficulty: num(e.difficulty), started_version: num(e.poolVersion) }); return;
      case 'team.assembled': {
        const members = Array.isArray(e.members) ? (e.members as { agentId: string; role: string }[]) : [];
        const role = (r: string) => members.find((m) => m.role === r)?.agentId ?? null;
        Object.assign(pending(), {
          team: members.map((m) => m.agentId).join(','), anchor: role('anchor'), complement: role('complement'), scout: role('scout'),
          roles: JSON.stringify(Object.fromEntries(members.map((m) => [m.agentId, m.role]))),
        });
        return;
      }
      case 'structure.chosen': Object.assign(pending(), { structure: str(e.structure), structure_source: str(e.source) }); return;
      case 'task.graded': Object.assign(pending(), { reward: num(e.reward), correct: bool(e.correct), disagreement: bool(e.disagreement) }); return;
      case 'task.failed': Object.assign(pending(), { niche: str(e.niche), failed_stage: str(e.stage), failed_error: str(e.error) }); return;
      case 'attempt':
        this.rows.attempts.push({
          ...base, task_id: taskId, niche: str(this.pending.get(taskId ?? '')?.niche), agent: str(e.agentId), role: str(e.role), step: str(e.step), index: num(e.index),
          extracted: str(e.extracted), prompt_tokens: num(e.promptTokens), completion_tokens: num(e.completionTokens), cancelled: e.cancelled === true,
          error: str(e.error), text: str(e.text),
        });
        return;
      case 'task.done': {
        const r = pending();
        this.pending.delete(taskId!);
        Object.assign(r, {
          position: this.committed++, status: str(e.status), committed_version: num(e.poolVersion),
          calls: sum(e.tokens, (u) => u.calls), prompt_tokens: sum(e.tokens, (u) => u.promptTokens),
          completion_tokens: sum(e.tokens, (u) => u.completionTokens), solve_completion_tokens: sum(e.tokens, (u) => u.completionTokens),
        });
        this.rows.tasks.push(r);
        this.taskRow.set(taskId!, r);
        return;
      }
      case 'evolve.applied': {
        const r = this.taskRow.get(taskId ?? '');
        if (!r) return;
        r.evolve_applied_version = num(e.poolVersion);
        r.evolve_gap = num(e.gap);
        r.calls = (r.calls as number) + sum(e.tokens, (u) => u.calls);
        r.prompt_tokens = (r.prompt_tokens as number) + sum(e.tokens, (u) => u.promptTokens);
        r.completion_tokens = (r.completion_tokens as number) + sum(e.tokens, (u) => u.completionTokens);
        return;
      }
      case 'competence.updated': this.last.set(`${String(e.agentId)}\u0000${String(e.niche)}`, { agent: str(e.agentId), niche: str(e.niche), competence: num(e.competence), exposure: num(e.exposure) }); return;
      case 'lifecycle.window': {
        const roster = Array.isArray(e.roster) ? (e.roster as { agentId: string; competence: Record<string, number>; exposure?: Record<string, number> }[]) : [];
        for (const a of roster) {
          for (const [niche, v] of Object.entries(a.competence ?? {})) {
            this.rows.competence.push({ ...base, agent: a.agentId, niche, window: num(e.window), tasks_seen: num(e.tasksSeen), competence: v, exposure: a.exposure?.[niche] ?? null });
          }
        }
        return;
      }
      case 'insight.routed':
        this.rows.codream_routes.push({
          ...base, task_id: taskId, insight_id: str(e.insightId), niche: str(e.niche), level: str(e.level), pool: str(e.pool),
          from: list(e.from), to: str(e.to), median: num(e.median), competence: num(e.competence), stored: e.stored !== false,
        });
        return;
      case 'lifecycle.decision':
        this.rows.lineage.push({ ...base, window: num(e.window), operator: str(e.operator), agents: list(e.agents), reason: str(e.reason), pool_version: num(e.poolVersion) });
        return;
      case 'agent.spawned': {
        const r: Row = { ...base, agent: str(e.agentId), origin: str(e.origin), parents: list(e.parents), born_window: num(e.window), retired_window: null, successor: null, reason: str(e.reason) };
        this.agentRow.set(String(e.agentId), r);
        this.rows.agents.push(r);
        return;
      }
      case 'agent.retired': {
        const r = this.agentRow.get(String(e.agentId));
        if (r) Object.assign(r, { retired_window: num(e.window), successor: str(e.successor) });
        return;
      }
      default:
    }
  }

  /** The tables, with the end-of-run competence (last value of each agent × niche) after the windows' rows. */
  finish(): RunTables['rows'] {
    const base = { variant: this.run.variant, seed: this.run.seed };
    const end = [...this.last.values()].map((r) => ({ ...base, ...r, window: null, tasks_seen: this.committed }));
    return { ...this.rows, competence: [...this.rows.competence, ...end] };
  }
}
