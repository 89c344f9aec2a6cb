/**
 * What to say after an endpoint answered 404 to `GET <baseURL>/models`: OpenAI-compatible servers
 * (vLLM, SGLang, serve-sim, hosted APIs) serve under `/v1`, and a base URL without it is the usual
 * cause. The suggestion is built from the URL's host and path only (never its credentials).
 */
export function notFoundHint(baseURL: string): string {
  let u: URL;
  try {
    u = new URL(baseURL);
  } catch {
    return '';
  }
  const path = u.pathname.replace(/\/+$/, '');
  if (/\/v1$/.test(path)) return ': the base URL ends in /v1; check its host, port and path';
  return `: OpenAI-compatible servers answer under /v1; check the base URL (try ${u.protocol}//${u.host}${path}/v1)`;
}
