import type { KvCacheState, SchedulerLoad } from './latency-scheduler';

/** vLLM's buckets for time to first token (seconds). */
const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560];
/** vLLM's buckets for end-to-end request latency (seconds). */
const E2E_BUCKETS = [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680];

/** vLLM's 1-2-5 buckets up to a model's context length (token-count histograms). */
function buckets125(max: number): number[] {
  const out: number[] = [];
  for (let e = 1; ; e *= 10) {
    for (const m of [1, 2, 5]) {
      if (m * e > max) return out;
      out.push(m * e);
    }
  }
}

/** A Prometheus histogram: cumulative bucket counts, sum and count. */
class Histogram {
  private readonly counts: number[];
  private sum = 0;
  private count = 0;
  constructor(readonly bounds: readonly number[]) {
    this.counts = bounds.map(() => 0);
  }

  observe(v: number): void {
    for (let i = 0; i < this.bounds.length; i++) if (v <= this.bounds[i]!) this.counts[i]!++;
    this.sum += v;
    this.count++;
  }

  render(name: string, help: string, labels: string): string[] {
    return [
      `# HELP ${name} ${help}`,
      `# TYPE ${name} histogram`,
      ...this.bounds.map((b, i) => `${name}_bucket{${labels},le="${b}"} ${this.counts[i]}`),
      `${name}_bucket{${labels},le="+Inf"} ${this.count}`,
      `${name}_sum{${labels}} ${this.sum}`,
      `${name}_count{${labels}} ${this.count}`,
    ];
  }
}

/** One finished request's figures, in model time. */
export interface FinishedRequest {
  readonly reason: string;
  readonly promptTokens: number;
  readonly generationTokens: number;
  /** Time to first token and end-to-end latency, seconds of model time. */
  readonly ttftSeconds: number;
  readonly e2eSeconds: number;
}

/**
 * Counters and histograms serve-sim keeps for `/metrics` (Prometheus text, vLLM's metric names).
 * Times are model time (the latency profile's), so a `--time-scale`d server reports what the
 * modelled GPU would have taken.
 */
export class SimMetrics {
  /** Finished requests by finish reason (`stop`, `length`). */
  private readonly success = new Map<string, number>();
  promptTokens = 0;
  generationTokens = 0;
  /** Requests the client abandoned (disconnected) before they finished: vLLM's `finished_reason="abort"`. */
  aborted = 0;
  /** Tokens those requests had generated when they were abandoned (also in `generationTokens`, as vLLM counts them). */
  abortedGenerationTokens = 0;
  private readonly ttft = new Histogram(TTFT_BUCKETS);
  private readonly e2e = new Histogram(E2E_BUCKETS);
  private readonly promptHist: Histogram;
  private readonly generationHist: Histogram;

  constructor(maxModelLen = 40_960) {
    this.promptHist = new Histogram(buckets125(maxModelLen));
    this.generationHist = new Histogram(buckets125(maxModelLen));
  }

  /** A request was answered in full. */
  finished(r: FinishedRequest): void {
    this.success.set(r.reason, (this.success.get(r.reason) ?? 0) + 1);
    this.promptTokens += r.promptTokens;
    this.generationTokens += r.generationTokens;
    this.ttft.observe(r.ttftSeconds);
    this.e2e.observe(r.e2eSeconds);
    this.promptHist.observe(r.promptTokens);
    this.generationHist.observe(r.generationTokens);
  }

  /**
   * A request was cancelled because its client went away: counted as vLLM does, under
   * `finished_reason="abort"`, with the prompt tokens it prefilled (0 if it never started) and
   * the tokens it generated so far.
   */
  abort(promptTokens: number, generatedTokens: number): void {
    this.aborted += 1;
    this.promptTokens += promptTokens;
    this.generationTokens += generatedTokens;
    this.abortedGenerationTokens += generatedTokens;
  }

  /** Requests answered in full so far (aborted ones not included). */
  get requests(): number {
    let n = 0;
    for (const v of this.success.values()) n += v;
    return n;
  }

