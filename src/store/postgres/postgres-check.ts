import type pg from 'pg';
import type { CheckFinding, CheckRepair, CheckScope } from '../check.js';
import { unreferencedOriginals } from './postgres-originals.js';

/**
 * The Postgres store's checks (every row, on one snapshot): blocks without index rows, document
 * frequencies against a recount from the index rows, the postings against the index rows, and the
 * indexed block count against the blocks. Each finding is repairable by rebuilding the index from the blocks.
 */
export async function inspect(client: pg.PoolClient): Promise<{ checked: CheckScope[]; found: CheckFinding[] }> {
  const checked: CheckScope[] = [];
  const found: CheckFinding[] = [];
  const blocks = Number((await client.query('SELECT count(*) AS n FROM blocks')).rows[0].n);

  const unindexed = await client.query<{ id: string }>('SELECT b.id FROM blocks b WHERE NOT EXISTS (SELECT 1 FROM block_terms t WHERE t.rowid = b.rowid AND t.part = 0)');
  checked.push({ check: 'index-rows', what: 'every block has its index row', scope: 'full', items: blocks });
  if (unindexed.rowCount) {
    found.push({ check: 'index-rows', severity: 'error', message: 'blocks missing from the search index', count: unindexed.rowCount, examples: unindexed.rows.slice(0, 5).map((r) => r.id), repairable: true });
  }

  const df = await client.query<{ term: string }>(
    `SELECT coalesce(k.term, c.term) AS term FROM (SELECT term, df FROM term_df WHERE df <> 0) k
     FULL JOIN (SELECT lexeme AS term, count(*)::int AS df FROM block_terms, unnest(terms) AS u(lexeme) GROUP BY lexeme) c ON c.term = k.term
     WHERE k.df IS DISTINCT FROM c.df`,
  );
  const terms = Number((await client.query('SELECT count(*) AS n FROM term_df')).rows[0].n);
  checked.push({ check: 'term-df', what: 'document frequencies against the index rows', scope: 'full', items: terms });
  if (df.rowCount) {
    found.push({ check: 'term-df', severity: 'error', message: 'document frequencies differ from the index', count: df.rowCount, examples: df.rows.slice(0, 5).map((r) => r.term), repairable: true });
  }

  // Every (term, block) pair of the index rows is a postings row with the block's column and the
  // term's frequency, and no postings row is left of a term or block the index rows do not hold.
  const postings = await client.query<{ lexeme: string; id: string | null }>(
    `SELECT coalesce(p.lexeme, e.lexeme) AS lexeme, b.id FROM
       (SELECT u.lexeme, t.rowid, t.col, cardinality(u.positions) AS tf FROM block_terms t, unnest(t.terms) AS u) e
     FULL JOIN postings p ON p.lexeme = e.lexeme AND p.rowid = e.rowid
     LEFT JOIN blocks b ON b.rowid = coalesce(p.rowid, e.rowid)
     WHERE p.rowid IS NULL OR e.rowid IS NULL OR p.col <> e.col OR p.tf <> e.tf`,
  );
  const pairs = Number((await client.query('SELECT count(*) AS n FROM postings')).rows[0].n);
  checked.push({ check: 'postings', what: 'the postings against the index rows (term, block, column, frequency)', scope: 'full', items: pairs });
  if (postings.rowCount) {
    found.push({
      check: 'postings',
      severity: 'error',
      message: 'postings differ from the index rows',
      count: postings.rowCount,
      examples: postings.rows.slice(0, 5).map((r) => `${r.lexeme} in ${r.id ?? 'a removed block'}`),
      repairable: true,
    });
  }

  const counted = Number((await client.query("SELECT coalesce((SELECT value FROM index_stats WHERE key = 'blocks'), 0) AS n")).rows[0].n);
  checked.push({ check: 'block-count', what: 'the indexed block count against the blocks', scope: 'full', items: 1 });
  if (counted !== blocks) {
    found.push({ check: 'block-count', severity: 'error', message: `the index counts ${counted} blocks, the library holds ${blocks}`, count: Math.abs(counted - blocks), examples: [], repairable: true });
  }

  // Originals kept in the database that no document keeps: put for a write that failed or was
  // killed before its commit. Leftovers, not damage: repair deletes those older than an hour.
  const originals = Number((await client.query('SELECT count(*) AS n FROM originals')).rows[0].n);
  const unreferenced = await unreferencedOriginals(client);
  checked.push({ check: 'original-unreferenced', what: "every original in the database is some document's", scope: 'full', items: originals });
  if (unreferenced.length > 0) {
    found.push({ check: 'original-unreferenced', severity: 'leftover', message: `${unreferenced.length} original(s) in the database are no document's`, count: unreferenced.length, examples: unreferenced.slice(0, 5).map((o) => o.docId.slice(0, 12)), repairable: true });
  }
  return { checked, found };
}

/** What a repair did, given the blocks re-indexed. */
export function rebuiltRepair(blocks: number): CheckRepair {
  return { check: 'index-rows', action: `rebuilt the search index and its statistics from ${blocks} blocks`, count: blocks };
}
