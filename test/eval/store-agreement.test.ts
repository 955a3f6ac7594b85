import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { compareStores } from '../../src/eval/agreement.js';
import { parseStrategySpec } from '../../src/eval/configs.js';
import { loadDataset, sampleQuestions } from '../../src/eval/dataset.js';
import { openScratchPostgres } from '../../src/store/postgres/postgres-scratch.js';
import { openStore } from '../../src/store/registry.js';
import { evalDir } from '../helpers.js';
import { TEST_DATABASE_URL } from '../store/postgres-fixtures.js';

/**
 * The Postgres store ranks as the SQLite store does: a sample of two shared eval sets (English and
 * Chinese) indexed into both, every question ranked by both. The full sets: scripts/store-agreement.ts.
 */

const SETS = ['xquad-en', 'xquad-zh'].map((name) => join(evalDir, name));
const QUESTIONS = 150;

describe.skipIf(!TEST_DATABASE_URL || !SETS.every(existsSync))('Postgres and SQLite rank alike on the eval sets', () => {
  test.each(SETS)('%s: top-ten lists agree on at least 95 percent of hits, hit@5 within 0.01', async (dir) => {
    const dataset = loadDataset(dir);
    const questions = sampleQuestions(dataset.questions, QUESTIONS, 'store-agreement');
    const sqlite = async () => {
      const folder = mkdtempSync(join(tmpdir(), 'gw-agree-'));
      return { store: await openStore({ kind: 'sqlite', file: join(folder, 'library.sqlite') }), dispose: async () => rmSync(folder, { recursive: true, force: true }) };
    };
    const agreement = await compareStores(dataset, questions, parseStrategySpec('structure'), { k: 5, budget: 1000 }, [sqlite, () => openScratchPostgres(TEST_DATABASE_URL!)]);
    console.log(JSON.stringify(agreement));
    expect(agreement.questions).toBe(QUESTIONS);
    expect(agreement.overlap).toBeGreaterThanOrEqual(0.95);
    expect(Math.abs(agreement.hitAtK[0] - agreement.hitAtK[1])).toBeLessThanOrEqual(0.01);
    // A real search, not two empty rankings agreeing.
    expect(agreement.hitAtK[0]).toBeGreaterThan(0.3);
  }, 300_000);
});
