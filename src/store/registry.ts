import { GroundworkError } from '../errors.js';
import { postgresStoreDefinition } from './postgres/postgres-definition.js';
import { sqliteStoreDefinition } from './sqlite/sqlite-store.js';
import type { LibraryStore, StoreDefinition, StoreOpenOptions, StoreSpec } from './types.js';

/**
 * Store kinds by name: a spec `{ kind, ... }` is opened by the definition registered for its kind,
 * so any thread or process holding the plain object opens the same store. Built in: `sqlite`,
 * `postgres`.
 */
const STORES = new Map<string, StoreDefinition<any>>();

export function registerStore<S extends StoreSpec>(definition: StoreDefinition<S>): void {
  STORES.set(definition.kind, definition);
}

/** The registered store kinds, sorted. */
export function storeKinds(): string[] {
  return [...STORES.keys()].sort();
}

/**
 * Opens the store a spec describes, e.g. `openStore({ kind: 'sqlite', file: 'lib/library.sqlite' })`.
 * An unknown kind or a spec its kind rejects is INVALID_OPTIONS, naming the field.
 */
export async function openStore(spec: StoreSpec, options: StoreOpenOptions = {}): Promise<LibraryStore> {
  const definition = typeof spec?.kind === 'string' ? STORES.get(spec.kind) : undefined;
  if (!definition) {
    throw new GroundworkError('INVALID_OPTIONS', `unknown store kind ${JSON.stringify(spec?.kind)}; known: ${storeKinds().join(', ')}`);
  }
  const parsed = definition.spec.safeParse(spec);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(spec)'}: ${issue.message}`);
    throw new GroundworkError('INVALID_OPTIONS', `invalid ${definition.kind} store spec: ${issues.join('; ')}`);
  }
  return definition.open(parsed.data, options);
}

/** True for an open store (as opposed to a spec of one). */
export function isLibraryStore(value: StoreSpec | LibraryStore): value is LibraryStore {
  return typeof (value as LibraryStore).searchText === 'function' && typeof (value as LibraryStore).capabilities === 'object';
}

registerStore(sqliteStoreDefinition);
registerStore(postgresStoreDefinition);
