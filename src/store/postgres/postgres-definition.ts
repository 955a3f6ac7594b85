import { z } from 'zod';
import type { StoreDefinition } from '../types.js';

/** The schema a library lives in when the spec names none. */
export const DEFAULT_SCHEMA = 'groundwork';

/** How a Postgres store is named in a spec: the server and database (a URL), and the schema. */
export const postgresStoreSpec = z.strictObject({
  kind: z.literal('postgres'),
  /** A libpq-style URL: postgres://user:password@host:port/database (query parameters as node-postgres reads them). */
  url: z.string().regex(/^postgres(ql)?:\/\/\S+$/, 'expected a postgres:// or postgresql:// URL'),
  /** The schema holding the library's tables (created when missing). Default `groundwork`. */
  schema: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, 'expected an unquoted SQL identifier: letters, digits and underscores, at most 63')
    .optional(),
  /**
   * false: open only a library that exists (its schema has been created by Groundwork); a missing one
   * is NOT_FOUND instead of a new empty library (the read-only commands, where a mistyped schema
   * must not create one). Default true.
   */
  create: z.boolean().optional(),
  /** Connections in the store's pool (default 10; at least 2: block iteration holds one). */
  poolSize: z.number().int().min(2).max(1000).optional(),
});
export type PostgresStoreSpec = z.infer<typeof postgresStoreSpec>;

/**
 * The registry entry: `openStore({ kind: 'postgres', url, schema? })`. The store and the `pg` driver
 * load on first use (a SQLite user never pays for them).
 */
export const postgresStoreDefinition: StoreDefinition<PostgresStoreSpec> = {
  kind: 'postgres',
  spec: postgresStoreSpec,
  open: async (spec, options) => (await import('./postgres-store.js')).PostgresStore.open(spec, options),
};
