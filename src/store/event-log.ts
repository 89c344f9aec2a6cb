import { closeSync, openSync, writeSync } from 'node:fs';
import { customAlphabet } from 'nanoid';

const eventId = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 12);

/** Fields every event carries. */
export interface EventBase {
  /** Unique id (nanoid). */
  readonly id: string;
  /** Position in the log, from 0. */
  readonly seq: number;
  readonly type: string;
}

/** An event as emitted, before the log stamps id and seq. */
export type EventBody = { readonly type: string } & Record<string, unknown>;

/**
 * The append-only `events.jsonl`. Events are written in commit order, one JSON object per line;
 * `flush` writes what is buffered. The log is the run: reports and metrics are built from it.
 */
export class EventLog {
  private fd: number | null;
  private seq = 0;
  private buffer: string[] = [];

  constructor(readonly file: string) {
    this.fd = openSync(file, 'a');
  }

  /** Stamp and buffer one event; returns it as written. */
  append(body: EventBody): EventBase & Record<string, unknown> {
    const event = { id: eventId(), seq: this.seq++, ...body };
    this.buffer.push(JSON.stringify(event));
    if (this.buffer.length >= 512) this.flush();
    return event;
  }

  /** Write buffered events to disk. */
  flush(): void {
    if (this.fd === null || this.buffer.length === 0) return;
    writeSync(this.fd, `${this.buffer.join('\n')}\n`);
    this.buffer = [];
  }

  /** Flush and close. Idempotent. */
  close(): void {
    this.flush();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
