/** Text utilities shared by prompts, graders, logs and reports. Pure; no project imports. */

/** Cut `text` to at most `max` characters, marking the cut with `…` (prompts and logs stay bounded). */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

// Reasoning traces in model replies. One implementation for every reader of replies (graders,
// JSON parsing, notes) so they agree on what the answer is. Linear in the input; never throws.

const THINK_TAG = /<(\/?)think(?:ing)?>/gi;

/**
 * Remove reasoning traces: closed `<think>…</think>` blocks (a nested opener inside one is part
 * of it); a stray `</think>` — chat templates that put the opener in the prompt — drops everything
 * before it; an unclosed `<think>` drops everything after it (a truncated trace holds no final
 * answer). The rest is kept, trimmed. One pass over the tags: completions can be huge.
 */
export function stripThinking(text: string): string {
  let kept: string[] = [];
  let from = 0;
  let openAt = -1;
  for (const m of text.matchAll(THINK_TAG)) {
    const at = m.index ?? 0;
    if (m[1] !== '/') {
      if (openAt < 0) {
        kept.push(text.slice(from, at));
        openAt = at;
      }
    } else if (openAt >= 0) {
      openAt = -1;
      from = at + m[0].length;
    } else {
      kept = [];
      from = at + m[0].length;
    }
  }
  if (openAt < 0) kept.push(text.slice(from));
  return kept.join('').trim();
}