  /**
   * The Prometheus text exposition, under the names vLLM uses (so dashboards built for vLLM work):
   * gauges `vllm:num_requests_running`, `vllm:num_requests_waiting`, `vllm:kv_cache_usage_perc`
   * (and its older name `vllm:gpu_cache_usage_perc`); counters `vllm:prompt_tokens_total`,
   * `vllm:generation_tokens_total`, `vllm:num_preemptions_total`,
   * `vllm:request_success_total{finished_reason}` (`stop`, `length`, and `abort` for requests
   * whose client disconnected); histograms `vllm:time_to_first_token_seconds`,
   * `vllm:e2e_request_latency_seconds`, `vllm:request_prompt_tokens`,
   * `vllm:request_generation_tokens`; plus serve-sim's own `evochamber_sim:*` counters and, per
   * request priority, `evochamber_sim:num_requests_running_by_priority{priority}` and
   * `evochamber_sim:num_requests_waiting_by_priority{priority}` (vLLM has no per-priority gauge).
   */
  render(modelName: string, load: SchedulerLoad, kv: KvCacheState = { usage: 0, preemptions: 0 }): string {
    const l = `model_name="${modelName.replace(/["\\\n]/g, '_')}"`;
    const reasons = new Map([['stop', 0], ['length', 0], ...this.success, ['abort', this.aborted]]);
    const gauge = (name: string, help: string, v: number, type = 'gauge') => [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, `${name}{${l}} ${v}`];
    return [
      ...gauge('vllm:num_requests_running', 'Number of requests in model execution batches.', load.running),
      ...gauge('vllm:num_requests_waiting', 'Number of requests waiting to be processed.', load.waiting),
      ...gauge('vllm:kv_cache_usage_perc', 'KV-cache usage. 1 means 100 percent usage.', kv.usage),
      ...gauge('vllm:gpu_cache_usage_perc', 'GPU KV-cache usage. 1 means 100 percent usage (older name of vllm:kv_cache_usage_perc).', kv.usage),
      ...gauge('vllm:num_preemptions_total', 'Cumulative number of preemptions from the engine.', kv.preemptions, 'counter'),
      ...gauge('vllm:prompt_tokens_total', 'Number of prefill tokens processed.', this.promptTokens, 'counter'),
      ...gauge('vllm:generation_tokens_total', 'Number of generation tokens processed.', this.generationTokens, 'counter'),
      '# HELP vllm:request_success_total Count of successfully processed requests.',
      '# TYPE vllm:request_success_total counter',
      ...[...reasons].map(([r, n]) => `vllm:request_success_total{finished_reason="${r}",${l}} ${n}`),
      ...this.ttft.render('vllm:time_to_first_token_seconds', 'Histogram of time to first token in seconds.', l),
      ...this.e2e.render('vllm:e2e_request_latency_seconds', 'Histogram of end to end request latency in seconds.', l),
      ...this.promptHist.render('vllm:request_prompt_tokens', 'Number of prefill tokens processed.', l),
      ...this.generationHist.render('vllm:request_generation_tokens', 'Number of generation tokens processed.', l),
      ...byPriority(load, l),
      ...gauge('evochamber_sim:abort_generation_tokens_total', 'Generation tokens of requests aborted by their client (serve-sim only; part of vllm:generation_tokens_total).', this.abortedGenerationTokens, 'counter'),
      '',
    ].join('\n');
  }
}

/** The per-priority gauges: one line per priority value with requests (none without any). */
function byPriority(load: SchedulerLoad, l: string): string[] {
  const rows = load.byPriority ?? [];
  const of = (name: string, help: string, v: (r: (typeof rows)[number]) => number) => [
    `# HELP ${name} ${help}`, `# TYPE ${name} gauge`, ...rows.map((r) => `${name}{priority="${r.priority}",${l}} ${v(r)}`),
  ];
  return [
    ...of('evochamber_sim:num_requests_running_by_priority', 'Requests in model execution batches, by request priority (lower is served first).', (r) => r.running),
    ...of('evochamber_sim:num_requests_waiting_by_priority', 'Requests waiting to be processed, by request priority (lower is served first).', (r) => r.waiting),
  ];
}
