import { field, loadRows, stringList, type DatasetRows } from './dataset-rows';
import { passageDistractors } from './qa-distractors';

/** `[[title, [sentences]], ...]` (original) or `{title: [...], sentences: [[...]]}` (Hugging Face). */
function passages(context: unknown): { title: string; text: string }[] | null {
  if (Array.isArray(context)) {
    const out: { title: string; text: string }[] = [];
    for (const p of context) {
      const sentences = Array.isArray(p) ? stringList(p[1]) : undefined;
      if (!Array.isArray(p) || typeof p[0] !== 'string' || !sentences) return null;
      out.push({ title: p[0], text: sentences.join('').trim() });
    }
    return out;
  }
  if (typeof context === 'object' && context !== null) {
    const { title, sentences } = context as { title?: unknown; sentences?: unknown };
    const titles = stringList(title);
    if (!titles || !Array.isArray(sentences) || sentences.length !== titles.length) return null;
    const texts = sentences.map((s) => stringList(s)?.join('').trim());
    if (texts.some((t) => t === undefined)) return null;
    return titles.map((t, i) => ({ title: t, text: texts[i]! }));
  }
  return null;
}

/**
 * HotpotQA rows (distractor or fullwiki setting): `question`, `answer`, and `context` rendered
 * into the question as titled passages (all of them, distractor paragraphs included; no context
 * → the bare question). `level` easy → difficulty 1, else 2. Distractors: other spans of the passages.
 */
export function loadHotpotQa(file: string): DatasetRows {
  return loadRows(file, (r) => {
    const question = field(r, 'question');
    const answer = field(r, 'answer');
    const ctx = r.context === undefined ? [] : passages(r.context);
    if (question === undefined || answer === undefined || ctx === null) return null;
    const rendered = ctx.map((p) => `## ${p.title}\n${p.text}`).join('\n\n');
    return {
      difficulty: r.level === 'easy' ? 1 : 2,
      question: rendered ? `Passages:\n\n${rendered}\n\nQuestion: ${question}` : question,
      hidden: { answer: answer.trim(), distractors: passageDistractors([answer], ctx.map((p) => p.text).join(' ')) },
    };
  });
}
