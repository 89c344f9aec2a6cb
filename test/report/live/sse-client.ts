// A minimal Server-Sent Events reader over node:http for the watch server's tests: the raw
// request (so paths are sent as written, `..` and all), and the messages parsed as the spec says.
import { request } from 'node:http';

/** One SSE message. */
export interface SseMessage {
  readonly event: string;
  readonly id: string | null;
  readonly data: string;
}

/** GET a path exactly as written; resolves with the status and body. */
export function rawGet(port: number, pathAsSent: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: pathAsSent, headers }, (res) => {
      let body = '';
      res.on('data', (d) => { body += String(d); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Read an SSE stream until `until` says so (given every message so far); then close it. */
export function readSse(port: number, pathAsSent: string, until: (msgs: SseMessage[]) => boolean, headers: Record<string, string> = {}): Promise<SseMessage[]> {
  return new Promise((resolve, reject) => {
    const msgs: SseMessage[] = [];
    let buf = '';
    const req = request({ host: '127.0.0.1', port, path: pathAsSent, headers: { Accept: 'text/event-stream', ...headers } }, (res) => {
      if (res.statusCode !== 200) { reject(new Error(`status ${res.statusCode}`)); res.resume(); return; }
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        for (let end = buf.indexOf('\n\n'); end >= 0; end = buf.indexOf('\n\n')) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          let event = 'message';
          let id: string | null = null;
          const data: string[] = [];
          for (const l of block.split('\n')) {
            if (l.startsWith('event: ')) event = l.slice(7);
            else if (l.startsWith('id: ')) id = l.slice(4);
            else if (l.startsWith('data: ')) data.push(l.slice(6));
          }
          if (data.length || id !== null) msgs.push({ event, id, data: data.join('\n') });
        }
        if (until(msgs)) { req.destroy(); resolve(msgs); }
      });
      res.on('end', () => resolve(msgs));
    });
    req.on('error', (err) => { if (!req.destroyed) reject(err); });
    req.end();
  });
}
