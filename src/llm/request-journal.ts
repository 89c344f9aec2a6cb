import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { CompletionAbortedError, isCompletionAborted, type Completion, type CompletionRequest, type LanguageModel } from './model';

/** The file a run's request journal lives in, inside the run directory. */
export const JOURNAL_FILE = 'journal.jsonl';

/**
 * The content address of a completion request: sha256 over everything it carries (messages,
 * stage, limits, sampling fields, extra body fields, agent, task and seed key), so two calls share an address only when they are the
 * same call.
 */
export function requestKey(req: CompletionRequest): string {
  const { temperature, ...sampling } = req.sampling ?? {};
  const full = {
    messages: req.messages.map((m) => [m.role, m.content]), stage: req.stage, maxTokens: req.maxTokens ?? null,
    temperature: temperature ?? null, agentId: req.agentId ?? null, taskId: req.taskId ?? null, seedKey: req.seedKey ?? null,
    // Added only when set, so a request without them keeps the key older journals hold.
    ...(Object.keys(sampling).length > 0 ? { sampling: sortKeys(sampling) } : {}),
    ...(req.extraBody && Object.keys(req.extraBody).length > 0 ? { extraBody: sortKeys(req.extraBody) } : {}),
  };
  return createHash('sha256').update(JSON.stringify(full)).digest('hex');
}

/** A JSON value with object keys in sorted order at every depth (the key must not depend on how a file orders them). */
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]));
}

function embedKey(texts: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(['embed', texts])).digest('hex');
}

/** A request the caller cancelled: its tokens saved and generated, as the backend reported them. */
interface AbortRecord {
  readonly saved: number | null;
  readonly generated: number | null;
  /** The saving is the backend's estimate (HTTP). */
  readonly estimated?: boolean;
}

type JournalLine = { k: string; c: Completion } | { k: string; e: string[] } | { k: string; a: AbortRecord };

/** A request the replay source does not hold. */
export interface MissingCall {
  readonly key: string;
  readonly what: string;
}

/** Options of a journaled model. */
export interface JournalOptions {
  /** Journal file answers are read from (resume: the run's own; replay: another run's). */
  readonly source?: string;
  /** Journal file new answers are appended to; none: nothing is written. */
  readonly target?: string;
  /** Replay: a call the source lacks is an error naming it, and the inner model is never asked. */
  readonly strict?: boolean;
  /** Journal embeddings too (only worth it when they cost: a remote embeddings endpoint). */
  readonly embeddings?: boolean;
  /** Also append answers served from the source to the target (replay: the new run holds its own journal). */
  readonly copyServed?: boolean;
  /** fsync on `sync()` (default true). */
  readonly fsync?: boolean;
  /** Called for each call the strict source lacks (before the call rejects). */
  readonly onMissing?: (m: MissingCall) => void;
  /** Applied to every line before it is written (the backend's keys removed). */
  readonly redact?: (line: string) => string;
}

/** A call was not in the replay journal. */
export class JournalMissError extends Error {
  constructor(readonly missing: MissingCall) {
    super(`not in the replay journal: ${missing.what} (request ${missing.key.slice(0, 12)})`);
    this.name = 'JournalMissError';
  }
}

const describe = (req: CompletionRequest) =>
  [req.taskId && `task ${req.taskId}`, `stage ${req.stage}`, req.agentId && `agent ${req.agentId}`, req.seedKey && `seed key ${req.seedKey}`].filter(Boolean).join(', ');

/**
 * The request journal: a wrapper that stores every answered call content-addressed (append-only
 * `journal.jsonl`) and answers calls already in a source journal without asking the model, so a
 * resumed run pays for no finished call twice and `run --replay` re-runs offline.
 * Identical requests are told apart by their order of occurrence (the n-th asks get the n-th answer).
 * A cancelled request (CompletionAbortedError) is never journaled as an answer; its line records
 * the abort instead, so a resumed or replayed run re-executing the call gets the same
 * CompletionAbortedError at once, decides as the first run did, and pays for no call.
 * Contract: answers are returned exactly as journaled; `sync()` makes appended answers durable.
 */
export class JournaledModel implements LanguageModel {
  readonly name: string;
  private readonly answers = new Map<string, Array<Completion | AbortRecord>>();
  private readonly vectors = new Map<string, Float32Array[][]>();
  private readonly seen = new Map<string, number>();
  private fd: number | null = null;
  private dirty = false;
  /** Calls answered from the source, and calls passed to the model. */
  served = 0;
  asked = 0;

