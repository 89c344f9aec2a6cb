import { z } from 'zod';
import type { BodyOf } from './define';
import { ENGINE_EVENTS } from './engine';
import { INDIVIDUAL_EVENTS } from './individual';
import { META_EVENTS } from './meta';
import { POPULATION_EVENTS } from './population';
import { RUN_EVENTS } from './run';
import { TASK_EVENTS } from './task';
import { TEAM_EVENTS } from './team';

/**
 * Version of the event catalogue, written to `run.json` as `eventsVersion`. A log whose run.json
 * has none was written before the catalogue, with the same shapes: version 1. Bump it when an
 * event's shape changes in a way an older reader would misread (a field removed or retyped);
 * adding an event type or an optional field does not need a bump (readers skip what they do not know).
 */
export const EVENTS_VERSION = 1;

/** Every event type the engine writes, grouped by level (run, task, team, individual, population, engine, meta). */
export const EVENT_CATALOGUE = [...RUN_EVENTS, ...TASK_EVENTS, ...TEAM_EVENTS, ...INDIVIDUAL_EVENTS, ...POPULATION_EVENTS, ...ENGINE_EVENTS, ...META_EVENTS] as const;

/** The levels, in catalogue order (the docs' sections). */
export const EVENT_LEVELS = {
  run: RUN_EVENTS, task: TASK_EVENTS, team: TEAM_EVENTS, individual: INDIVIDUAL_EVENTS,
  population: POPULATION_EVENTS, engine: ENGINE_EVENTS, meta: META_EVENTS,
} as const;

type Catalogue = (typeof EVENT_CATALOGUE)[number];

/** An event as a writer appends it: one of the catalogue's bodies (the log stamps the rest). */
export type RunEvent = BodyOf<Catalogue>;

/** The name of an event type. */
export type EventType = RunEvent['type'];

/** The body of one event type. */
export type EventOf<T extends EventType> = Extract<RunEvent, { type: T }>;

/** Fields the log stamps on every event. */
export type EventStamp = {
  /** Unique id (nanoid). */
  readonly id: string;
  /** Position in the log, from 0. */
  readonly seq: number;
  /** Wall-clock ISO time it was appended (when the log has a clock); a resumed run keeps the original's. */
  readonly time?: string;
  /** The procedure version it happened under (meta-editing runs only). */
  readonly procedure?: number;
};

/**
 * An event as a fold takes it before checking its fields: any `type`, any fields. What the reader
 * yields is one; a fold that draws on an event checks it (`checkEvent`) and counts what fails.
 */
export type RawEvent = { readonly type: string; readonly seq?: number; readonly time?: string } & Readonly<Record<string, unknown>>;

/** One event as it is in `events.jsonl`: its body and the log's stamp. */
export type LoggedEvent<T extends EventType = EventType> = T extends EventType ? EventOf<T> & EventStamp : never;

const stampShape = {
  id: z.string(),
  seq: z.number().int().nonnegative(),
  time: z.string().optional(),
  procedure: z.number().int().nonnegative().optional(),
};

const KNOWN: ReadonlySet<string> = new Set(EVENT_CATALOGUE.map((d) => d.type));

/** Whether `type` is one the catalogue defines (a newer EvoChamber's types are not). */
export function isEventType(type: string): type is EventType {
  return KNOWN.has(type);
}

/** The definition of one event type. */
export function eventDef(type: EventType): Catalogue {
  return EVENT_CATALOGUE.find((d) => d.type === type)!;
}

const tolerant = new Map(EVENT_CATALOGUE.map((d) => [d.type as string, z.looseObject(d.body.shape)]));

/**
 * A reader's check of one event of a type it folds: the catalogue's fields, with any extra field
 * allowed (a newer writer's). A report counts an event that fails it as malformed instead of
 * drawing it wrong.
 */
export function checkEvent<T extends EventType>(type: T, raw: unknown): EventOf<T> | null {
  const r = tolerant.get(type)!.safeParse(raw);
  return r.success ? (r.data as unknown as EventOf<T>) : null;
}

/** The zod schema of one logged line of any catalogue type (body and stamp), strict. */
export function loggedEventSchema() {
  const each = EVENT_CATALOGUE.map((d) => d.body.extend(stampShape).meta({ title: d.type, description: d.description }));
  return z.discriminatedUnion('type', each as unknown as [typeof each[number], ...typeof each]);
}

/**
 * The JSON Schema (draft 2020-12) of a line of `events.jsonl`, for notebooks and other tools:
 * `oneOf` the catalogue's event types, each strict (`additionalProperties: false`).
 */
export function eventsJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(loggedEventSchema(), { target: 'draft-2020-12', io: 'output' }) as Record<string, unknown>;
  return {
    ...schema,
    $id: `https://evochamber.dev/schema/events-v${EVENTS_VERSION}.json`,
    title: 'EvoChamber events.jsonl line',
    description: `One line of a run's events.jsonl (events version ${EVENTS_VERSION}). Readers skip event types they do not know.`,
  };
}

/**
 * Events about the process rather than the stream (a stop, a resume, a failure). A resumed run
 * does not re-emit them, so its divergence check skips them.
 */
export const CONTROL_EVENTS: ReadonlySet<EventType> = new Set<EventType>(['run.interrupted', 'run.resumed', 'run.failed', 'run.budget']);
