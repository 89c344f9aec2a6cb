/** What a key-less local server gets as its key (the `openai` client insists on one). */
export const PLACEHOLDER_KEY = 'EMPTY';

/** The key from `env[apiKeyEnv ?? 'OPENAI_API_KEY']`, or the placeholder when unset. */
export function resolveApiKey(env: Readonly<Record<string, string | undefined>>, apiKeyEnv?: string): string {
  const v = env[apiKeyEnv ?? 'OPENAI_API_KEY'];
  return v && v.trim() !== '' ? v.trim() : PLACEHOLDER_KEY;
}

/**
 * Removes every known key from text before it can reach an error message, an event or a log.
 * Hosted APIs echo part of a wrong key in their 401 messages, so a tail of the key is masked too.
 */
export class Redactor {
  private readonly secrets = new Set<string>();

  /** Remember a key (placeholders and very short values are ignored). */
  add(secret: string): void {
    if (secret !== PLACEHOLDER_KEY && secret.length >= 6) this.secrets.add(secret);
  }

  /** The text with every known key (and any 6+ character head or tail of one) replaced by `***`. */
  redact(text: string): string {
    let out = text;
    for (const s of this.secrets) {
      out = out.split(s).join('***');
      for (const piece of [s.slice(0, 8), s.slice(-8), s.slice(-6)]) {
        if (piece.length >= 6) out = out.split(piece).join('***');
      }
    }
    return out;
  }
}

/** A display name for a base URL without credentials, query or fragment: `host/path`. */
export function safeUrlName(baseURL: string): string {
  try {
    const u = new URL(baseURL);
    return `${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return 'endpoint';
  }
}
