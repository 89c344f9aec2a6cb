import { fileURLToPath } from 'node:url';
import { loadTemplate } from '../core/template';

/**
 * The kinds of request a prompt can be, each with the `## Heading` that marks it, in the order a
 * reader tries them: the first heading present decides, because more specific requests also carry
 * the headings of plainer ones (a synthesis prompt has "Answer format" too). One table, read by
 * both sides: the prompt builders declare each template's kind with `promptTemplate`, and the
 * simulator (sim/prompt-reader.ts) tells a request's kind with `kindOfHeadings`.
 */
export const PROMPT_HEADINGS = [
  ['dream-reflect', 'CoDream: reflect'],
  ['dream-contrast', 'CoDream: contrast'],
  ['dream-imagine', 'CoDream: imagine'],
  ['dream-debate', 'CoDream: debate'],
  ['dream-crystallize', 'CoDream: crystallize'],
  ['stale', 'Stale update'],
  ['meta', 'Edit the procedure'],
  ['persona', 'Write a persona'],
  ['choose', 'Choose a structure'],
  ['note', 'Leadership note'],
  ['review', 'Review'],
  ['decompose', 'Decompose'],
  ['synthesize', 'Sub-problem solutions'],
  ['part', 'Sub-problem'],
  ['revise', 'Other answers'],
  ['revise', 'Reviewer feedback'],
  ['reflect', 'Reflection'],
  ['solve', 'Answer format'],
] as const;

/** A kind of request an agent, the team, the population or the meta-editor sends a model. */
export type PromptKind = (typeof PROMPT_HEADINGS)[number][0];

/** A request's kind as a reader tells it; `unknown` when it carries no kind's heading. */
export type RequestKind = PromptKind | 'unknown';

/** The kind of a template that is a part of other prompts (the team's shared opening) and carries no kind heading of its own. */
export const PROMPT_FRAGMENT = 'fragment';

/** The `## Heading` lines of a prompt's text, lower-cased, in order. */
export function headingsOf(text: string): string[] {
  return [...text.matchAll(/^## (.*)$/gm)].map((m) => m[1]!.trim().toLowerCase());
}

/** The kind marked by the first heading of `PROMPT_HEADINGS` that `has` (lower-case headings) answers yes to. */
export function kindOfHeadings(has: (heading: string) => boolean): RequestKind {
  return PROMPT_HEADINGS.find(([, heading]) => has(heading.toLowerCase()))?.[0] ?? 'unknown';
}

/** A template of a known kind; its text is read (and checked) on first use. */
export interface PromptTemplate {
  readonly kind: PromptKind | typeof PROMPT_FRAGMENT;
  /** Absolute path of the `.txt` file. */
  readonly file: string;
  /** The template's text, `{{placeholders}}` unfilled. */
  text(): string;
}

const declared = new Map<string, PromptTemplate>();

/**
 * Declare the template `prompts/<name>.txt` beside the module at `baseUrl` as a prompt of `kind`.
 * Its first read checks that the text reads as that kind (a fragment: as none), so a
 * template that loses or gains a kind heading fails with a message naming the file, not as a
 * request the simulator answers as `unknown`.
 */
export function promptTemplate(baseUrl: string, name: string, kind: PromptKind | typeof PROMPT_FRAGMENT): PromptTemplate {
  const file = fileURLToPath(new URL(`./prompts/${name}.txt`, baseUrl));
  let checked = false;
  const t: PromptTemplate = {
    kind,
    file,
    text() {
      const text = loadTemplate(baseUrl, name);
      if (!checked) {
        const heads = new Set(headingsOf(text));
        const got = kindOfHeadings((h) => heads.has(h));
        const want = kind === PROMPT_FRAGMENT ? 'unknown' : kind;
        if (got !== want) throw new Error(`prompt template ${file}: reads as ${got === 'unknown' ? 'no kind' : `"${got}"`}, declared ${kind === PROMPT_FRAGMENT ? 'a fragment of other prompts' : `"${kind}"`} (headings: src/llm/prompt-kinds.ts)`);
        checked = true;
      }
      return text;
    },
  };
  declared.set(file, t);
  return t;
}

/** Every template declared so far (by the modules imported so far), by file. */
export function declaredPromptTemplates(): ReadonlyMap<string, PromptTemplate> {
  return declared;
}
