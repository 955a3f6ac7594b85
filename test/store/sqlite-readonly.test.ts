import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isGroundworkError } from '../../src/errors.js';
import { openStore } from '../../src/store/registry.js';

/** `{ kind: 'sqlite', file, readonly: true }`: what a search worker opens beside the writing process. */
const root = mkdtempSync(join(tmpdir(), 'gw-sqlite-readonly-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a read-only SQLite store', () => {
  it('reads what the writer commits, refuses writes, and says so in its spec', async () => {
    const file = join(root, 'library.sqlite');
    const writer = await openStore({ kind: 'sqlite', file });
    const reader = await openStore({ kind: 'sqlite', file, readonly: true });
    try {
      expect(reader.spec).toEqual({ kind: 'sqlite', file, readonly: true });
      expect(await reader.getSetting('strategy')).toBeUndefined();
      await writer.setSetting('strategy', 'token');
      expect(await reader.getSetting('strategy')).toBe('token');
      await expect(reader.setSetting('strategy', 'sentence')).rejects.toThrow(/readonly/);
      expect(await writer.getSetting('strategy')).toBe('token');
    } finally {
      await reader.close();
      await writer.close();
    }
  });

  it('does not create a missing file', async () => {
    const error = await openStore({ kind: 'sqlite', file: join(root, 'missing.sqlite'), readonly: true }).catch((e: unknown) => e);
    expect(isGroundworkError(error) && error.code).toBe('IO');
  });
});
