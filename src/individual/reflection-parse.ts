import { linesWith } from '../core/text';
import { canonicalKey, parseRecordReply, stringField as field } from '../llm/parse-json';

/** What a reflection yields: a niche lesson and a cross-niche meta-insight (`''` when the model gave none). */
export interface ParsedReflection {
  lesson: string;
  meta: string;
}

// Keys are compared case-, space-, `_`- and `-`-insensitively, in priority order.
const LESSON_KEYS = ['lesson', 'insight'];
const META_KEYS = ['meta', 'metainsight'];



/**
 * Read `{lesson, meta}` from a reflection reply (tolerant JSON; `insight`, `meta_insight`,
 * `metaInsight` accepted), else from `Lesson:` / `Meta:` lines. A non-string field counts as
 * missing; `undefined` when there is no non-empty lesson. Never throws.
 */
export function parseReflection(text: string): ParsedReflection | undefined {
  return parseRecordReply(text, fromRecord, fromLines);
}


function fromRecord(record: Record<string, unknown>): ParsedReflection | undefined {
  const lesson = field(record, LESSON_KEYS);
  if (!lesson) return undefined;
  return { lesson, meta: field(record, META_KEYS) ?? '' };
}

// Tolerates markdown decoration: "- **Lesson:** text", "## Meta insight: text".
// Greedy body, trailing decoration trimmed after: a lazy body before `[\s*_]*$` backtracks
// quadratically on a long line.
const LINE = /^[\s>*_#-]*(lesson|insight|meta(?:[\s_-]*insight)?)[\s*_]*:[\s*_]*(.*)$/i;
/** Every line LINE matches holds one of these words: only such lines are tested. */
const LABEL_PROBE = /lesson|insight|meta/gi;

/** Strip trailing whitespace, `*` and `_` without a backtracking regex. */
function trimTrailing(s: string): string {
  let end = s.length;
  while (end > 0 && /[\s*_]/.test(s[end - 1]!)) end--;
  return s.slice(0, end);
}

function fromLines(text: string): ParsedReflection | undefined {
  let lesson: string | undefined;
  let meta: string | undefined;
  for (const line of linesWith(text, LABEL_PROBE)) {
    const m = LINE.exec(line);
    if (!m) continue;
    const isMeta = canonicalKey(m[1] as string).startsWith('meta');
    const body = trimTrailing(m[2] ?? '').trim();
    if (isMeta) meta ??= body;
    else lesson ??= body || undefined;
  }
  return lesson ? { lesson, meta: meta ?? '' } : undefined;
}
