import { ConfigError } from './errors.js';

/**
 * An open registry of named implementations of one seam (fetchers, content extractors, acceptors, dedup filters):
 * the built-in ones are registered when the module loads, and a library user adds their own with `register`.
 * A catalog names the implementation it wants; an unknown name is one ConfigError that names the field and lists
 * the known names.
 */
export class Registry<F> {
  /** The catalog field (or setting) a name of this registry is given in, for error messages. */
  readonly field: string;
  readonly #entries = new Map<string, F>();

  constructor(field: string, entries: Record<string, F> = {}) {
    this.field = field;
    for (const [name, factory] of Object.entries(entries)) this.register(name, factory);
  }

  /** Add (or replace) an implementation under `name`. Names are lower-case words joined by dashes. */
  register(name: string, factory: F): this {
    if (!/^[a-z0-9][a-z0-9._-]{0,63}$/.test(name)) {
      throw new ConfigError(
        this.field,
        `"${name}" is not a usable name`,
        'use lower-case letters, digits, dots and dashes',
      );
    }
    this.#entries.set(name, factory);
    return this;
  }

  has(name: string): boolean {
    return this.#entries.has(name);
  }

  /** The registered names, in registration order. */
  names(): string[] {
    return [...this.#entries.keys()];
  }

  /** The factory registered under `name`. @throws ConfigError naming the field and listing the known names */
  get(name: string): F {
    const factory = this.#entries.get(name);
    if (factory === undefined) {
      throw new ConfigError(this.field, `unknown name "${name}"`, `use one of: ${this.names().join(', ')}`);
    }
    return factory;
  }

  /** Check a name without building anything. @throws ConfigError like `get` */
  assert(name: string): void {
    this.get(name);
  }
}
