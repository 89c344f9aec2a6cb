import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/index';
import { withOverrides } from '../../src/engine/scenario/scenario';
import { parseScenario } from '../../src/engine/scenario/scenario';
import { requestBody } from '../../src/llm/openai/chat-attempt';
import { requestKey } from '../../src/llm/request-journal';
import { resolveSampling, requestSeed, SamplingModel } from '../../src/llm/sampling';
import type { CompletionRequest, LanguageModel } from '../../src/llm/model';
import { ask } from '../../src/llm/ask';

const messages = [{ role: 'user' as const, content: 'What is 2+2?' }];
const base: CompletionRequest = { messages, stage: 'solve', agentId: 'a1', taskId: 't1', seedKey: 't1/a1/solve/0' };
const quick = () => loadScenario(path.resolve('scenarios/quickstart.json'));

/** A model that records each request it is asked and answers "ok". */
function recorder(): LanguageModel & { seen: CompletionRequest[] } {
  const seen: CompletionRequest[] = [];
  return {
    name: 'rec', seen,
    complete: async (req) => { seen.push(req); return { text: 'ok', usage: { promptTokens: 1, completionTokens: 1 }, timing: { ttftMs: 0, totalMs: 0 }, model: 'rec' }; },
    embed: async (t) => t.map(() => new Float32Array(1)),
  };
}

describe('sampling settings: model-wide, by stage, by endpoint', () => {
  it('layers model-wide, stage and request settings, later winning field by field', () => {
    const cfg = {
      sampling: { temperature: 0.7, top_p: 0.8 },
      extraBody: { chat_template_kwargs: { enable_thinking: false } },
      stages: { critic: { sampling: { temperature: 0 } }, reflect: { extraBody: { top_k: 5 } } },
    };
    expect(resolveSampling(cfg, base)).toEqual({ sampling: { temperature: 0.7, top_p: 0.8 }, extraBody: { chat_template_kwargs: { enable_thinking: false } } });
    expect(resolveSampling(cfg, { ...base, samplingStage: 'critic' }).sampling).toEqual({ temperature: 0, top_p: 0.8 });
    expect(resolveSampling(cfg, { ...base, stage: 'reflect' }).extraBody).toEqual({ chat_template_kwargs: { enable_thinking: false }, top_k: 5 });
    // The leader's calls are accounted as leadlearn and sampled as `leader`.
    expect(resolveSampling({ stages: { leader: { sampling: { temperature: 0.1 } } } }, { ...base, stage: 'leadlearn' }).sampling).toEqual({ temperature: 0.1 });
    expect(resolveSampling({}, base)).toEqual({});
  });

  it('names the critic and staleness parts when asking, while accounting them under solve and reflect', async () => {
    const rec = recorder();
    const model = new SamplingModel(rec, { stages: { critic: { sampling: { temperature: 0.2 } }, staleness: { sampling: { temperature: 0 } } } });
    await ask(model, messages, 'critic', 'a1', 't1', 'k1');
    await ask(model, messages, 'staleness', 'a1', 't1', 'k2');
    await ask(model, messages, 'solve', 'a1', 't1', 'k3');
    expect(rec.seen.map((r) => [r.stage, r.sampling?.temperature])).toEqual([['solve', 0.2], ['reflect', 0], ['solve', undefined]]);
  });

  it('sends each member its own seed when a base seed is set, and a new base seed moves them all', () => {
    const a = requestSeed({ ...base, sampling: { seed: 7 } });
    const b = requestSeed({ ...base, seedKey: 't1/a2/solve/0', sampling: { seed: 7 } });
    const c = requestSeed({ ...base, sampling: { seed: 8 } });
    expect(new Set([a, b, c]).size).toBe(3);
    for (const s of [a, b, c]) expect(s).toBeLessThanOrEqual(0x7fffffff);
  });

  it('builds the request body: endpoint defaults under the request, extra fields as given, seed per request', () => {
    const ep = { model: 'Qwen/Qwen3-8B', sampling: { temperature: 1, top_k: 50, max_tokens: 100 }, extraBody: { repetition_penalty: 1.05, chat_template_kwargs: { enable_thinking: true } } };
    const body = requestBody(ep, { ...base, sampling: { temperature: 0.6, top_k: 20, seed: 3 }, extraBody: { chat_template_kwargs: { enable_thinking: false } } }, 4096) as unknown as Record<string, unknown>;
    expect(body).toMatchObject({ model: 'Qwen/Qwen3-8B', temperature: 0.6, top_k: 20, max_tokens: 100, repetition_penalty: 1.05, chat_template_kwargs: { enable_thinking: false } });
    expect(body.seed).toBe(requestSeed({ ...base, sampling: { seed: 3 } }));
    // A caller's own limit beats sampling.max_tokens.
    expect((requestBody(ep, { ...base, maxTokens: 9 }) as { max_tokens?: number }).max_tokens).toBe(9);
    // Nothing set: nothing sent but the seed derived from the seed key (as before).
    const plain = requestBody({ model: 'm' }, base) as unknown as Record<string, unknown>;
    expect(Object.keys(plain).sort()).toEqual(['messages', 'model', 'seed']);
  });

  it('keys the journal on everything sent, and keeps the old key for a request with no sampling or extras', () => {
    const old = createHash('sha256').update(JSON.stringify({
      messages: [['user', 'What is 2+2?']], stage: 'solve', maxTokens: null, temperature: null, agentId: 'a1', taskId: 't1', seedKey: 't1/a1/solve/0',
    })).digest('hex');
    expect(requestKey(base)).toBe(old);
    const keys = [
      requestKey({ ...base, sampling: { temperature: 0.6 } }), requestKey({ ...base, sampling: { top_k: 20 } }),
      requestKey({ ...base, sampling: { seed: 1 } }), requestKey({ ...base, extraBody: { chat_template_kwargs: { enable_thinking: false } } }),
      requestKey({ ...base, extraBody: { chat_template_kwargs: { enable_thinking: true } } }),
    ];
    expect(new Set([old, ...keys]).size).toBe(6);
    // Key order in a file does not change the key.
    expect(requestKey({ ...base, extraBody: { a: 1, b: { c: 2, d: 3 } } })).toBe(requestKey({ ...base, extraBody: { b: { d: 3, c: 2 }, a: 1 } }));
  });
});

