import { loadOpenAI } from './openai-sdk';
import { notFoundHint } from './base-url-hint';
import { resolveApiKey, safeUrlName } from './secrets';

/**
 * The model ids an endpoint serves (`GET /models`), for picking a default model. Rejects with a
 * message naming the URL (never the key) when the endpoint cannot be reached.
 */
export async function listModelIds(
  baseURL: string, apiKeyEnv?: string, env: Readonly<Record<string, string | undefined>> = process.env, timeoutMs = 5_000,
): Promise<string[]> {
  const { default: OpenAI } = await loadOpenAI();
  const client = new OpenAI({ baseURL, apiKey: resolveApiKey(env, apiKeyEnv), maxRetries: 0, timeout: timeoutMs, logLevel: 'off' });
  try {
    const page = await client.models.list();
    return page.data.map((m) => m.id);
  } catch (err) {
    const status = (err as { status?: number }).status;
    throw new Error(`could not list the models of ${safeUrlName(baseURL)}${status ? ` (HTTP ${status})${status === 404 ? notFoundHint(baseURL) : ''}` : ' (connection failed): is the server running and the address right?'}`);
  }
}
