import { describe, expect, it } from 'vitest';
import { createUseLiteEmbedder, USE_LITE_LOADING } from '../../src/llm/use-lite-embedder';

describe('use-lite', () => {
  it('says once per process that its model is loading, and embeds the texts asked for in one turn in one pass', async () => {
    const said: string[] = [];
    const passes: number[] = [];
    const e = createUseLiteEmbedder({ onLoading: (l) => said.push(l), onPass: (n) => passes.push(n) });
    // Three members reflecting side by side, each embedding its lesson and meta-insight: one pass of six texts.
    const out = await Promise.all([0, 1, 2].map((i) => e.embed([`lesson ${i}: check the units`, `meta ${i}: compare with an estimate`])));
    expect(passes).toEqual([6]);
    expect(out.map((v) => v.length)).toEqual([2, 2, 2]);
    expect(out.flat().every((v) => v.length === 512)).toBe(true);
    // Texts already embedded cost no pass; a text with no word character needs none.
    await e.embed(['lesson 0: check the units', '?!']);
    expect(passes).toEqual([6]);
    // A second embedder in this process shares the loaded model: nothing more is said.
    await createUseLiteEmbedder({ onLoading: (l) => said.push(l) }).embed(['a new text']);
    expect(said).toEqual([USE_LITE_LOADING]);
  }, 60_000);

  it('gives a text the same vector whether it was batched with others or not', async () => {
    const batched = createUseLiteEmbedder();
    const [[a], [b]] = await Promise.all([batched.embed(['Solve 3x + 4 = 16.']), batched.embed(['Name the capital of France.'])]);
    const [alone] = await createUseLiteEmbedder().embed(['Solve 3x + 4 = 16.']);
    a!.forEach((x, i) => expect(x).toBeCloseTo(alone![i]!, 6));
    expect(b!.length).toBe(512);
  }, 60_000);
});
