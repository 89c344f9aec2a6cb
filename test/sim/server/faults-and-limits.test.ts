import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { createRng } from '../../../src/core/rng';
import { drawFault, parseFaults } from '../../../src/sim/server/faults';
import { RateLimiter } from '../../../src/sim/server/rate-limiter';

/** A JSON response body, untyped (the test checks its shape). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const readJson = (r: Response): Promise<any> => r.json();

describe('fault injection spec', () => {
  it('parses rates by name and rejects bad parts with a message naming them', () => {
    expect(parseFaults('error=0.1,429=0.05,hang=0.02,drop=0.02')).toEqual({ error: 0.1, rateLimit: 0.05, hang: 0.02, drop: 0.02, truncate: 0 });
    expect(parseFaults('5xx=0.2', { error: 0.005, rateLimit: 0, hang: 0, drop: 0, truncate: 0 }).error).toBe(0.2);
    expect(() => parseFaults('boom=0.1')).toThrow(/bad fault "boom=0.1"/);
    expect(() => parseFaults('error=2')).toThrow(/bad fault/);
    expect(() => parseFaults('error=0.6,hang=0.6')).toThrow(/add up to/);
  });

  it('draws faults at their rates from a seeded stream', () => {
    const rates = parseFaults('error=0.1,429=0.05,hang=0.02,drop=0.02');
    const draw = (seed: string) => { const r = createRng(seed); return Array.from({ length: 20_000 }, () => drawFault(rates, r)); };
    const a = draw('s');
    expect(draw('s')).toEqual(a);
    const share = (f: string) => a.filter((x) => x === f).length / a.length;
    expect(share('error')).toBeCloseTo(0.1, 1);
    expect(share('rate-limit')).toBeCloseTo(0.05, 1);
    expect(share('none')).toBeCloseTo(0.81, 1);
  });
});

describe('rate limiter (requests and tokens per minute)', () => {
  it('refuses past the limit with the wait until the window frees, and x-ratelimit headers', () => {
    const rl = new RateLimiter(3, 1_000_000);
    for (let i = 0; i < 3; i++) expect(rl.take(i * 1000, 10).ok).toBe(true);
    const d = rl.take(5000, 10);
    expect(d.ok).toBe(false);
    if (d.ok) return;
    expect(d.limit).toBe('requests');
    expect(d.retryAfterMs).toBe(55_000);
    expect(d.headers['x-ratelimit-remaining-requests']).toBe('0');
    expect(rl.take(60_001, 10).ok).toBe(true);
  });

  it('limits tokens per minute too', () => {
    const rl = new RateLimiter(100, 1000);
    expect(rl.take(0, 800).ok).toBe(true);
    const d = rl.take(10, 300);
    expect(d.ok ? 'ok' : d.limit).toBe('tokens');
  });
});

describe('evochamber serve-sim (CLI)', () => {
  it('prints one line with its URL when listening and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve-sim', '--port', '0', '--faults', 'error=0.1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout! }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`exited early with ${code}`)));
      });
      expect(line).toMatch(/^serve-sim listening on http:\/\/127\.0\.0\.1:\d+\/v1 \(profile qwen3-8b-h100-vllm, faults error=0\.1, seed 1\)$/);
      const url = /(http:\S+)/.exec(line)![1]!;
      const models = await readJson(await fetch(`${url}/models`));
      expect(models.data[0].id).toBe('sim');
      const code = await new Promise<number | null>((resolve) => { child.once('exit', resolve); child.kill('SIGTERM'); });
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
