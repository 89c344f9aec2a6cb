import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Clock } from '../../core/clock';
import { isLoopbackHost } from '../../core/loopback';
import { AblationWatch, isAblationWatchDir } from './ablation-watch';
import { RunWatch, type SseClient } from './run-watch';
import { WATCH_CLIENT_JS, watchPage } from './watch-page';
import { END_GRACE_MS } from './watch-end';

/** Default port of `evochamber watch` and `--watch`. */
export const DEFAULT_WATCH_PORT = 7420;

/** Options of a watch server. */
export interface WatchServerOptions {
  readonly clock: Clock;
  /** Address to bind (default 127.0.0.1). Any address off loopback requires a token. */
  readonly host?: string;
  /** Port (default 7420; 0 picks a free one). */
  readonly port?: number;
  /** The token to require; generated when the bind is off loopback and none is given. */
  readonly token?: string;
  /** Least time between two chart renders (default 1000 ms). */
  readonly minRenderMs?: number;
  /** Fallback poll of the logs (default 500 ms). */
  readonly pollMs?: number;
}

/** A running watch server. */
export interface WatchServer {
  /** The address to open (with the token in it when one is required). */
  readonly url: string;
  readonly port: number;
  /** The token every request must carry, or null on a loopback bind. */
  readonly token: string | null;
  /** Point a server started without a directory at one (`run --watch`, once the run directory exists). */
  attach(dir: string): Promise<void>;
  /**
   * Stop serving. With `runEnded` (the run's process is gone: `run --watch`), every open page of the
   * run is first told how it ended (RunWatch.end; `crashed` when the log does not say), and the
   * server waits, at most END_GRACE_MS, until each page's stream has taken it.
   */
  close(opts?: { readonly runEnded?: boolean }): Promise<void>;
}


type Target = { kind: 'run'; watch: RunWatch } | { kind: 'ablation'; watch: AblationWatch };

/** Check a directory can be watched: one line naming it when it does not exist or is neither a run nor an ablation. */
export function checkWatchDir(dir: string): void {
  const abs = path.resolve(dir);
  if (!existsSync(abs) || !statSync(abs).isDirectory()) throw new Error(`${dir}: no such directory`);
  if (!existsSync(path.join(abs, 'run.json')) && !isAblationWatchDir(abs)) {
    throw new Error(`${dir}: neither a run directory (no run.json) nor an ablation directory (no ablation-plan.json)`);
  }
}

/** How long an idle SSE connection waits before a comment line keeps it (and its proxies) open. */
const HEARTBEAT_MS = 15_000;
/** A page this far behind (bytes queued) is dropped; it reconnects with Last-Event-ID and reads what it missed from the log. */
const MAX_QUEUED = 8 << 20;

/**
 * Serve a run directory (or an ablation's) to browsers: the watch page, its script, and the
 * Server-Sent Events streams the page reads. Binds 127.0.0.1 by default; on any other address a
 * token (printed once by the CLI) is checked on every request, and a request without it gets 401.
 * Only the known paths are served: anything else, traversal attempts included, is 404. `dir`
 * null: the server waits for `attach` (the page says it is waiting).
 */
