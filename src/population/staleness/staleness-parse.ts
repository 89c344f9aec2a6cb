import { linesWith } from '../../core/text';
import { parseRecordReply, stringField as field } from '../../llm/parse-json';

/** A reflective staleness verdict: what to do with the item, the rewritten text for a patch, and why. */
export interface StaleVerdict {
  readonly decision: 'keep' | 'patch' | 'drop';
  /** The rewritten text (PATCH only; '' otherwise). */
  readonly text: string;
  /** The model's reason, '' when it gave none. */
  readonly reason: string;
}

// Keys compared case-, space-, `_`- and `-`-insensitively, in priority order.
const DECISION_KEYS = ['decision', 'action', 'verdict', 'answer'];
const TEXT_KEYS = ['text', 'patch', 'patched', 'rewritten', 'rewrite', 'newtext', 'lesson', 'insight'];
const REASON_KEYS = ['reason', 'why', 'because', 'rationale'];


/** KEEP / PATCH / DROP at the start of a value ("Drop.", "**PATCH** it", "keep"), else undefined. */
function decisionOf(value: string): StaleVerdict['decision'] | undefined {
  const word = value.replace(/^[^a-zA-Z]+/, '').slice(0, 5).toLowerCase();
  if (word.startsWith('keep')) return 'keep';
  if (word.startsWith('patch')) return 'patch';
  if (word.startsWith('drop')) return 'drop';
  return undefined;
}


function complete(decision: StaleVerdict['decision'] | undefined, text: string | undefined, reason: string | undefined): StaleVerdict | undefined {
  if (!decision) return undefined;
  if (decision === 'patch' && !text) return undefined;
  return { decision, text: decision === 'patch' ? text! : '', reason: reason ?? '' };
}

function fromRecord(record: Record<string, unknown>): StaleVerdict | undefined {
  const d = field(record, DECISION_KEYS);
  return complete(d === undefined ? undefined : decisionOf(d), field(record, TEXT_KEYS), field(record, REASON_KEYS));
}

// "Decision: PATCH", "- **Text:** …", "## Reason: …". Greedy body, trailing decoration trimmed by a
// loop (a lazy body before `[\s*_]*$` backtracks quadratically on a long line).
const LINE = /^[\s>*_#-]*(decision|action|verdict|text|patch|rewritten|reason)[\s*_]*:[\s*_]*(.*)$/i;
/** Every line LINE matches holds one of these words: only such lines are tested. */
const LABEL_PROBE = /decision|action|verdict|text|patch|rewritten|reason/gi;
const BARE = /\b(KEEP|PATCH|DROP)\b/;

function trimTrailing(s: string): string {
  let end = s.length;
  while (end > 0 && /[\s*_"]/.test(s[end - 1]!)) end--;
  return s.slice(0, end);
}

function fromLines(text: string): StaleVerdict | undefined {
  let decision: StaleVerdict['decision'] | undefined;
  let body: string | undefined;
  let reason: string | undefined;
  for (const line of linesWith(text, LABEL_PROBE)) {
    const m = LINE.exec(line);
    if (!m) continue;
    const key = m[1]!.toLowerCase();
    const value = trimTrailing(m[2] ?? '').replace(/^"/, '').trim();
    if (key === 'reason') reason ??= value;
    else if (key === 'decision' || key === 'action' || key === 'verdict') decision ??= decisionOf(value);
    else if (value) body ??= value;
  }
  // A reply with no labelled decision may still say it in capitals: "DROP — nothing new here."
  decision ??= decisionOf(BARE.exec(text)?.[1] ?? '');
  return complete(decision, body, reason);
}

/**
 * Read a KEEP / PATCH / DROP verdict: tolerant JSON (`decision`, or `action` / `verdict`; `text`,
 * or `patch` / `rewritten`; `reason`), also wrapped one level deep, else labelled lines
 * (`Decision: PATCH`, `Text: …`), else a capitalised KEEP / PATCH / DROP anywhere. A PATCH with no
 * text is unusable. `undefined` when nothing usable is found. Never throws; linear in the reply.
 */
export function parseStaleVerdict(text: string): StaleVerdict | undefined {
  return parseRecordReply(text, fromRecord, fromLines);
}
