import { readFileSync } from 'node:fs';

/** Template texts by caller's base URL, then name: a prompt is built per model call, so a hit must not parse a URL. */
const cache = new Map<string, Map<string, string>>();

/** Load a prompt template that lives beside the code (`src/<folder>/prompts/<name>.txt`). */
export function loadTemplate(baseUrl: string, name: string): string {
  let byName = cache.get(baseUrl);
  if (byName === undefined) cache.set(baseUrl, byName = new Map());
  let text = byName.get(name);
  if (text === undefined) {
    text = readFileSync(new URL(`./prompts/${name}.txt`, baseUrl), 'utf8');
    byName.set(name, text);
  }
  return text;
}

/**
 * Fill `{{name}}` placeholders. Every placeholder must be given a value: a missing one throws,
 * so a template and its caller can never drift apart silently.
 */
export function renderTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_m, key: string) => {
    const v = values[key];
    if (v === undefined) throw new Error(`prompt template: no value for {{${key}}}`);
    return v;
  });
}
