import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, parseScenario } from '../../../src/index';
import { modelFlagsPatch, type ModelFlags } from '../../../src/cli/model-flags';
import { applyScenarioPatch } from '../../../src/engine/scenario/apply-patch';
import type { LoadedScenario } from '../../../src/engine/scenario/scenario';

const applyModelFlags = async (l: LoadedScenario, f: ModelFlags) => applyScenarioPatch(l, await modelFlagsPatch(l, f));
import { OpenAIPoolModel } from '../../../src/llm/openai/openai-pool-model';
import { ServedSideChannelModel, SIDE_CHANNEL_FIELD } from '../../../src/sim/served-side-channel';
import { SimSideChannel } from '../../../src/sim/side-channel';
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

describe('the simulator\'s side channel over HTTP', () => {
  const spec = { id: 'n', domain: 'math', title: 'N', description: 'd', keywords: [], difficulties: [1], answerFormat: 'f' } as NicheSpec;
  const task = (i: number) => ({ id: `n-${i}`, index: i, niche: 'n', domain: 'math', difficulty: 1, block: 0, question: 'q', hidden: { answer: `gold-${i}`, distractors: [] } }) as Task;
  const ask = (m: ServedSideChannelModel, taskId?: string) => m.complete({ messages: [{ role: 'user', content: 'q' }], stage: 'solve', ...(taskId ? { taskId } : {}) });

  it('carries a task in flight in its own requests, to a loopback endpoint, and nothing once the task ended', async () => {
    const { fetch, calls } = fakeFetch(() => chat('ok'));
    const channel = new SimSideChannel();
    const m = new ServedSideChannelModel(new OpenAIPoolModel({ endpoints: [{ baseURL: 'http://127.0.0.1:9/v1', model: 'sim' }] }, { fetch, env: {} }), channel);
    channel.taskStarted(task(0), spec);
    channel.taskStarted(task(1), spec);
    await ask(m, 'n-1');
    await ask(m);
    channel.taskEnded('n-1');
    await ask(m, 'n-1');
    const sent = calls.map((c) => (c.body as Record<string, { task?: Task }> | undefined)?.[SIDE_CHANNEL_FIELD]?.task?.hidden.answer ?? null);
    expect(sent).toEqual(['gold-1', null, null]);
    // Only the chat endpoint is ever called: no registration round trip, no probe of /models.
    expect(calls.every((c) => c.path === '/v1/chat/completions')).toBe(true);
  });

  it('refuses an endpoint off loopback, when built and when one is added later', async () => {
    const { fetch, calls } = fakeFetch(() => chat('ok'));
    expect(() => new ServedSideChannelModel(new OpenAIPoolModel({ endpoints: [{ baseURL: 'http://10.1.2.3:8000/v1', model: 'sim' }] }, { fetch, env: {} }), new SimSideChannel()))
      .toThrow(/not on loopback/);
    const pool = new OpenAIPoolModel({ endpoints: [{ baseURL: 'http://localhost:9/v1', model: 'sim' }] }, { fetch, env: {} });
    const channel = new SimSideChannel();
    const m = new ServedSideChannelModel(pool, channel);
    channel.taskStarted(task(0), spec);
    pool.addEndpoint({ baseURL: 'https://gpu.example.com/v1', model: 'sim' });
    await expect(ask(m, 'n-0')).rejects.toThrow(/https:\/\/gpu\.example\.com is not on loopback/);
    expect(JSON.stringify(calls)).not.toContain('gold-');
  });

  it('is refused in a scenario whose endpoints are not all on loopback, naming the field', () => {
    expect(() => withModel({ backend: 'openai', endpoints: [{ baseURL: 'http://127.0.0.1:1/v1', model: 'q' }, { baseURL: 'http://gpu:1/v1', model: 'q' }], simSideChannel: true }))
      .toThrow(/x\.json: model\.simSideChannel: .*endpoints\[1\] is not on loopback/);
    expect(withModel({ backend: 'openai', endpoints: [{ baseURL: 'http://[::1]:1/v1', model: 'q' }], simSideChannel: true }).scenario.model).toMatchObject({ simSideChannel: true });
  });
});
