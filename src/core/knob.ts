import { z } from 'zod';

/**
 * A setting of the evolution procedure that a meta-editor may change between segments (AEVO), with
 * its bounds. Plain data: a descriptor declares its own knobs (a structure, a lifecycle operator, a
 * chooser), so adding one adds its knobs in its own file; the engine collects them
 * (engine/meta/procedure.ts). `path` is the scenario's dotted path of the setting; `P` narrows it to
 * the paths of a known config (`SettingPath`; the scenario's are `KnobPath`, engine/scenario/knob-path.ts).
 */
export type Knob<P extends string = string> =
  | { readonly kind: 'number' | 'int'; readonly path: P; readonly min: number; readonly max: number; readonly description: string }
  | { readonly kind: 'bool'; readonly path: P; readonly description: string }
  | { readonly kind: 'enum'; readonly path: P; readonly values: readonly string[]; readonly description: string }
  | { readonly kind: 'list'; readonly path: P; readonly values: readonly string[]; readonly minItems: number; readonly description: string }
  | { readonly kind: 'text'; readonly path: P; readonly maxLength: number; readonly description: string };

/** What a knob can set: a number, a switch, a name or text, or a list of names. */
type KnobValue = number | boolean | string | readonly string[];

/**
 * The dotted paths of the settings of a config of type `T` a knob may name: its leaves that are
 * numbers, switches, strings or lists of names, at any depth. A record keyed by free names (a
 * scenario's per-stage table, say) has no fixed paths and gives none.
 */
export type SettingPath<T> = T extends KnobValue
  ? never
  : T extends object
    ? { [K in keyof T & string]-?: string extends K ? never
        : NonNullable<T[K]> extends KnobValue ? K
        : NonNullable<T[K]> extends readonly unknown[] ? never
        : `${K}.${SettingPath<NonNullable<T[K]>>}` }[keyof T & string]
    : never;

/**
 * The zod schema of the values `knob` may take: its type and bounds, with messages that name the
 * knob's path. A procedure document is an object of these (engine/meta/procedure.ts).
 */
export function knobSchema(knob: Knob): z.ZodType {
  const p = knob.path;
  switch (knob.kind) {
    case 'number':
    case 'int': {
      let n = z.number({ error: `${p} must be a number` });
      if (knob.kind === 'int') n = n.int({ error: `${p} must be a whole number` });
      return n.refine((v) => v >= knob.min && v <= knob.max, { error: (i) => `${p} must lie within ${knob.min}..${knob.max}, got ${String(i.input)}` });
    }
    case 'bool':
      return z.boolean({ error: `${p} must be true or false` });
    case 'enum':
      return z.enum(knob.values as [string, ...string[]], { error: `${p} must be one of ${knob.values.join(', ')}` });
    case 'list':
      return z.array(z.string(), { error: `${p} must be a list of names` }).superRefine((v, ctx) => {
        const bad = v.find((x) => !knob.values.includes(x));
        if (bad !== undefined) ctx.addIssue({ code: 'custom', message: `${p}: unknown "${bad}" (choose from ${knob.values.join(', ')})` });
        else if (new Set(v).size !== v.length) ctx.addIssue({ code: 'custom', message: `${p} names one item twice` });
        else if (v.length < knob.minItems) ctx.addIssue({ code: 'custom', message: `${p} needs at least ${knob.minItems} items` });
      });
    case 'text':
      return z.string({ error: `${p} must be text` }).refine((v) => v.length <= knob.maxLength, { error: (i) => `${p} is ${String((i.input as string).length)} characters, at most ${knob.maxLength}` });
  }
}

/** Why `value` is not a value `knob` may take (its schema's first message), or null when it is. */
export function knobViolation(knob: Knob, value: unknown): string | null {
  const r = knobSchema(knob).safeParse(value);
  return r.success ? null : r.error.issues[0]!.message;
}

/** The knob's bounds as one short phrase, for the meta-editor's prompt. */
export function knobBounds(knob: Knob): string {
  switch (knob.kind) {
    case 'number': return `number ${knob.min}..${knob.max}`;
    case 'int': return `whole number ${knob.min}..${knob.max}`;
    case 'bool': return 'true or false';
    case 'enum': return `one of ${knob.values.join(' | ')}`;
    case 'list': return `at least ${knob.minItems} of ${knob.values.join(', ')}`;
    case 'text': return `text, at most ${knob.maxLength} characters`;
  }
}
