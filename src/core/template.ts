import { readFileSync } from 'node:fs';

const cache = new Map<string, string>();

/** Load a prompt template that lives beside the code (`src/<folder>/prompts/<name>.txt`). */
export function loadTemplate(baseUrl: string, name: string): string {
  const url = new URL(`./prompts/${name}.txt`, baseUrl);
  const key = url.href;
  let text = cache.get(key);
  if (text === undefined) {
    text = readFileSync(url, 'utf8');
    cache.set(key, text);
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
