import { context, createContextKey, SpanStatusCode, trace, type Attributes, type Context } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE, SEMCONV_SCHEMA_URL } from './semconv';

// OpenTelemetry spans around a run's stages and model calls, through the official API. Off unless
// `enableTracing` was called (the CLI's --otel / --otel-file, after registering an SDK): then every
// helper here is a plain call of the function it wraps, with no span, context or clock read, so a run
// costs the same and writes the same bytes as before.

let enabled = false;
let flushHook: (() => Promise<void>) | null = null;
let shutdownHook: (() => Promise<void>) | null = null;

/** Turn the spans on (after an SDK is registered); `flush` is awaited by `flushTracing`, `shutdown` by `shutdownTracing`. */
export function enableTracing(flush?: () => Promise<void>, shutdown?: () => Promise<void>): void {
  enabled = true;
  flushHook = flush ?? null;
  shutdownHook = shutdown ?? null;
}

/** Export what is left and stop the SDK (the CLI, as a command ends); spans stay off after it. */
export async function shutdownTracing(): Promise<void> {
  const hook = shutdownHook;
  enabled = false;
  shutdownHook = null;
  flushHook = null;
  if (hook) await hook();
}

/** Whether spans are being made. */
export function tracingEnabled(): boolean {
  return enabled;
}

/** Export every span ended so far (a worker process before it reports a run done). */
export async function flushTracing(): Promise<void> {
  if (flushHook) await flushHook();
}

/** What every span of a run reads from its context: the run's clock (epoch ms, virtual in virtual time) and its ids. */
export interface RunTraceTime {
  /** Milliseconds since the epoch: wall time, or in virtual time the run's start plus its virtual time. */
  readonly now: () => number;
  /** Attributes every span of the run carries (the run's ids). */
  readonly attributes: Attributes;
}

const RUN_KEY = createContextKey('evochamber.run');
const tracer = () => trace.getTracerProvider().getTracer('evochamber', undefined, { schemaUrl: SEMCONV_SCHEMA_URL });

/** Set attributes on the span a helper opened, once its work has told them (a call's token counts). */
export type SpanAttributes = (attrs: Attributes) => void;
const NO_ATTRIBUTES: SpanAttributes = () => {};

/** The run's root span: every span opened inside `fn` (also across awaits) is its descendant and stamped by `time`. */
export function traceRun<T>(time: RunTraceTime, name: string, attrs: Attributes, fn: () => Promise<T>): Promise<T> {
  if (!enabled) return fn();
  // A root span: a run never nests under whatever was active (one trace per run).
  return context.with(trace.deleteSpan(context.active()).setValue(RUN_KEY, time), () => inSpan(name, attrs, () => fn()));
}

/**
 * A span around `fn`, child of the active one, timestamped by the run's clock; an error thrown by
 * `fn` marks it (status ERROR, `error.type`) and is rethrown. `fn` may add attributes as it learns them.
 */
export function inSpan<T>(name: string, attrs: Attributes, fn: (set: SpanAttributes) => Promise<T>): Promise<T> {
  if (!enabled) return fn(NO_ATTRIBUTES);
  const time = context.active().getValue(RUN_KEY) as RunTraceTime | undefined;
  const span = tracer().startSpan(name, { attributes: { ...time?.attributes, ...attrs }, ...(time ? { startTime: time.now() } : {}) });
  const set: SpanAttributes = (a) => span.setAttributes(a);
  return context.with(trace.setSpan(context.active(), span), async () => {
    try {
      return await fn(set);
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: String((err as Error)?.message ?? err).slice(0, 300) });
      span.setAttribute(ATTR_ERROR_TYPE, (err as Error)?.name ?? 'Error');
      throw err;
    } finally {
      span.end(time ? time.now() : undefined);
    }
  });
}

const saved = new WeakMap<object, Context>();

/** Remember the active context under `key` (a task's), so work done later for it (its evolve stage) nests under its span. */
export function keepTraceContext(key: object): void {
  if (enabled) saved.set(key, context.active());
}

/** Run `fn` in the context kept under `key` (or the active one when none was kept). */
export function inTraceContextOf<T>(key: object, fn: () => T): T {
  if (!enabled) return fn();
  const ctx = saved.get(key);
  return ctx ? context.with(ctx, fn) : fn();
}
