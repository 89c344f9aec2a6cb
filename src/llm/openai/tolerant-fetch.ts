/**
 * Servers written in Python emit `NaN`, `Infinity` and `-Infinity` as bare JSON tokens (the default
 * of `json.dumps`); JSON.parse rejects the whole body for one of them, so a reply whose answer is
 * fine (a NaN in `usage`, say) became a failed attempt. The pool's `openai` clients fetch through
 * this wrapper, which rewrites such tokens outside strings into the strings "NaN", "Infinity" and
 * "-Infinity": the reply parses, and the field holding one is then read as invalid (usage becomes
 * unknown and is logged as such) instead of failing the request.
 */

const TOKENS = ['-Infinity', 'Infinity', 'NaN'] as const;

/**
 * `text` with every bare NaN/Infinity/-Infinity token outside a JSON string quoted; any other text
 * is returned unchanged. One linear pass; a body with none of the tokens is returned as is.
 */
export function quoteBareNonFinite(text: string): string {
  if (!text.includes('NaN') && !text.includes('Infinity')) return text;
  let out = '';
  let from = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92 /* \ */) i++;
      else if (ch === 34 /* " */) inString = false;
      continue;
    }
    if (ch === 34) { inString = true; continue; }
    if (ch !== 78 /* N */ && ch !== 73 /* I */ && ch !== 45 /* - */) continue;
    const token = TOKENS.find((t) => text.startsWith(t, i));
    if (!token) continue;
    // Only a whole token: not part of a longer word (JSON outside strings has no words, but be strict).
    const after = text.charCodeAt(i + token.length);
    if ((after >= 65 && after <= 90) || (after >= 97 && after <= 122) || (after >= 48 && after <= 57)) continue;
    out += `${text.slice(from, i)}"${token}"`;
    i += token.length - 1;
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** Line by line over a server-sent event stream: each `data:` line's JSON is made parseable. */
function sseTransform(): TransformStream<string, string> {
  let buffered = '';
  const fix = (line: string) => (line.startsWith('data:') ? quoteBareNonFinite(line) : line);
  return new TransformStream<string, string>({
    transform(chunk, controller) {
      buffered += chunk;
      const cut = buffered.lastIndexOf('\n');
      if (cut < 0) return;
      controller.enqueue(buffered.slice(0, cut + 1).split('\n').map(fix).join('\n'));
      buffered = buffered.slice(cut + 1);
    },
    flush(controller) {
      if (buffered) controller.enqueue(fix(buffered));
    },
  });
}

/** A fetch whose JSON and event-stream bodies have bare non-finite tokens quoted (see above). */
export function tolerantFetch(inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const res = await inner(input, init);
    const type = res.headers.get('content-type') ?? '';
    if (!res.body || !(type.includes('json') || type.includes('text/event-stream'))) return res;
    const headers = new Headers(res.headers);
    headers.delete('content-length');
    headers.delete('content-encoding'); // the body below is already decoded
    const init2 = { status: res.status, statusText: res.statusText, headers };
    if (type.includes('json')) return new Response(quoteBareNonFinite(await res.text()), init2);
    const body = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(sseTransform()).pipeThrough(new TextEncoderStream());
    return new Response(body, init2);
  };
}
