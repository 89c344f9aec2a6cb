/** Types of the untyped `parse-prometheus-text-format` (prom2json's output shape), for the tests that read /metrics with it. */
declare module 'parse-prometheus-text-format' {
  interface PromSample {
    readonly labels?: Record<string, string>;
    readonly value?: string;
    readonly buckets?: Record<string, string>;
    readonly count?: string;
    readonly sum?: string;
  }
  interface PromFamily {
    readonly name: string;
    readonly help: string;
    readonly type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    readonly metrics: readonly PromSample[];
  }
  export default function parsePrometheusTextFormat(text: string): PromFamily[];
}
