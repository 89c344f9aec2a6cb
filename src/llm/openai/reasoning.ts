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
 * server's separate `reasoning_content` / `reasoning` field.
 */
export function splitReasoning(content: string, reasoningField = ''): SplitReasoning {
  const parts: string[] = reasoningField ? [reasoningField] : [];
  let text = content;
  const close = text.indexOf('</think>');
  const open = text.indexOf('<think>');
  if (close >= 0 && (open < 0 || open > close)) {
    parts.push(text.slice(0, close));
    text = text.slice(close + '</think>'.length);
  }
  text = text.replace(/<think>([\s\S]*?)<\/think>/g, (_m, inner: string) => { parts.push(inner); return ''; });
  const unclosed = text.indexOf('<think>');
  if (unclosed >= 0) {
    parts.push(text.slice(unclosed + '<think>'.length));
    text = text.slice(0, unclosed);
  }
  return { text: text.trim(), reasoning: parts.map((p) => p.trim()).filter(Boolean).join('\n') };
}
