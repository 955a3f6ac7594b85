import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { isGroundworkError } from '../../src/errors.js';
import { openStore, registerStore, storeKinds } from '../../src/store/registry.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { libraryFile } from './fixtures.js';

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  if (!isGroundworkError(error)) throw new Error(`expected a GroundworkError, got ${String(error)}`);
  return { code: error.code, message: error.message };
}

describe('store registry', () => {
  test('opens a store from a plain spec', async () => {
    const file = libraryFile();
    const store = await openStore(JSON.parse(JSON.stringify({ kind: 'sqlite', file })));
    expect(store.location).toBe(file);
    expect(store.spec).toEqual({ kind: 'sqlite', file });
    await store.close();
  });

  test('an unknown kind or a bad spec is INVALID_OPTIONS naming the problem', async () => {
    expect(await failure(openStore({ kind: 'mongo', url: 'x' }))).toEqual({ code: 'INVALID_OPTIONS', message: expect.stringContaining('unknown store kind "mongo"; known: postgres, sqlite') });
    expect(await failure(openStore({ kind: 'sqlite' }))).toEqual({ code: 'INVALID_OPTIONS', message: expect.stringMatching(/invalid sqlite store spec: file: /) });
    expect(await failure(openStore({ kind: 'sqlite', file: '' }))).toMatchObject({ code: 'INVALID_OPTIONS' });
    expect(await failure(openStore({ kind: 'sqlite', file: libraryFile(), fiel: 'typo' }))).toMatchObject({ code: 'INVALID_OPTIONS', message: expect.stringContaining('fiel') });
    expect(await failure(openStore(null as never))).toMatchObject({ code: 'INVALID_OPTIONS' });
  });

  test('a registered kind is opened by its definition, with its own spec', async () => {
    const file = libraryFile();
    const spec = z.strictObject({ kind: z.literal('sqlite-by-path'), path: z.string() });
    registerStore({ kind: 'sqlite-by-path', spec, open: async ({ path }) => new SqliteStore(path) });
    expect(storeKinds()).toEqual(['postgres', 'sqlite', 'sqlite-by-path']);
    const store = await openStore({ kind: 'sqlite-by-path', path: file });
    expect(store.location).toBe(file);
    await store.close();
    expect(await failure(openStore({ kind: 'sqlite-by-path', file }))).toMatchObject({ code: 'INVALID_OPTIONS' });
  });
});
