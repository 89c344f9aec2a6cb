/**
 * A setting of the evolution procedure that a meta-editor may change between segments (AEVO), with
 * its bounds. Plain data: a descriptor declares its own knobs (a structure, a lifecycle operator, a
 * chooser), so adding one adds its knobs in its own file; the engine collects them
 * (engine/meta/procedure.ts). `path` is the scenario's dotted path of the setting.
 */
export type Knob =
  | { readonly kind: 'number' | 'int'; readonly path: string; readonly min: number; readonly max: number; readonly description: string }
  | { readonly kind: 'bool'; readonly path: string; readonly description: string }
  | { readonly kind: 'enum'; readonly path: string; readonly values: readonly string[]; readonly description: string }
  | { readonly kind: 'list'; readonly path: string; readonly values: readonly string[]; readonly minItems: number; readonly description: string }
  | { readonly kind: 'text'; readonly path: string; readonly maxLength: number; readonly description: string };

/** Why `value` is not a value `knob` may take, or null when it is. */
export function knobViolation(knob: Knob, value: unknown): string | null {
  switch (knob.kind) {
    case 'number':
    case 'int':
      if (typeof value !== 'number' || !Number.isFinite(value)) return `${knob.path} must be a number`;
      if (knob.kind === 'int' && !Number.isInteger(value)) return `${knob.path} must be a whole number`;
      if (value < knob.min || value > knob.max) return `${knob.path} must lie within ${knob.min}..${knob.max}, got ${value}`;
      return null;
    case 'bool':
      return typeof value === 'boolean' ? null : `${knob.path} must be true or false`;
    case 'enum':
      return typeof value === 'string' && knob.values.includes(value) ? null : `${knob.path} must be one of ${knob.values.join(', ')}`;
    case 'list': {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return `${knob.path} must be a list of names`;
      const bad = value.find((v) => !knob.values.includes(v as string));
      if (bad !== undefined) return `${knob.path}: unknown "${String(bad)}" (choose from ${knob.values.join(', ')})`;
      if (new Set(value).size !== value.length) return `${knob.path} names one item twice`;
      if (value.length < knob.minItems) return `${knob.path} needs at least ${knob.minItems} items`;
      return null;
    }
    case 'text':
      if (typeof value !== 'string') return `${knob.path} must be text`;
      return value.length <= knob.maxLength ? null : `${knob.path} is ${value.length} characters, at most ${knob.maxLength}`;
  }
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
