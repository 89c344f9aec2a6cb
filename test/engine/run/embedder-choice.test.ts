import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock';
import { embedderOption } from '../../../src/engine/run/embedder-choice';
import { buildModelStack, useModel } from '../../../src/engine/run/model-stack';
import { loadScenario } from '../../../src/index';
import { withOverrides } from '../../../src/engine/scenario/scenario';
import type { LanguageModel } from '../../../src/llm/model';

const quickstart = loadScenario(path.resolve('scenarios/quickstart.json'));

describe('memory.embedder', () => {
  it('is absent by default: the backend embeds, and the scenario as run does not change', () => {
    expect(quickstart.scenario.memory.embedder).toBeUndefined();
    expect(embedderOption(quickstart.scenario)).toEqual({});
    expect(embedderOption(withOverrides(quickstart, { memory: { embedder: 'use-lite' } }).scenario).embedder!.name).toBe('use-lite');
    expect(embedderOption(withOverrides(quickstart, { memory: { embedder: 'hashed' } }).scenario).embedder!.dim).toBe(256);
  });

  it('replaces the backend\'s embeddings in the run\'s model stack, and leaves its completions alone', async () => {
    const backend: LanguageModel = {
      name: 'fake',
      complete: async () => ({ text: 'backend', usage: { promptTokens: 1, completionTokens: 1 }, timing: { startedAt: 0, endedAt: 0 } }) as never,
      embed: async (texts) => texts.map(() => new Float32Array(3).fill(1)),
    };
    const embedder = { name: 'hashed', dim: 5, embed: async (texts: readonly string[]) => texts.map(() => new Float32Array(5).fill(0.2)) };
    const stack = buildModelStack({ backend: useModel(backend), runDir: mkdtempSync(path.join(tmpdir(), 'evo-emb-')), resumed: false, journal: false, onMissing: () => {}, clock: new ManualClock(), embedder });
    expect((await stack.model.embed(['a']))[0]!.length).toBe(5);
    const plain = buildModelStack({ backend: useModel(backend), runDir: mkdtempSync(path.join(tmpdir(), 'evo-emb-')), resumed: false, journal: false, onMissing: () => {}, clock: new ManualClock() });
    expect((await plain.model.embed(['a']))[0]!.length).toBe(3);
  });

  it('is refused beside model.embeddings, naming the field; an unknown name is refused too', () => {
    const http = { backend: 'openai', endpoints: [{ baseURL: 'http://127.0.0.1:8000/v1', model: 'm' }], embeddings: { model: 'e' } };
    expect(() => withOverrides(quickstart, { model: http, memory: { embedder: 'use-lite' } } as never)).toThrow(/memory\.embedder.*model\.embeddings already chooses/);
    expect(() => withOverrides(quickstart, { memory: { embedder: 'word2vec' } } as never)).toThrow(/memory\.embedder/);
  });
});
