// --otel and --otel-file: a loopback OTLP/HTTP receiver (a real HTTP server on port 0) gets one trace per
// run, a span per task, stage and model call, whose token sums equal the run's summary.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface Span { traceId: string; spanId: string; parentSpanId?: string; name: string; startTimeUnixNano: string; endTimeUnixNano: string; attributes: { key: string; value: Record<string, unknown> }[] }

/** Every span of a list of OTLP JSON ExportTraceServiceRequests. */
function spansOf(requests: unknown[]): Span[] {
  return requests.flatMap((r) => (r as { resourceSpans: { scopeSpans: { spans: Span[] }[] }[] }).resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)));
}
const attr = (s: Span, key: string): unknown => { const a = s.attributes.find((x) => x.key === key); return a ? Object.values(a.value)[0] : undefined; };
const num = (s: Span, key: string) => Number(attr(s, key) ?? 0);

let root: string;
let server: Server;
const received: unknown[] = [];
let url: string;

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'evo-otel-'));
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.method === 'POST') received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** The CLI as a child process (asynchronous: the receiver runs in this one). */
function cli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => { stdout += d; });
    p.stderr.on('data', (d: Buffer) => { stderr += d; });
    p.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** The tree checks every run's trace must pass; returns its spans. */
function checkTrace(spans: Span[], runDir: string, tasks: number) {
  const run = JSON.parse(readFileSync(path.join(runDir, 'run.json'), 'utf8')) as { id: string; summary: { tokens: { total: { calls: number; promptTokens: number; completionTokens: number } } } };
  const mine = spans.filter((s) => attr(s, 'evochamber.run.id') === run.id);
  const roots = mine.filter((s) => !s.parentSpanId);
  expect(roots.map((s) => s.name)).toHaveLength(1);
  expect(new Set(mine.map((s) => s.traceId)).size).toBe(1);
  const byId = new Map(mine.map((s) => [s.spanId, s]));
  // Every span but the root has its parent in the same trace.
  expect(mine.filter((s) => s !== roots[0] && !byId.has(s.parentSpanId!)).map((s) => s.name)).toEqual([]);
  const taskSpans = mine.filter((s) => s.name.startsWith('task '));
  expect(taskSpans).toHaveLength(tasks);
  expect(taskSpans.every((s) => s.parentSpanId === roots[0]!.spanId)).toBe(true);
  const ancestors = (s: Span): string[] => (s.parentSpanId && byId.has(s.parentSpanId) ? [byId.get(s.parentSpanId)!.name, ...ancestors(byId.get(s.parentSpanId)!)] : []);
  for (const stage of ['assemble', 'choose', 'grade', 'evolve']) {
    expect(mine.filter((s) => s.name === stage).every((s) => ancestors(s)[0]!.startsWith('task ')), stage).toBe(true);
  }
  for (const stage of ['reflect', 'codream']) expect(mine.filter((s) => s.name === stage).every((s) => ancestors(s)[0] === 'evolve'), stage).toBe(true);
  const calls = mine.filter((s) => attr(s, 'gen_ai.operation.name') === 'chat');
  expect(calls.length).toBeGreaterThan(0);
  // Each call sits under a stage of a task (or a lifecycle window), never straight under the run.
  expect(calls.filter((s) => !ancestors(s).some((n) => n.startsWith('task ') || n.startsWith('lifecycle'))).map((s) => s.name)).toEqual([]);
  expect(calls.every((s) => typeof attr(s, 'gen_ai.request.model') === 'string' && s.name === `chat ${attr(s, 'gen_ai.request.model')}`)).toBe(true);
  // Token sums: the summary's, exactly.
  const t = run.summary.tokens.total;
  expect(calls.filter((s) => attr(s, 'gen_ai.usage.input_tokens') !== undefined)).toHaveLength(t.calls);
  expect(calls.reduce((a, s) => a + num(s, 'gen_ai.usage.input_tokens'), 0)).toBe(t.promptTokens);
  expect(calls.reduce((a, s) => a + num(s, 'gen_ai.usage.output_tokens'), 0)).toBe(t.completionTokens);
  // Every span ends no earlier than it starts.
  expect(mine.filter((s) => BigInt(s.endTimeUnixNano) < BigInt(s.startTimeUnixNano))).toEqual([]);
  return mine;
}

describe('OpenTelemetry traces', () => {
  it('run --otel: one trace, a span per task, stage and call, token sums equal to the summary\'s', async () => {
    const out = path.join(root, 'run');
    const r = await cli(['run', 'scenarios/quickstart.json', '--tasks', '12', '--no-report', '--quiet', '--out', out, '--otel', url]);
    expect(r.status, r.stderr).toBe(0);
    const spans = checkTrace(spansOf(received), out, 12);
    const rootSpan = spans.find((s) => !s.parentSpanId)!;
    expect(attr(rootSpan, 'evochamber.scenario')).toBe('quickstart');
    expect(attr(rootSpan, 'evochamber.virtual_time')).toBe(false);
  }, 60_000);

  it('ablate --jobs 2 --otel-file: each worker process writes its runs\' traces as OTLP JSON lines', async () => {
    const out = path.join(root, 'ablate');
    const file = path.join(root, 'traces.jsonl');
    const r = await cli(['ablate', 'scenarios/quickstart.json', '--variants', 'evochamber,single-agent', '--seeds', '1', '--tasks', '8', '--jobs', '2', '--no-report', '--quiet', '--out', out, '--otel-file', file]);
    expect(r.status, r.stderr).toBe(0);
    const spans = spansOf(readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l)));
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(2);
    for (const v of ['evochamber', 'single-agent']) checkTrace(spans, path.join(out, `${v}-s1`), 8);
  }, 60_000);

  it('virtual time: spans carry the virtual clock (the run\'s start plus its virtual seconds)', async () => {
    const out = path.join(root, 'virtual');
    const file = path.join(root, 'virtual.jsonl');
    const r = await cli(['run', 'scenarios/quickstart.json', '--tasks', '6', '--latency', 'qwen3-8b-h100-vllm', '--no-report', '--quiet', '--out', out, '--otel-file', file, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const spans = checkTrace(spansOf(readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l))), out, 6);
    const rootSpan = spans.find((s) => !s.parentSpanId)!;
    expect(attr(rootSpan, 'evochamber.virtual_time')).toBe(true);
    const summary = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { virtualSeconds: number };
    const seconds = Number(BigInt(rootSpan.endTimeUnixNano) - BigInt(rootSpan.startTimeUnixNano)) / 1e9;
    expect(seconds).toBeCloseTo(summary.virtualSeconds, 0);
  }, 60_000);

  it('refuses an --otel that is not an http(s) URL in one line', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'run', 'scenarios/quickstart.json', '--otel', 'grpc://x:4317'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe('evochamber: error: --otel: "grpc://x:4317" is not http(s) (OTLP over HTTP)');
  });
});
