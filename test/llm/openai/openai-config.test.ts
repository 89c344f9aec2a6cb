import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, parseScenario } from '../../../src/index';
import { applyModelFlags } from '../../../src/cli/model-flags';
import { OpenAIPoolModel } from '../../../src/llm/openai/openai-pool-model';
import { RemoteSideChannel } from '../../../src/llm/sim/remote-side-channel';
import type { NicheSpec, Task } from '../../../src/index';
import { chat, fakeFetch, json } from './fake-fetch';

const quick = () => loadScenario(path.resolve('scenarios/quickstart.json'));
const withModel = (model: unknown) => parseScenario({ ...quick().scenario, model }, 'x.json');

describe('scenario model section', () => {
  it('defaults to the simulator and validates the openai backend with defaults', () => {
    expect(quick().scenario.model).toEqual({ backend: 'sim' });
    const m = withModel({ backend: 'openai', endpoints: [{ baseURL: 'http://h:1/v1', model: 'q' }] }).scenario.model;
    expect(m).toMatchObject({ backend: 'openai', timeoutMs: 120_000, retries: 4, stream: false, endpoints: [{ maxConcurrency: 32 }] });
  });

  it('rejects keys in the file, unknown fields and bindings to nothing, naming the field', () => {
    expect(() => withModel({ backend: 'openai', endpoints: [{ baseURL: 'http://h:1/v1', model: 'q', apiKey: 'sk-x' }] }))
      .toThrow(/model\.endpoints\[0\]\.apiKey: API keys never go in a scenario file/);
    expect(() => withModel({ backend: 'openai', endpoints: [{ baseURL: 'http://h:1/v1', model: 'q' }], retry: 3 })).toThrow(/model\.retry: unknown field/);
    expect(() => withModel({ backend: 'sim', endpoints: [] })).toThrow(/model\.endpoints: unknown field/);
    expect(() => withModel({ backend: 'openai', endpoints: [{ baseURL: 'http://h:1/v1', model: 'q' }], bindings: { 'agent-01': 'big' } }))
      .toThrow(/model\.bindings\.agent-01: no endpoint has group or model "big"/);
    expect(() => withModel({ backend: 'openai', endpoints: [{ baseURL: 'ftp://h/v1', model: 'q' }] })).toThrow(/model\.endpoints\[0\]\.baseURL/);
  });

  it('builds the backend from CLI flags (several --base-url = several endpoints)', async () => {
    const s = await applyModelFlags(quick(), {
      backend: 'openai', 'base-url': ['http://a:1/v1', 'http://b:1/v1'], model: 'q', 'api-key-env': 'MY_KEY', 'max-concurrency': '3', 'no-sim-side-channel': true,
    });
    expect(s.scenario.model).toMatchObject({
      backend: 'openai', simSideChannel: false,
      endpoints: [{ baseURL: 'http://a:1/v1', model: 'q', apiKeyEnv: 'MY_KEY', maxConcurrency: 3 }, { baseURL: 'http://b:1/v1', model: 'q', maxConcurrency: 3 }],
    });
    expect((await applyModelFlags(s, { backend: 'sim' })).scenario.model).toEqual({ backend: 'sim' });
    await expect(applyModelFlags(quick(), { backend: 'openai' })).rejects.toThrow(/needs --base-url/);
  });
});

describe('remote side channel', () => {
  const spec = { id: 'n', domain: 'math', title: 'N', description: 'd', keywords: [], difficulties: [1], answerFormat: 'f' } as NicheSpec;
  const task = (i: number) => ({ id: `n-${i}`, index: i, niche: 'n', domain: 'math', difficulty: 1, block: 0, question: 'q', hidden: { answer: `gold-${i}`, distractors: [] } }) as Task;

  it('registers before the first request, batches a tick of registrations, and unregisters when done', async () => {
    const { fetch, calls } = fakeFetch((c) => {
      if (c.path.endsWith('/models')) return json(200, { object: 'list', data: [{ id: 'sim', object: 'model', created: 0, owned_by: 'evochamber-sim' }] });
      if (c.path.includes('/sim/side-channel')) return json(200, {});
      return chat('ok');
    });
    const side = new RemoteSideChannel('auto');
    const pool = new OpenAIPoolModel({ endpoints: [{ baseURL: 'http://s:1/v1', model: 'sim' }] }, { fetch, env: {}, beforeSend: side.prepare });
    side.register(task(0), spec);
    await pool.complete({ messages: [{ role: 'user', content: 'q' }], stage: 'solve', taskId: 'n-0' });
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['GET /v1/models', 'POST /v1/sim/side-channel', 'POST /v1/chat/completions']);
    side.register(task(1), spec);
    side.register(task(2), spec);
    await pool.complete({ messages: [{ role: 'user', content: 'q' }], stage: 'solve', taskId: 'n-2' });
    const posts = calls.filter((c) => c.method === 'POST' && c.path.endsWith('/sim/side-channel'));
    expect(posts).toHaveLength(2);
    expect((posts[1]!.body!.entries as Array<{ task: Task }>).map((e) => e.task.hidden.answer)).toEqual(['gold-1', 'gold-2']);
    side.unregister('n-1');
    await side.close();
    expect(calls.at(-1)).toMatchObject({ method: 'DELETE', path: '/v1/sim/side-channel/n-1' });
  });

  it('sends nothing to an endpoint that is not serve-sim', async () => {
    const { fetch, calls } = fakeFetch((c) => (c.path.endsWith('/models') ? json(200, { object: 'list', data: [{ id: 'Qwen/Qwen3-8B', object: 'model', created: 0, owned_by: 'vllm' }] }) : chat('ok')));
    const side = new RemoteSideChannel('auto');
    const pool = new OpenAIPoolModel({ endpoints: [{ baseURL: 'http://real:1/v1', model: 'q' }] }, { fetch, env: {}, beforeSend: side.prepare });
    for (let i = 0; i < 3; i++) {
      side.register(task(i), spec);
      await pool.complete({ messages: [{ role: 'user', content: 'q' }], stage: 'solve', taskId: `n-${i}` });
      side.unregister(`n-${i}`);
    }
    await side.close();
    expect(calls.some((c) => c.path.includes('side-channel'))).toBe(false);
    expect(JSON.stringify(calls)).not.toContain('gold-');
  });
});
