// `npm run bench -- watch`: the live watch server against the goals. Printed, never asserted.
//   1. latency from an event's commit (fsync'd append by another process) to an open page's stream;
//   2. the slowdown of a real run (in a child process, its server inside it: `run --watch`) with
//      10 pages open, against the same run with none;
//   3. a 100,000-task log: the time to fold it, what a page that opens it receives (bytes), and
//      how long a redraw of the charts takes — from the aggregated state, not the log.
// The "pages" are SSE clients over node:http (what a browser's EventSource does on the wire), so
// the browser's own CPU does not land on the 2 cores the run shares.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { systemClock } from '../../src/core/clock';
import { startWatchServer } from '../../src/report/live/watch-server';
import { RunStore } from '../../src/store/run-store';

const ROOT = path.resolve('.');

/** Open an SSE stream; `onChunk` gets every piece of text. Returns the function that closes it. */
function openPage(port: number, onChunk: (s: string) => void = () => {}): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/events', headers: { Accept: 'text/event-stream' } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', onChunk);
      resolve(() => req.destroy());
    });
    req.on('error', (err) => { if (!req.destroyed) reject(err); });
    req.end();
  });
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;

async function latency(root: string): Promise<void> {
  const dir = path.join(root, 'latency');
  await RunStore.create(dir, { id: 'latency', createdAt: new Date().toISOString(), config: { stream: { tasks: 400 } } });
  writeFileSync(path.join(dir, 'events.jsonl'), '');
  const server = await startWatchServer(dir, { clock: systemClock, port: 0 });
  const lat: number[] = [];
  let buf = '';
  const close = await openPage(server.port, (chunk) => {
    buf += chunk;
    let end: number;
    while ((end = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (block.includes('event: ev') && data) lat.push(Date.now() - (JSON.parse(data) as { committedAt: number }).committedAt);
    }
  });
  // Another process commits 400 events, 20 a second, each written and fsync'd as the engine commits a group.
  const writer = `const fs=require('fs');const fd=fs.openSync(${JSON.stringify(path.join(dir, 'events.jsonl'))},'a');let seq=0;
const t=setInterval(()=>{const line=JSON.stringify({id:'e'+seq,seq,type:'task.done',taskId:'t'+seq,reward:1,committedAt:Date.now()})+'\\n';fs.writeSync(fd,line);fs.fsyncSync(fd);seq++;if(seq===400){clearInterval(t);fs.closeSync(fd);}},50);`;
  await new Promise((resolve) => spawn(process.execPath, ['-e', writer], { stdio: 'ignore' }).on('exit', resolve));
  while (lat.length < 400) await new Promise((r) => setTimeout(r, 100));
  close();
  await server.close();
  console.log(`commit → page (400 events from another process, 20/s): median ${pct(lat, 0.5)} ms, p95 ${pct(lat, 0.95)} ms, max ${Math.max(...lat)} ms (goal: within 1,000 ms)`);
}

async function slowdown(root: string): Promise<void> {
  const scenario = path.join(root, 'qa.json');
  writeFileSync(scenario, JSON.stringify({ name: 'qa', seed: 4, engine: { inFlight: 8 }, stream: { order: 'shuffled', tasks: 400, niches: [{ id: 'people-qa' }, { id: 'timeline-qa' }] } }));
  const runOnce = async (i: number, pages: number): Promise<{ wall: number; events: number }> => {
    const out = path.join(root, `slow-${i}-${pages}`);
    const port = 17000 + i;
    const args = ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'run', scenario, '--out', out, '--quiet', '--no-report', '--json', ...(pages ? [`--watch=${port}`] : [])];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += String(d); });
    let opened = null as Promise<(() => void)[]> | null;
    child.stderr.on('data', (d) => {
      stderr += String(d);
      // The pages open as soon as the server says where it is, before the run's first task.
      if (pages && !opened && stderr.includes('watch: http://')) opened = Promise.all(Array.from({ length: pages }, () => openPage(port)));
    });
    await new Promise((resolve) => child.on('exit', resolve));
    for (const close of (await opened) ?? []) close();
    const summary = JSON.parse(stdout.trim().split('\n').pop()!) as { timing: { wallSeconds: number } };
    const events = readFileSync(path.join(out, 'events.jsonl'), 'utf8').split('\n').length - 1;
    return { wall: summary.timing.wallSeconds, events };
  };
  const none: number[] = [];
  const ten: number[] = [];
  let events = 0;
  for (let i = 0; i < 3; i++) {
    const a = await runOnce(2 * i, 0);
    const b = await runOnce(2 * i + 1, 10);
    none.push(a.wall);
    ten.push(b.wall);
    events = a.events;
  }
  const med = (xs: number[]) => pct(xs, 0.5);
  console.log(`a 400-task run (qa niches, 8 in flight, ${events} events, ${(events / med(none)).toFixed(0)} events/s): ${med(none).toFixed(2)} s with no page, ${med(ten).toFixed(2)} s with its server and 10 pages open (medians of 3, alternated) → ${(100 * (med(ten) / med(none) - 1)).toFixed(1)} % (goal: at most 5 %)`);
  console.log(`  runs without: ${none.map((x) => x.toFixed(2)).join(', ')} s; with: ${ten.map((x) => x.toFixed(2)).join(', ')} s`);
}

