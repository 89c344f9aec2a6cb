import { closeSync, existsSync, fsyncSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { customAlphabet } from 'nanoid';
import type { Clock } from '../core/clock';
import { CONTROL_EVENTS, parseEventLine, type EventOf, type LoggedEvent, type RunEvent } from './events';

const eventId = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 12);

/** A resumed run emitted an event that differs from the one its log holds at that place. */
export class LogDivergenceError extends Error {
  constructor(readonly seq: number, expected: string, got: string) {
    // Show where the two differ, not only how they begin (long events share a long prefix).
    let at = 0;
    while (at < expected.length && at < got.length && expected[at] === got[at]) at++;
    const from = Math.max(0, at - 120);
    const show = (t: string) => `${from > 0 ? '…' : ''}${t.slice(from, at + 160)}${t.length > at + 160 ? '…' : ''}`;
    super(`resume: the re-executed run diverges from events.jsonl at seq ${seq} (${expected.slice(0, 60)}…): the log has ${show(expected)}, the run now gives ${show(got)}`);
    this.name = 'LogDivergenceError';
  }
}

/** Options of an event log. */
export interface EventLogOptions {
  /** fsync at every commit, so a committed group survives a power loss, not only a killed process (default true). */
  readonly fsync?: boolean;
  /**
   * Resume: the file already holds a run's events. Appended events are checked against them
   * instead of written, until the re-executed run goes past the end; then `resumed` is written
   * as a `run.resumed` event and appending goes on.
   */
  readonly resume?: { readonly resumed: Omit<EventOf<'run.resumed'>, 'type'> };
  /** Stamps each event's `time` (reports read a run's wall time from it); none: no `time` field. */
  readonly clock?: Clock;
  /** Applied to every line before it is written (the backend's keys removed), whatever the text came from. */
  readonly redact?: (line: string) => string;
  /**
   * The event types written to the file (every one when unset); the others still reach subscribers
   * and still take their `seq`, so a kept line is the line a full log has. Run events (`run.*`) are
   * always written. A log written this way cannot be resumed: a resume needs every event.
   */
  readonly write?: ReadonlySet<string>;
}

interface PriorLine {
  readonly event: LoggedEvent;
  readonly offset: number;
}

/**
 * The append-only `events.jsonl`. Events are written in commit order, one JSON object per line.
 * Contract: `append` buffers; `commit` writes the buffered group in one write and (by default)
 * fsyncs it, so each committed task's events are durable before the next commit starts — a
 * killed run loses at most the group it was writing, which `resume` detects and rewrites.
 * The log is the run: reports, metrics and resume are built from it.
 */
export class EventLog {
  private fd: number | null;
  private seq = 0;
  private buffer: LoggedEvent[] = [];
  private readonly fsync: boolean;
  private readonly clock: Clock | undefined;
  private readonly redact: (line: string) => string;
  private readonly write: ReadonlySet<string> | undefined;
  /** Resume state: prior (non-control) events still to match, and where the file's whole lines end. */
  private prior: PriorLine[] = [];
  private priorAll: PriorLine[] = [];
  private next = 0;
  private replaying = false;
  private resumedBody: Omit<EventOf<'run.resumed'>, 'type'> | undefined;
  private truncateTo: number | undefined;
  /** Offset of the first prior line matched by the current (uncommitted) group. */
  private groupStart: number | undefined;
  private priorEnd = 0;
  private priorTasks = 0;
  /** The procedure version every event is stamped with (meta-editing runs only). */
  private procedure: number | undefined;
  private readonly listeners: Array<(e: LoggedEvent) => void> = [];

  constructor(readonly file: string, opts: EventLogOptions = {}) {
    this.fsync = opts.fsync ?? true;
    this.clock = opts.clock;
    this.redact = opts.redact ?? ((line) => line);
    this.write = opts.write;
    if (opts.resume && opts.write) throw new Error(`${file}: a log that keeps only some event types cannot be resumed`);
    if (opts.resume && existsSync(file)) this.loadPrior(opts.resume.resumed);
    this.fd = openSync(file, 'a');
    // Bytes after the last newline are a group cut by a kill: never valid, dropped at once.
    if (this.replaying) ftruncateSync(this.fd, this.priorEnd);
  }

  /** Tasks the prior log holds committed (its `task.done` events; resume), or 0 for a fresh run. */
  get priorCommitted(): number {
    return this.priorTasks;
  }

  /** Events of the prior run matched so far (resume), or 0. */
  get replayed(): number {
    return this.next;
  }

  /** True while a resumed run is still re-executing the part its log already holds. */
  get isReplaying(): boolean {
    return this.replaying && this.next < this.prior.length;
  }

  /** A resumed run's logged events (control events included), in log order; empty for a fresh run. */
  priorEvents(): readonly LoggedEvent[] {
    return this.priorAll.map((p) => p.event);
  }

  /** While a resumed run re-executes its logged part: the type of the next event the log holds (undefined otherwise). */
  get nextReplayType(): string | undefined {
    return this.isReplaying ? this.prior[this.next]!.event.type : undefined;
  }

