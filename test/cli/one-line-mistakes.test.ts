/**
 * Every mistake a new user makes with `--out`, ports, sampling and base URLs gets one line on
 * stderr and a documented exit code (docs/running.md, "Exit codes"), and `--out` never writes a run
 * among a user's files.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8', timeout: 90_000 });
/** As `cli`, without blocking the event loop (a server in this process must answer it). */
function cliAsync(...args: string[]): Promise<{ status: number | null; stderr: string }> {
  const p = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  p.stderr.on('data', (d) => { stderr += String(d); });
  return new Promise((resolve) => p.on('exit', (status) => resolve({ status, stderr })));
}
const lines = (s: string) => s.trim().split('\n').filter(Boolean);
const listen = async (s: Server | ReturnType<typeof createHttpServer>): Promise<number> => {
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return (s.address() as AddressInfo).port;
};

describe('one line for every mistake', () => {
  it('refuses an --out that is a file, or a directory of other files (even with --force), and leaves it as it was', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'evo-out-'));
    const file = path.join(dir, 'notes.txt');
    writeFileSync(file, 'mine');
    const asFile = cli('run', 'scenarios/quickstart.json', '--tasks', '1', '--no-report', '--out', file);
    expect(asFile.status).toBe(1);
    expect(lines(asFile.stderr)).toEqual([`evochamber: error: --out ${file}: is a file, not a directory; pick a new or empty directory`]);
    for (const force of [[], ['--force']]) {
      const r = cli('run', 'scenarios/quickstart.json', '--tasks', '1', '--no-report', '--out', dir, ...force);
      expect(r.status).toBe(1);
      expect(lines(r.stderr)).toHaveLength(1);
      expect(r.stderr).toMatch(/exists, is not empty \(notes\.txt\) and was not written by evochamber; pick a new or empty directory/);
    }
    expect(readdirSync(dir)).toEqual(['notes.txt']);
    expect(readFileSync(file, 'utf8')).toBe('mine');
  });

  it('serve-sim and watch: an invalid or busy port is one line and exit 2', async () => {
    const invalid = cli('serve-sim', '--port', '99999');
    expect(invalid.status).toBe(2);
    expect(lines(invalid.stderr)).toEqual(['evochamber: error: --port takes a port 0–65535, got "99999" (see evochamber serve-sim --help)']);
    const busy = createServer();
    const port = await listen(busy);
    try {
      const r = await cliAsync('serve-sim', '--port', String(port));
      expect(r.status).toBe(2);
      expect(lines(r.stderr)).toEqual([`evochamber: error: --port: port ${port} on 127.0.0.1 is in use (pick another with --port, or --port 0 for a free one) (see evochamber serve-sim --help)`]);
      const runDir = path.join(mkdtempSync(path.join(tmpdir(), 'evo-watch-')), 'run');
      expect(cli('run', 'scenarios/quickstart.json', '--tasks', '1', '--no-report', '--quiet', '--out', runDir).status).toBe(0);
      const watch = await cliAsync('watch', runDir, '--port', String(port));
      expect(watch.status).toBe(2);
      expect(lines(watch.stderr)).toEqual([`evochamber: error: watch: port ${port} on 127.0.0.1 is in use (pick another with --port) (see evochamber watch --help)`]);
    } finally {
      busy.close();
    }
  });

  it('a base URL that answers 404 says to check for /v1', async () => {
    const server = createHttpServer((_req, res) => { res.writeHead(404, { 'content-type': 'application/json' }); res.end('{"detail":"Not Found"}'); });
    const port = await listen(server);
    try {
      const out = mkdtempSync(path.join(tmpdir(), 'evo-404-'));
      for (const model of [[], ['--model', 'm']]) {
        const r = await cliAsync('run', 'scenarios/quickstart.json', '--tasks', '1', '--no-report', '--base-url', `http://127.0.0.1:${port}`, ...model, '--out', path.join(out, 'r'));
        expect(r.status).toBe(1);
        expect(lines(r.stderr)).toHaveLength(1);
        expect(r.stderr).toContain(`HTTP 404): OpenAI-compatible servers answer under /v1; check the base URL (try http://127.0.0.1:${port}/v1)`);
      }
    } finally {
      server.close();
    }
  });
});
