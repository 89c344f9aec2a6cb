import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { declaredPromptTemplates, promptTemplate, PROMPT_FRAGMENT, PROMPT_HEADINGS } from '../../src/llm/prompt-kinds';
import { readPrompt } from '../../src/sim/prompt-reader';
// Every module that builds prompts, so that each has declared its templates.
import '../../src/individual/agent-prompts';
import '../../src/team/team-prompts';
import '../../src/team/leadlearn/choose-prompt';
import '../../src/team/leadlearn/leadership-note';
import '../../src/population/codream/codream-prompts';
import '../../src/population/staleness/staleness-prompt';
import '../../src/population/lifecycle/persona-writer';
import '../../src/engine/meta/meta-editor';

const SRC = path.resolve('src');
const templates = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.txt')).map((f) => path.join(SRC, f)).sort();
const asUser = (text: string) => readPrompt([{ role: 'system', content: 'persona' }, { role: 'user', content: text }]).kind;

describe('prompt kinds: the builders and the simulator read one table', () => {
  it('every template under src/ is declared by its builder with a kind', () => {
    expect(templates.length).toBeGreaterThanOrEqual(19);
    expect([...declaredPromptTemplates().keys()].filter((f) => f.startsWith(SRC + path.sep)).sort()).toEqual(templates);
  });

  it.each(templates.map((f) => [path.relative(SRC, f), f] as const))('%s reads as the kind its builder declares', (_rel, file) => {
    const t = declaredPromptTemplates().get(file)!;
    const text = readFileSync(file, 'utf8');
    if (t.kind === PROMPT_FRAGMENT) {
      // A fragment opens other prompts: it must carry no kind heading, or it would decide their kind.
      expect(asUser(text)).toBe('unknown');
      return;
    }
    expect(asUser(text)).toBe(t.kind);
    expect(t.text()).toBe(text);
  });

  it('the team\'s opening fragment leaves each team prompt its own kind', () => {
    const all = [...declaredPromptTemplates().values()];
    const context = all.find((t) => t.kind === PROMPT_FRAGMENT)!;
    const team = all.filter((t) => path.dirname(t.file) === path.dirname(context.file) && t !== context);
    expect(team.length).toBe(6);
    for (const t of team) expect(asUser(`${readFileSync(context.file, 'utf8')}\n${readFileSync(t.file, 'utf8')}`), t.file).toBe(t.kind);
  });

  it('every kind in the table is some template\'s', () => {
    const used = new Set([...declaredPromptTemplates().values()].map((t) => t.kind));
    for (const [kind] of PROMPT_HEADINGS) expect(used.has(kind), kind).toBe(true);
  });

  it('a template declared as the wrong kind, or that lost its heading, fails its first read, naming the file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'evo-kinds-'));
    mkdirSync(path.join(dir, 'prompts'));
    writeFileSync(path.join(dir, 'prompts', 'review.txt'), '{{context}}\n## Candidate answer\n{{candidate}}\n\n## Review\nSay whether it is right.\n');
    writeFileSync(path.join(dir, 'prompts', 'lost.txt'), '{{context}}\n## Candidate answer\n{{candidate}}\n\n## Reveiw\nSay whether it is right.\n');
    const base = pathToFileURL(path.join(dir, 'builder.ts')).href;
    expect(() => promptTemplate(base, 'review', 'decompose').text()).toThrow(/review\.txt: reads as "review", declared "decompose"/);
    expect(() => promptTemplate(base, 'lost', 'review').text()).toThrow(/lost\.txt: reads as no kind, declared "review"/);
    expect(promptTemplate(base, 'review', 'review').text()).toContain('## Review');
  });
});
