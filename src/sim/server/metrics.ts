import type { SchedulerLoad } from './latency-scheduler';

/** Counters serve-sim keeps for `/metrics` (Prometheus text, vLLM's metric names). */
export class SimMetrics {
  /** Finished requests by finish reason (`stop`, `length`). */
  private readonly success = new Map<string, number>();
  promptTokens = 0;
  generationTokens = 0;
  /** Requests the client abandoned (disconnected) before they finished: vLLM's `finished_reason="abort"`. */
  aborted = 0;
  /** Tokens those requests had generated when they were abandoned (also in `generationTokens`, as vLLM counts them). */
  abortedGenerationTokens = 0;

  /** A chat completion was answered in full. */
  finished(reason: string, promptTokens: number, generationTokens: number): void {
    this.success.set(reason, (this.success.get(reason) ?? 0) + 1);
    this.promptTokens += promptTokens;
    this.generationTokens += generationTokens;
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
   * `vllm:num_requests_running`, `vllm:num_requests_waiting`, `vllm:prompt_tokens_total`,
   * `vllm:generation_tokens_total`, `vllm:request_success_total{finished_reason}` (`stop`,
   * `length`, and `abort` for requests whose client disconnected), plus serve-sim's own
   * `evochamber_sim:*` counters.
   */
  render(modelName: string, load: SchedulerLoad): string {
    const l = `model_name="${modelName.replace(/["\\\n]/g, '_')}"`;
    const reasons = new Map([['stop', 0], ['length', 0], ...this.success, ['abort', this.aborted]]);
    return [
      '# HELP vllm:num_requests_running Number of requests in model execution batches.',
      '# TYPE vllm:num_requests_running gauge',
      `vllm:num_requests_running{${l}} ${load.running}`,
      '# HELP vllm:num_requests_waiting Number of requests waiting to be processed.',
      '# TYPE vllm:num_requests_waiting gauge',
      `vllm:num_requests_waiting{${l}} ${load.waiting}`,
      '# HELP vllm:prompt_tokens_total Number of prefill tokens processed.',
      '# TYPE vllm:prompt_tokens_total counter',
      `vllm:prompt_tokens_total{${l}} ${this.promptTokens}`,
      '# HELP vllm:generation_tokens_total Number of generation tokens processed.',
      '# TYPE vllm:generation_tokens_total counter',
      `vllm:generation_tokens_total{${l}} ${this.generationTokens}`,
      '# HELP vllm:request_success_total Count of successfully processed requests.',
      '# TYPE vllm:request_success_total counter',
      ...[...reasons].map(([r, n]) => `vllm:request_success_total{finished_reason="${r}",${l}} ${n}`),
      '# HELP evochamber_sim:abort_generation_tokens_total Generation tokens of requests aborted by their client (serve-sim only; part of vllm:generation_tokens_total).',
      '# TYPE evochamber_sim:abort_generation_tokens_total counter',
      `evochamber_sim:abort_generation_tokens_total{${l}} ${this.abortedGenerationTokens}`,
      '',
    ].join('\n');
  }
}