  /**
   * Stamp and buffer one event (a catalogue type: src/store/events/); returns it as it will be
   * written. Throws LogDivergenceError on a resumed run that diverges.
   */
  append(body: RunEvent): LoggedEvent {
    if (this.replaying && this.next < this.prior.length) {
      const p = this.prior[this.next]!;
      const { id, seq, time, procedure, ...rest } = p.event;
      const want = JSON.stringify(rest);
      const got = this.redact(JSON.stringify(body));
      if (want !== got) throw new LogDivergenceError(seq, want, got);
      if (procedure !== this.procedure) throw new LogDivergenceError(seq, `procedure version ${String(procedure)}`, `procedure version ${String(this.procedure)}`);
      this.next++;
      this.groupStart ??= p.offset;
      const event = { id, seq, ...(time === undefined ? {} : { time }), ...(procedure === undefined ? {} : { procedure }), ...body } as LoggedEvent;
      this.buffer.push(event);
      this.tell(event);
      return event;
    }
    if (this.replaying) this.leaveReplay();
    const event = { id: eventId(), seq: this.seq++, ...this.stamp(), ...body } as LoggedEvent;
    this.buffer.push(event);
    this.tell(event);
    return event;
  }

  /**
   * Stamp every later event with the procedure version `v` (`procedure`, beside `time`): a
   * meta-editing run says under which procedure each event happened. Never called otherwise.
   */
  stampProcedure(v: number): void {
    this.procedure = v;
  }

  /** Be told every event appended (a resumed run's re-executed ones too), in log order. */
  subscribe(f: (e: LoggedEvent) => void): void {
    this.listeners.push(f);
  }

  private tell(e: LoggedEvent): void {
    for (const f of this.listeners) f(e);
  }

  /**
   * Make the buffered group durable: one write, then fsync. A group that only re-matched a
   * resumed run's log writes nothing.
   */
  commit(): void {
    if (this.fd === null) return;
    const fresh = this.truncateTo !== undefined || !this.replaying;
    if (this.buffer.length === 0 || !fresh) {
      this.buffer = [];
      this.groupStart = undefined;
      return;
    }
    if (this.truncateTo !== undefined) {
      ftruncateSync(this.fd, this.truncateTo);
      this.truncateTo = undefined;
    }
    const kept = this.write ? this.buffer.filter((e) => this.write!.has(e.type) || e.type.startsWith('run.')) : this.buffer;
    if (kept.length > 0) {
      writeSync(this.fd, `${kept.map((e) => this.redact(JSON.stringify(e))).join('\n')}\n`);
      if (this.fsync) fsyncSync(this.fd);
    }
    this.buffer = [];
    this.groupStart = undefined;
  }

  /**
   * Write one control event (`run.interrupted`, `run.failed`) at once, after everything durable,
   * dropping any uncommitted group: those tasks were not committed and a resume re-runs them.
   */
  appendControl(body: RunEvent): void {
    if (this.fd === null) return;
    this.buffer = [];
    this.groupStart = undefined;
    if (this.truncateTo !== undefined) {
      ftruncateSync(this.fd, this.truncateTo);
      this.truncateTo = undefined;
    }
    if (this.replaying) this.seq = this.lastSeqBefore(Number.POSITIVE_INFINITY) + 1;
    const event = { id: eventId(), seq: this.seq++, ...this.stamp(), ...body };
    writeSync(this.fd, `${this.redact(JSON.stringify(event))}\n`);
    if (this.fsync) fsyncSync(this.fd);
    // What the file holds now is final; a later append continues after it.
    this.replaying = false;
  }

  /** Commit and close. Idempotent. */
  close(): void {
    this.commit();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private loadPrior(resumed: Omit<EventOf<'run.resumed'>, 'type'>): void {
    const buf = readFileSync(this.file);
    let offset = 0;
    while (offset < buf.length) {
      const nl = buf.indexOf(10, offset);
      if (nl < 0) break;
      const line = buf.subarray(offset, nl).toString('utf8');
      // The catalogue's line parser; a garbled line ends the durable part. An unknown type is kept:
      // the re-executed run must match the log as it is.
      const parsed = parseEventLine(line);
      if ('bad' in parsed) break;
      const event = parsed.event;
      const p = { event, offset };
      this.priorAll.push(p);
      if (!CONTROL_EVENTS.has(event.type)) this.prior.push(p);
      if (event.type === 'task.done') this.priorTasks++;
      offset = nl + 1;
    }
    this.priorEnd = offset;
    this.replaying = true;
    this.resumedBody = resumed;
  }

  /** The re-executed run went past the prior log: cut the partial group, mark the resume, renumber. */
  private leaveReplay(): void {
    const cut = this.groupStart ?? this.priorEnd;
    this.truncateTo = cut;
    this.seq = this.lastSeqBefore(cut) + 1;
    const group = this.buffer;
    const marker = { id: eventId(), seq: this.seq++, ...this.stamp(), type: 'run.resumed', ...this.resumedBody } as LoggedEvent;
    this.buffer = [marker, ...group.map((e) => ({ ...e, seq: this.seq++ }) as LoggedEvent)];
    this.replaying = false;
  }

  private stamp(): { time?: string; procedure?: number } {
    return { ...(this.clock ? { time: this.clock.isoNow() } : {}), ...(this.procedure !== undefined ? { procedure: this.procedure } : {}) };
  }

  private lastSeqBefore(offset: number): number {
    let last = -1;
    for (const p of this.priorAll) if (p.offset < offset) last = Math.max(last, p.event.seq);
    return last;
  }
}
