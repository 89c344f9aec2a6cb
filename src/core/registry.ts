/**
 * One kind's registry of extensions (structures, assemblers, choosers, lifecycle operators,
 * staleness policies): the built-in descriptors, then those `register` added, in that order. Every
 * kind is extended the same way — `register<Kind>(descriptor)` once at start-up, for every later
 * run of the process — and what a kind's folder derives from its list (a lookup by name, the
 * presets, the scenario's settings) follows through `onRegister`, so nothing keeps a copy that a
 * registration would leave behind.
 */
export class Registry<T extends { readonly name: string }> {
  private readonly items: T[];
  private readonly listeners: Array<(d: T) => void> = [];

  /** `kind` names the registry in errors ("structure", "staleness policy"). */
  constructor(readonly kind: string, builtins: readonly T[]) {
    this.items = [];
    for (const d of builtins) this.check(d);
    this.items.push(...builtins);
  }

  /**
   * Add `d` after the descriptors there are. Registering the same object again does nothing; another
   * descriptor with a name taken, or a name that is not lower-case letters, digits and dashes, throws.
   */
  register(d: T): void {
    if (this.items.includes(d)) return;
    this.check(d);
    this.items.push(d);
    for (const l of this.listeners) l(d);
  }

  /** Every descriptor, built-ins first, in registration order (a live view: later registrations appear). */
  list(): readonly T[] {
    return this.items;
  }

  /** The descriptor named `name`, or undefined. */
  get(name: string): T | undefined {
    return this.items.find((d) => d.name === name);
  }

  /** Names in registration order. */
  names(): string[] {
    return this.items.map((d) => d.name);
  }

  /** Call `f` for each descriptor registered from now on (what a folder derives from the list follows it). */
  onRegister(f: (d: T) => void): void {
    this.listeners.push(f);
  }

  private check(d: T): void {
    if (!/^[a-z][a-z0-9-]*$/.test(d.name)) throw new Error(`${this.kind} name "${d.name}" must be lower-case letters, digits and dashes`);
    if (this.items.some((x) => x.name === d.name)) throw new Error(`two ${this.kind}s are named "${d.name}"`);
  }
}