export async function startWatchServer(dir: string | null, opts: WatchServerOptions): Promise<WatchServer> {
  const host = opts.host ?? '127.0.0.1';
  const loopback = isLoopbackHost(host);
  const token = opts.token ?? (loopback ? null : randomBytes(18).toString('base64url'));
  // Unset ones take the watchers' defaults (each read with ??).
  const watchOpts = { clock: opts.clock, minRenderMs: opts.minRenderMs, pollMs: opts.pollMs };
  let target: Target | null = null;
  const waiting = new Set<ServerResponse>();
  const streams = new Set<ServerResponse>();

  const attach = async (d: string): Promise<void> => {
    const abs = path.resolve(d);
    if (isAblationWatchDir(abs) && !existsSync(path.join(abs, 'run.json'))) {
      const watch = new AblationWatch(abs, watchOpts);
      await watch.start();
      target = { kind: 'ablation', watch };
    } else {
      // Pages see the run only once its log has been read (run.json waited for): until then they wait.
      const watch = new RunWatch(abs, watchOpts);
      await watch.start();
      target = { kind: 'run', watch };
    }
    // Pages opened before the run existed: end their stream, and EventSource reconnects to the run.
    for (const res of waiting) res.end();
    waiting.clear();
  };
  if (dir !== null) {
    checkWatchDir(dir);
    await attach(dir);
  }

  const server: Server = createServer((req, res) => {
    try {
      handle(req, res);
    } catch (err) {
      if (!res.headersSent) send(res, 500, 'text/plain', `${(err as Error).message}\n`);
    }
  });

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://watch.invalid');
    if (token !== null && !hasToken(req, url, token)) return send(res, 401, 'text/plain', 'a token is required: open the URL evochamber printed (…?token=…)\n');
    if (token === null && !hostAllowed(req.headers.host)) return send(res, 403, 'text/plain', 'unexpected Host header\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'GET only\n');
    // Only exact, known paths. `new URL` has already resolved dot segments (encoded ones too), so a
    // traversal lands on some other path, which is not in this list.
    if (/%2e|%2f|%5c|\.\./i.test(req.url ?? '')) return send(res, 404, 'text/plain', 'not found\n');
    const run = url.searchParams.get('run');
    switch (url.pathname) {
      case '/': return page(res, run);
      case '/watch.js': return send(res, 200, 'text/javascript; charset=utf-8', WATCH_CLIENT_JS);
      case '/events': return events(req, res, run);
      case '/ablation/events': return ablationEvents(req, res);
      default: return send(res, 404, 'text/plain', 'not found\n');
    }
  };

  const page = (res: ServerResponse, run: string | null): void => {
    const t = target as Target | null;
    if (t?.kind === 'ablation' && run === null) return send(res, 200, 'text/html; charset=utf-8', watchPage({ mode: 'ablation', title: `EvoChamber watch — ablation ${path.basename(t.watch.dir)}`, token }));
    if (t?.kind === 'ablation' && !t.watch.run(run!)) return send(res, 404, 'text/plain', 'no such run in this ablation\n');
    const name = t === null ? 'the run being created' : t.kind === 'run' ? path.basename(t.watch.dir) : run!;
    return send(res, 200, 'text/html; charset=utf-8', watchPage({ mode: 'run', title: `EvoChamber watch — ${name}`, ...(t?.kind === 'ablation' ? { run: run! } : {}), token }));
  };

  const openStream = (req: IncomingMessage, res: ServerResponse): SseClient => {
    res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    res.write('retry: 1000\n\n');
    streams.add(res);
    const beat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
    beat.unref?.();
    req.on('close', () => { clearInterval(beat); streams.delete(res); });
    return {
      write: (chunk) => {
        if (res.writableLength > MAX_QUEUED) { res.destroy(); return; }
        res.write(chunk);
      },
    };
  };

  const events = (req: IncomingMessage, res: ServerResponse, run: string | null): void => {
    const t = target as Target | null;
    const watch = t === null ? null : t.kind === 'run' ? t.watch : run === null ? null : t.watch.run(run);
    if (t !== null && watch === null) return send(res, 404, 'text/plain', 'no such run\n');
    const client = openStream(req, res);
    if (watch === null) {
      client.write('event: waiting\ndata: {}\n\n');
      waiting.add(res);
      req.on('close', () => waiting.delete(res));
      return;
    }
    const off = watch.subscribe(client, lastEventId(req, new URL(req.url ?? '/', 'http://watch.invalid')));
    req.on('close', off);
  };

  const ablationEvents = (req: IncomingMessage, res: ServerResponse): void => {
    const t = target as Target | null;
    if (t?.kind !== 'ablation') return send(res, 404, 'text/plain', 'not an ablation\n');
    const off = t.watch.subscribe(openStream(req, res));
    req.on('close', off);
  };

  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(new Error(err.code === 'EADDRINUSE' ? `watch: port ${opts.port ?? DEFAULT_WATCH_PORT} on ${host} is in use (pick another with --port)` : `watch: cannot listen on ${host}: ${err.message}`)));
    server.listen(opts.port ?? DEFAULT_WATCH_PORT, host, () => resolve((server.address() as AddressInfo).port));
  });
  const shown = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    url: `http://${shown}:${port}/${token ? `?token=${token}` : ''}`,
    port,
    token,
    attach,
    close: async (closeOpts) => {
      const t = target as Target | null;
      if (closeOpts?.runEnded && t?.kind === 'run') {
        t.watch.end('crashed');
        await flushed(streams, END_GRACE_MS);
      }
      t?.watch.stop();
      for (const res of streams) res.end();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Idle keep-alive connections (a browser's) would hold close() open for their timeout.
      server.closeAllConnections();
      await closed;
    },
  };

  function hostAllowed(h: string | undefined): boolean {
    // A loopback bind without a token still refuses pages served under another name (DNS rebinding).
    if (!h) return true;
    const name = h.startsWith('[') ? h.slice(0, h.indexOf(']') + 1) : h.split(':')[0]!;
    return isLoopbackHost(name);
  }
}

const SECURITY_HEADERS = {
  // The page loads nothing from anywhere but this server (the charts are inline SVG).
  'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
} as const;

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': type, 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function hasToken(req: IncomingMessage, url: URL, token: string): boolean {
  const auth = req.headers.authorization;
  const given = url.searchParams.get('token') ?? (auth?.startsWith('Bearer ') ? auth.slice(7) : null);
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The seq after which a reconnecting page wants events: the `Last-Event-ID` header (or `?lastEventId=`). */
function lastEventId(req: IncomingMessage, url: URL): number | null {
  const raw = req.headers['last-event-id'] ?? url.searchParams.get('lastEventId');
  const v = typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : null;
  return v !== null && Number.isSafeInteger(v) ? v : null;
}

/** Resolves once every stream has handed its queued bytes to the socket (a page has what was sent), or after `ms`. */
function flushed(streams: ReadonlySet<ServerResponse>, ms: number): Promise<void> {
  const each = [...streams].map((res) => new Promise<void>((resolve) => {
    if (res.writableLength === 0 || res.destroyed) { resolve(); return; }
    res.once('drain', () => resolve());
    res.once('close', () => resolve());
  }));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<void>((resolve) => { timer = setTimeout(resolve, ms); });
  return Promise.race([Promise.all(each).then(() => undefined), bound]).finally(() => clearTimeout(timer));
}
