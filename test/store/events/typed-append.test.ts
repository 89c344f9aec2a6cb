import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventLog } from '../../../src/store/event-log';
import { readRunEventsSync, type RunEvent } from '../../../src/store/events';

describe('EventLog.append takes only catalogue events', () => {
  it('writes a catalogue event as given, stamped; the compiler rejects an unknown type or a wrong field (tsc checks the @ts-expect-error lines)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'evo-typed-append-'));
    const log = new EventLog(path.join(dir, 'events.jsonl'), { fsync: false });
    const ok: RunEvent = { type: 'run.failed', error: 'boom' };
    log.append(ok);
    const refused = (): void => {
      // @ts-expect-error: not an event type of the catalogue
      log.append({ type: 'run.exploded', error: 'boom' });
      // @ts-expect-error: a field run.failed does not have
      log.append({ type: 'run.failed', error: 'boom', surprise: 1 });
      // @ts-expect-error: a field of the wrong type
      log.append({ type: 'task.failed', taskId: 't', niche: 'n', stage: 'solve', error: 42 });
      // @ts-expect-error: a required field missing
      log.append({ type: 'lifecycle.usage', window: 1 });
    };
    void refused;
    log.close();
    expect(readFileSync(path.join(dir, 'events.jsonl'), 'utf8')).toMatch(/^\{"id":"[0-9a-z]{12}","seq":0,"type":"run.failed","error":"boom"\}\n$/);
    const [e] = readRunEventsSync(dir, { types: ['run.failed'] });
    expect(e?.error).toBe('boom');
  });
});
