/** An answer with the model's reasoning taken out of it. */
export interface SplitReasoning {
  /** What the model answered, with no `<think>` block left in it. */
  readonly text: string;
  /** The reasoning (`reasoning_content` and/or think blocks), '' when there was none. */
  readonly reasoning: string;
}

/**
 * Separate a reasoning model's thinking from its answer: `<think>…</think>` blocks anywhere in
 * `content` (an unclosed `<think>` runs to the end, as when generation is cut off; a lone
 * `</think>` means the template opened the block in the prompt, as Qwen3's does), plus the
 * server's separate `reasoning_content` / `reasoning` field. Linear in the input.
 */
export function splitReasoning(content: string, reasoningField = ''): SplitReasoning {
  const parts: string[] = reasoningField ? [reasoningField] : [];
  let text = content;
  const close = text.indexOf(CLOSE);
  const open = text.indexOf(OPEN);
  if (close >= 0 && (open < 0 || open > close)) {
    parts.push(text.slice(0, close));
    text = text.slice(close + CLOSE.length);
  }
  // One left-to-right pass with indexOf: a run of `<think>` without closers stays linear.
  const kept: string[] = [];
  let at = 0;
  for (;;) {
    const o = text.indexOf(OPEN, at);
    if (o < 0) { kept.push(text.slice(at)); break; }
    kept.push(text.slice(at, o));
    const c = text.indexOf(CLOSE, o + OPEN.length);
    if (c < 0) { parts.push(text.slice(o + OPEN.length)); break; } // unclosed: runs to the end
    parts.push(text.slice(o + OPEN.length, c));
    at = c + CLOSE.length;
  }
  return { text: kept.join('').trim(), reasoning: parts.map((p) => p.trim()).filter(Boolean).join('\n') };
}

const OPEN = '<think>';
const CLOSE = '</think>';