  constructor(private readonly inner: LanguageModel, private readonly o: JournalOptions = {}) {
    this.name = inner.name;
    if (o.source && existsSync(o.source)) this.load(o.source);
    if (o.target) {
      this.fd = openSync(o.target, 'a');
      // A line cut short by a kill would swallow the next answer: cut it off first.
      const size = fstatSync(this.fd).size;
      if (size > 0) {
        const text = readFileSync(o.target);
        const end = text.lastIndexOf(10) + 1;
        if (end !== size) ftruncateSync(this.fd, end);
      }
    }
  }

  /** Whether calls are looked up at all (a source journal with answers, or strict replay); else only counted, never remembered. */
  private get reads(): boolean {
    return this.o.strict === true || this.answers.size > 0 || this.vectors.size > 0;
  }

  async complete(req: CompletionRequest): Promise<Completion> {
    // No journal to write and none to answer from: no hash, and no per-request memory kept.
    if (this.fd === null && !this.reads) {
      this.asked++;
      return this.inner.complete(req);
    }
    const key = requestKey(req);
    let n = 0;
    if (this.reads) {
      n = this.seen.get(key) ?? 0;
      this.seen.set(key, n + 1);
    }
    const known = this.reads ? this.answers.get(key)?.[n] : undefined;
    if (known) {
      this.served++;
      if ('saved' in known) {
        if (this.o.copyServed) this.write({ k: key, a: known });
        throw new CompletionAbortedError(known.saved, known.generated, known.estimated === true);
      }
      if (this.o.copyServed) this.write({ k: key, c: known });
      return known;
    }
    if (this.o.strict) {
      const missing = { key, what: describe(req) };
      this.o.onMissing?.(missing);
      throw new JournalMissError(missing);
    }
    this.asked++;
    let out: Completion;
    try {
      out = await this.inner.complete(req);
    } catch (err) {
      if (isCompletionAborted(err)) this.write({ k: key, a: { saved: err.tokensSaved, generated: err.tokensGenerated, ...(err.estimated ? { estimated: true } : {}) } });
      throw err;
    }
    this.write({ k: key, c: out });
    return out;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (!this.o.embeddings || (this.fd === null && !this.reads)) return this.inner.embed(texts);
    const key = embedKey(texts);
    let n = 0;
    if (this.reads) {
      n = this.seen.get(key) ?? 0;
      this.seen.set(key, n + 1);
    }
    const known = this.reads ? this.vectors.get(key)?.[n] : undefined;
    if (known) {
      if (this.o.copyServed) this.write({ k: key, e: known.map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')) });
      return known;
    }
    if (this.o.strict) {
      const missing = { key, what: `embeddings of ${texts.length} text${texts.length === 1 ? '' : 's'}` };
      this.o.onMissing?.(missing);
      throw new JournalMissError(missing);
    }
    const out = await this.inner.embed(texts);
    this.write({ k: key, e: out.map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')) });
    return out;
  }

  /** fsync what was appended since the last sync (the engine calls it at each commit). */
  sync(): void {
    if (this.fd !== null && this.dirty && this.o.fsync !== false) fsyncSync(this.fd);
    this.dirty = false;
  }

  /** Sync and close the target. Idempotent. */
  close(): void {
    this.sync();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private write(line: JournalLine): void {
    if (this.fd === null) return;
    // One write per answer, as soon as it arrives: a killed run keeps every answer it received.
    const text = JSON.stringify(line);
    writeSync(this.fd, `${this.o.redact ? this.o.redact(text) : text}\n`);
    this.dirty = true;
  }

  private load(file: string): void {
    const text = readFileSync(file, 'utf8');
    for (const raw of text.split('\n')) {
      if (!raw) continue;
      let line: JournalLine;
      try {
        line = JSON.parse(raw) as JournalLine;
      } catch {
        continue; // the last line of a killed run may be cut short
      }
      if ('c' in line) push(this.answers, line.k, line.c);
      else if ('a' in line) push(this.answers, line.k, line.a);
      else if ('e' in line) push(this.vectors, line.k, line.e.map((b) => { const buf = Buffer.from(b, 'base64'); return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)); }));
    }
  }
}

function push<T>(m: Map<string, T[]>, k: string, v: T): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}