async function largeLog(root: string): Promise<void> {
  const tasks = 100_000;
  const dir = path.join(root, 'large');
  const agents = Array.from({ length: 8 }, (_, i) => `agent-0${i + 1}`);
  const niches = ['arithmetic', 'algebra', 'people-qa', 'timeline-qa', 'list-functions', 'string-functions'];
  const structures = ['voting', 'debate', 'generator-critic', 'decompose'];
  await RunStore.create(dir, { id: 'large', createdAt: new Date().toISOString(), config: { name: 'large', stream: { tasks, niches: niches.map((id) => ({ id })) } } });
  const file = path.join(dir, 'events.jsonl');
  const out = createWriteStream(file);
  let seq = 0;
  let x = 7;
  const rnd = () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648);
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  const put = (o: Record<string, unknown>) => out.write(`${JSON.stringify({ id: `e${seq}`, seq: seq++, time: new Date(t0 + seq * 10).toISOString(), ...o })}\n`);
  put({ type: 'run.started', scenario: 'large', variant: 'evochamber', seed: 1, tasks });
  for (const a of agents) put({ type: 'agent.spawned', agentId: a, origin: 'seed' });
  for (let t = 0; t < tasks; t++) {
    const niche = niches[t % niches.length]!;
    const taskId = `${niche}-${t}`;
    const team = [0, 1, 2].map((k) => agents[(t + k) % agents.length]!);
    put({ type: 'task.started', taskId, niche, poolVersion: t });
    put({ type: 'team.assembled', taskId, members: team.map((agentId, k) => ({ agentId, role: ['anchor', 'complement', 'scout'][k] })) });
    put({ type: 'structure.chosen', taskId, niche, structure: structures[Math.floor(rnd() * 4)] });
    const reward = rnd() < 0.7 ? 1 : 0;
    put({ type: 'task.graded', taskId, niche, reward, correct: reward === 1 });
    for (const a of team) put({ type: 'competence.updated', taskId, agentId: a, niche, competence: Number(rnd().toFixed(3)), exposure: Math.floor(t / 8) });
    put({ type: 'task.done', taskId, status: 'graded', reward, tokens: { solve: { calls: 3, promptTokens: 900, completionTokens: 300 } } });
    if (!out.write('')) await new Promise((r) => out.once('drain', r));
  }
  put({ type: 'run.finished' });
  await new Promise((r) => out.end(r));
  const mb = statSync(file).size / 1e6;
  const s0 = systemClock.now();
  const server = await startWatchServer(dir, { clock: systemClock, port: 0 });
  const fold = (systemClock.now() - s0) / 1000;
  let bytes = 0;
  const open0 = systemClock.now();
  let firstFigures = 0;
  let firstView = 0;
  const close = await openPage(server.port, (chunk) => {
    bytes += chunk.length;
    if (!firstFigures && chunk.includes('event: figures')) firstFigures = systemClock.now() - open0;
    if (!firstView && chunk.includes('event: view')) firstView = systemClock.now() - open0;
  });
  while (!firstView) await new Promise((r) => setTimeout(r, 50));
  close();
  await server.close();
  console.log(`a ${tasks.toLocaleString('en')}-task log (${seq.toLocaleString('en')} events, ${mb.toFixed(0)} MB): folded in ${fold.toFixed(1)} s when the server starts; a page that opens it gets its figures in ${firstFigures.toFixed(0)} ms and the charts in ${(firstView / 1000).toFixed(2)} s (one render from the aggregated state), ${(bytes / 1e3).toFixed(0)} kB in all — never the log`);
}

/** The watch server against its goals: latency, slowdown with 10 pages, a 100,000-task log. */
export async function benchWatch(): Promise<void> {
  const root = mkdtempSync(path.join(tmpdir(), 'evo-bench-watch-'));
  await latency(root);
  await largeLog(root);
  await slowdown(root);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchWatch();