describe('sampling in a scenario', () => {
  it('accepts the paper setup on either backend, with endpoint and stage settings', () => {
    const s = withOverrides(quick(), { model: { backend: 'sim', sampling: { temperature: 0.6, top_p: 0.95, top_k: 20, min_p: 0, max_tokens: 2048 }, stages: { reflect: { sampling: { temperature: 0.3 } } } } } as never);
    expect(s.scenario.model.sampling).toMatchObject({ temperature: 0.6, top_k: 20 });
    const o = parseScenario({ ...quick().scenario, model: { backend: 'openai', endpoints: [{ baseURL: 'http://127.0.0.1:8000/v1', model: 'Qwen/Qwen3-8B', sampling: { temperature: 0.7 }, extraBody: { chat_template_kwargs: { enable_thinking: false } } }], sampling: { top_k: 20 } } });
    expect(o.scenario.model.backend === 'openai' && o.scenario.model.endpoints[0]!.extraBody).toEqual({ chat_template_kwargs: { enable_thinking: false } });
    const paper = loadScenario(path.resolve('scenarios/paper-qwen3-8b-vllm.json')).scenario.model;
    expect(paper).toMatchObject({ backend: 'openai', sampling: { temperature: 0.7, top_k: 20 }, extraBody: { chat_template_kwargs: { enable_thinking: false } } });
  });

  it('rejects bad values in one message naming the field', () => {
    const bad = (model: Record<string, unknown>) => () => parseScenario({ ...quick().scenario, model: { backend: 'sim', ...model } }, 'x.json');
    expect(bad({ sampling: { temperature: -1 } })).toThrow(/x\.json: model\.sampling\.temperature: .*>=0/);
    expect(bad({ sampling: { top_p: 2 } })).toThrow(/model\.sampling\.top_p: .*<=1/);
    expect(bad({ extraBody: 'enable_thinking' })).toThrow(/model\.extraBody: expected an object of request fields/);
    expect(bad({ stages: { judge: { sampling: { temperature: 0 } } } })).toThrow(/model\.stages\.judge: unknown stage "judge" \(stages: solve, critic, reflect, codream, leader, lifecycle, staleness, meta\)/);
    expect(bad({ sampling: { temprature: 0 } })).toThrow(/model\.sampling\.temprature: unknown field/);
  });
});

describe('sampling on the command line', () => {
  const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8', timeout: 90_000 });

  it('exits 2 with one line for a bad flag and 1 for a bad scenario, each naming what is wrong', () => {
    for (const [args, want] of [
      [['--temperature=-1'], /--temperature takes a number in \[0, 2\], got "-1"/],
      [['--temperature', '50'], /--temperature takes a number in \[0, 2\], got "50"/],
      [['--top-p', '2'], /--top-p takes a number in \(0, 1\], got "2"/],
      [['--extra-body', '{enable_thinking: false}'], /--extra-body takes a JSON object/],
      [['--sampling', '{"top_p":2}'], /--sampling: top_p: .*<=1/],
    ] as const) {
      const r = cli('run', 'scenarios/quickstart.json', '--tasks', '1', ...args);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(want);
    }
    const dir = mkdtempSync(path.join(tmpdir(), 'evo-sampling-'));
    const file = path.join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ ...quick().scenario, model: { backend: 'sim', stages: { judge: {} } } }));
    const r = cli('run', file, '--tasks', '1', '--out', path.join(dir, 'run'));
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('model.stages.judge: unknown stage "judge"');
  });
});
