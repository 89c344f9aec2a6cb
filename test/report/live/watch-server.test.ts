import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/cli/main';
import { systemClock } from '../../../src/core/clock';
import { startWatchServer, type WatchServer } from '../../../src/report/live/watch-server';
import { writeFixtureRun } from '../fixture-run';
import { rawGet, readSse } from './sse-client';

const root = mkdtempSync(path.join(tmpdir(), 'evo-watch-'));
const runDir = writeFixtureRun(path.join(root, 'fixture'));
const seqs = readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { seq: number }).seq);
const lastSeq = seqs.at(-1)!;
const servers: WatchServer[] = [];
afterAll(async () => { await Promise.all(servers.map((s) => s.close())); });

async function serve(opts: { host?: string } = {}): Promise<WatchServer> {
  const s = await startWatchServer(runDir, { clock: systemClock, port: 0, ...opts });
  servers.push(s);
  return s;
}

async function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => { stderr += String(c); return true; });
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    return { code: await main(args), stderr };
  } finally {
    err.mockRestore();
    out.mockRestore();
  }
}

describe('evochamber watch: the server', () => {
  it('off loopback, refuses every request without the token (401), and serves it with the token', async () => {
    const s = await serve({ host: '0.0.0.0' });
    expect(s.token).toMatch(/^[\w-]{20,}$/);
    expect(s.url).toBe(`http://127.0.0.1:${s.port}/?token=${s.token}`);
    for (const p of ['/', '/watch.js', '/events', '/ablation/events', '/nope']) {
      expect((await rawGet(s.port, p)).status).toBe(401);
      expect((await rawGet(s.port, `${p}${p.includes('?') ? '&' : '?'}token=wrong-${s.token!.slice(6)}`)).status).toBe(401);
    }
    expect((await rawGet(s.port, '/', { Authorization: 'Bearer nope' })).status).toBe(401);
    const page = await rawGet(s.port, `/?token=${s.token}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`/watch.js?token=${s.token}`);
    expect((await rawGet(s.port, '/watch.js', { Authorization: `Bearer ${s.token}` })).status).toBe(200);
    const msgs = await readSse(s.port, `/events?token=${s.token}`, (m) => m.some((x) => x.event === 'figures'));
    expect(msgs[0]).toMatchObject({ event: 'hello', id: String(lastSeq) });
  });

  it('on loopback needs no token but refuses a page served under another host name (DNS rebinding)', async () => {
    const s = await serve();
    expect(s.token).toBeNull();
    expect((await rawGet(s.port, '/')).status).toBe(200);
    expect((await rawGet(s.port, '/', { Host: `evil.example:${s.port}` })).status).toBe(403);
  });

  it('answers 404 to path traversal, encoded or not, and to any path it does not know', async () => {
    const s = await serve();
    const attempts = ['/../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd', '/..%2f..%2fetc%2fpasswd', '/watch.js/../../../etc/passwd',
      '/events/..%5c..%5cevents.jsonl', '//etc/passwd', '/run.json', '/events.jsonl', '/index.html', '/%2e%2e%2fevents.jsonl', '/.%2e/.%2e/etc/passwd'];
    for (const p of attempts) {
      const r = await rawGet(s.port, p);
      expect([p, r.status]).toEqual([p, 404]);
      expect(r.body).not.toContain('root:');
    }
  });

  it('gives a reconnecting page exactly the events after its Last-Event-ID, each once, ids = seq', async () => {
    const s = await serve();
    for (const after of [-1, 0, 100, lastSeq - 1]) {
      const msgs = await readSse(s.port, '/events', (m) => m.some((x) => x.event === 'figures'), { 'Last-Event-ID': String(after) });
      const ids = msgs.filter((m) => m.event === 'ev').map((m) => Number(m.id));
      expect(ids).toEqual(seqs.filter((q) => q > after));
      expect(msgs.filter((m) => m.event === 'ev').every((m) => (JSON.parse(m.data) as { seq: number }).seq === Number(m.id))).toBe(true);
    }
    const fresh = await readSse(s.port, '/events', (m) => m.some((x) => x.event === 'view'));
    expect(fresh.filter((m) => m.event === 'ev')).toEqual([]);
    const view = JSON.parse(fresh.find((m) => m.event === 'view')!.data) as { html: string };
    for (const id of ['roster', 'competence', 'lineage', 'codream', 'structures', 'accuracy', 'cost']) expect(view.html).toContain(`<section id="${id}">`);
  });

  it('the CLI: a directory that does not exist is one line and exit 1; a bad flag, exit 2', async () => {
    const missing = path.join(root, 'no-such-run');
    const r = await cli(['watch', missing]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`evochamber: error: ${missing}: no such directory\n`);
    const notRun = await cli(['watch', root]);
    expect(notRun.code).toBe(1);
    expect(notRun.stderr.trim().split('\n')).toHaveLength(1);
    expect((await cli(['watch', runDir, '--port', 'x'])).code).toBe(2);
    expect((await cli(['watch', runDir, '--bogus'])).code).toBe(2);
    expect((await cli(['run', 'scenarios/quickstart.json', '--watch=http'])).code).toBe(2);
  });
});
