// The event catalogue: every event type `events.jsonl` holds, defined once (by level), the typed
// writer's body (`RunEvent`), the one reader (`readRunEvents`), and the published JSON Schema.
export {
  EVENTS_VERSION, EVENT_CATALOGUE, EVENT_LEVELS, CONTROL_EVENTS, isEventType, eventDef, checkEvent, loggedEventSchema, eventsJsonSchema,
  type RunEvent, type RawEvent, type EventType, type EventOf, type EventStamp, type LoggedEvent,
} from './catalogue';
export {
  EVENTS_FILE, readRunEvents, readRunEventsSync, parseEventLine, eventsFileOf,
  type ReadStats, type SkippedLine, type ReadProgress, type ReadEventsOptions, type RunEventStream, type ParsedLine,
} from './read';
export type { EventDef } from './define';
export { eventsMarkdown } from './markdown';
