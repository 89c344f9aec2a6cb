import { SIDE_CHANNEL_FIELD } from '../served-side-channel';
import type { RecordedRequest } from './serve-sim';

/** Body fields that hold content (prompts, conversations), left out of the log. */
const CONTENT_FIELDS = new Set(['messages', 'prompt', 'input', 'instructions']);

/**
 * One line of `serve-sim --log-requests`: a generation request's path, its `x-evochamber-*` headers,
 * and every body field but the content and the simulator's side channel (gold answers never reach a
 * file), so a user can see what a run sends — sampling fields, `chat_template_kwargs`, `seed`.
 * Null for a request that is not a JSON POST.
 */
export function requestLogLine(r: RecordedRequest): string | null {
  if (r.method !== 'POST') return null;
  let body: unknown;
  try {
    body = JSON.parse(r.body);
  } catch {
    return null;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const fields = Object.fromEntries(Object.entries(body).filter(([k]) => !CONTENT_FIELDS.has(k) && k !== SIDE_CHANNEL_FIELD));
  const headers = Object.fromEntries(Object.entries(r.headers)
    .filter(([k]) => k.startsWith('x-evochamber-'))
    .map(([k, v]) => [k.slice('x-evochamber-'.length), decode(Array.isArray(v) ? v[0] ?? '' : v ?? '')]));
  return JSON.stringify({ path: r.path, ...headers, body: fields });
}

function decode(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}
