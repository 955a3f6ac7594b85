import type Database from 'better-sqlite3';
import { finding, type CheckFinding, type CheckRepair, type CheckScope } from '../check.js';
import { ANALYZER_VERSION, blockIndexText } from '../../search/analyze.js';
import { ivfExists, ivfMismatch, trainIvf, type Coded } from './sqlite-ivf.js';
import { indexedRowCount, LENGTH_COLUMNS, lengthColumn, lengthStatsReader, MIN_ROW_TOKENS, PAD_TOKEN, rebuildIndex, termCount } from './sqlite-fts.js';

/**
 * `groundwork check` for a SQLite library: what is compared, how thoroughly, and what repair does.
 *
 * Always, exactly: the file (quick_check), orphans (blocks, paths, parse-cache rows without their
 * document), every document's blocks (one configuration, ordinals 0..n-1), the index's row count
 * (FTS5's own total) and `index_stats` against the blocks, `term_df` against the index's
 * vocabulary (every term: fts5vocab walks each posting list once), the length columns' block total.
 * Sampled: SAMPLE_BLOCKS blocks chosen at random are re-analysed and each must be in the index
 * under its rowid, in its length column, with every one of its terms.
 * Vectors, exactly: each quantized model's partition (src/store/sqlite/sqlite-ivf.ts) holds every
 * vector of the model once, under a list that has a centroid, and nothing else.
 * With `full`: SQLite's integrity_check, FTS5's own integrity-check, and every block re-analysed:
 * the document frequencies, the per-column block and term counts and the token total they give
 * must equal `term_df` and `fts_lengths`.
 *
 * Every index problem has one repair: the index and all its statistics rebuilt from the blocks
 * (what an analyzer upgrade does at open). Orphans are deleted; a document with inconsistent
 * blocks is removed (its paths are named, so it can be ingested again). A damaged file is not
 * repairable here (SQLite's `.recover` is the tool). A partition out of step is trained again from
 * the float vectors.
 */

export const SAMPLE_BLOCKS = 1000;

/** Checks whose problems a rebuild of the index from the blocks fixes. */
const INDEX_CHECKS = new Set(['index-analyzer', 'index-rows', 'index-stats', 'term-df', 'fts-lengths', 'index-content', 'fts-structure']);

type Row = Record<string, any>;

export interface Inspection {
  checked: CheckScope[];
  found: CheckFinding[];
}

/** Runs the checks on one snapshot (call inside a read transaction). */
export function inspect(db: Database.Database, full: boolean, random: () => number = Math.random): Inspection {
  const checked: CheckScope[] = [];
  const found: CheckFinding[] = [];
  const one = (sql: string, ...params: unknown[]) => db.prepare(sql).pluck().get(...params) as number;
  const blocks = one('SELECT count(*) FROM blocks');

  // The file itself.
  const messages = (db.pragma(full ? 'integrity_check(100)' : 'quick_check(100)') as Row[]).map((r) => String(Object.values(r)[0]));
  checked.push({
    check: 'sqlite-integrity',
    what: full ? "SQLite's integrity_check: every page, record and index entry" : "SQLite's quick_check: every page and record (indexes not compared with their tables)",
    scope: 'full',
    items: one('PRAGMA page_count'),
  });
  if (!(messages.length === 1 && messages[0] === 'ok')) {
    found.push(finding('sqlite-integrity', 'error', `SQLite reports damage in the database file (${messages.length} messages); copy what can be read with sqlite3's .recover`, messages.length, messages, false));
  }

  // Orphans and each document's blocks.
  const orphanBlocks = db.prepare('SELECT b.id, b.doc_id FROM blocks b WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = b.doc_id)').all() as Row[];
  checked.push({ check: 'orphan-blocks', what: 'every block belongs to a stored document', scope: 'full', items: blocks });
  if (orphanBlocks.length > 0) {
    found.push(finding('orphan-blocks', 'error', `${orphanBlocks.length} block(s) belong to no stored document`, orphanBlocks.length, orphanBlocks.map((r) => `${r.id} (document ${r.doc_id})`)));
  }
  const paths = one('SELECT count(*) FROM paths');
  const orphanPaths = db.prepare('SELECT path, doc_id FROM paths p WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = p.doc_id)').all() as Row[];
  checked.push({ check: 'orphan-paths', what: 'every path points at a stored document', scope: 'full', items: paths });
  if (orphanPaths.length > 0) {
    found.push(finding('orphan-paths', 'error', `${orphanPaths.length} path(s) point at no stored document`, orphanPaths.length, orphanPaths.map((r) => `${r.path} -> ${r.doc_id}`)));
  }
  const cacheRows = one('SELECT count(*) FROM parse_cache');
  const orphanCache = db.prepare('SELECT key, doc_id FROM parse_cache c WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = c.doc_id)').all() as Row[];
  checked.push({ check: 'orphan-parse-cache', what: "every parse-cache entry's document is stored", scope: 'full', items: cacheRows });
  if (orphanCache.length > 0) {
    found.push(finding('orphan-parse-cache', 'leftover', `${orphanCache.length} parse-cache entr(ies) for documents no longer stored`, orphanCache.length, orphanCache.map((r) => `document ${r.doc_id}`)));
  }
  const badDocs = inconsistentDocuments(db);
  checked.push({ check: 'document-blocks', what: "each document's blocks: its configuration, ordinals 0..n-1", scope: 'full', items: one('SELECT count(*) FROM documents') });
  if (badDocs.length > 0) {
    found.push(finding('document-blocks', 'error', `${badDocs.length} document(s) have blocks of another configuration or missing/duplicate ordinals`, badDocs.length, badDocs.map(describeDocument(db))));
  }

  // The index against the blocks.
  const analyzer = db.prepare("SELECT value FROM settings WHERE key = 'index.analyzer'").pluck().get() as string | undefined;
  checked.push({ check: 'index-analyzer', what: 'the index was built by this analyzer', scope: 'full', items: 1 });
  if (analyzer !== ANALYZER_VERSION) {
    found.push(finding('index-analyzer', 'error', `the index was built by analyzer ${JSON.stringify(analyzer ?? null)}, not this Groundwork's ${JSON.stringify(ANALYZER_VERSION)}`, 1, []));
  }
  const indexed = indexedRowCount(db);
  checked.push({ check: 'index-rows', what: "the index's row count (FTS5's own total) equals the blocks'", scope: 'full', items: blocks });
  if (indexed !== blocks) found.push(finding('index-rows', 'error', `the search index has ${indexed} row(s) for ${blocks} block(s)`, Math.abs(indexed - blocks), []));
  const statBlocks = (db.prepare("SELECT value FROM index_stats WHERE key = 'blocks'").pluck().get() as number | undefined) ?? 0;
  checked.push({ check: 'index-stats', what: "index_stats' block count equals the blocks'", scope: 'full', items: 1 });
  if (statBlocks !== blocks) found.push(finding('index-stats', 'error', `index_stats counts ${statBlocks} block(s), the library has ${blocks}`, Math.abs(statBlocks - blocks), []));

  const dfMismatch = termDfAgainstIndex(db);
  checked.push({ check: 'term-df', what: "term_df equals the index's own document frequency, every term", scope: 'full', items: dfMismatch.terms });
  if (dfMismatch.count > 0) {
    found.push(finding('term-df', 'error', `${dfMismatch.count} term(s) have a term_df other than the index's document frequency`, dfMismatch.count, dfMismatch.examples));
  }

  const lengths = lengthStatsReader(db)();
  const columnBlocks = lengths.blocks.reduce((s, x) => s + x, 0);
  const columnTerms = lengths.terms.reduce((s, x) => s + x, 0);
  if (!full) {
    checked.push({ check: 'fts-lengths', what: "fts_lengths' block total equals the blocks', its token total is possible", scope: 'full', items: LENGTH_COLUMNS });
    const tokensPossible = lengths.tokens >= Math.max(columnTerms, MIN_ROW_TOKENS * columnBlocks) && lengths.tokens <= columnTerms + MIN_ROW_TOKENS * columnBlocks;
    if (columnBlocks !== blocks || !tokensPossible) {
      found.push(finding('fts-lengths', 'error', `fts_lengths counts ${columnBlocks} block(s) (${blocks} stored) and ${lengths.tokens} token(s) for ${columnTerms} term(s)`, 1, []));
    }
  }

  const sample = sampleIndexContent(db, blocks, random);
  checked.push({ check: 'index-content', what: 'blocks re-analysed: each in the index under its rowid, in its length column, with all its terms', scope: sample.scope, items: sample.items });
  if (sample.missing.length > 0) {
    found.push(finding('index-content', 'error', `${sample.missing.length} of ${sample.items} block(s) checked are not in the index as their text says`, sample.missing.length, sample.missing));
  }

  // Each quantized model's partition against its vectors.
  for (const slot of quantizedSlots(db)) {
    if (!ivfExists(db, slot.slot)) {
      checked.push({ check: 'vector-index', what: `the ${slot.model} vector index (${slot.quantization}) holds every vector once`, scope: 'full', items: 0 });
      found.push(finding('vector-index', 'error', `the ${slot.model} vectors are set to ${slot.quantization} but have no index (searched exactly until it is built)`, 1, [slot.model]));
      continue;
    }
    const m = ivfMismatch(db, slot.slot);
    checked.push({ check: 'vector-index', what: `the ${slot.model} vector index (${slot.quantization}, ${m.lists} lists) holds every vector once, under a list with a centroid`, scope: 'full', items: m.count });
    if (m.missing > 0 || m.extra > 0 || m.badLists > 0 || m.recorded !== m.count) {
      found.push(finding('vector-index', 'error', `the ${slot.model} vector index is out of step: ${m.missing} vector(s) missing, ${m.extra} row(s) of no vector, ${m.badLists} under no list, count ${m.recorded} recorded for ${m.count} row(s)`, m.missing + m.extra + m.badLists + (m.recorded !== m.count ? 1 : 0), [slot.model]));
    }
  }

  if (full) {
    const recomputed = recomputeFromBlocks(db);
    checked.push({ check: 'fts-lengths', what: "fts_lengths (blocks and terms per length column, token total) equal what every block's analysis gives", scope: 'full', items: blocks });
    const columnsOff = lengths.blocks.some((n, c) => n !== recomputed.blocks[c] || lengths.terms[c] !== recomputed.terms[c]) || lengths.tokens !== recomputed.tokens;
    if (columnsOff) found.push(finding('fts-lengths', 'error', 'fts_lengths differs from what the blocks give', 1, []));
    checked.push({ check: 'term-df-blocks', what: "term_df equals the document frequency every block's analysis gives, every term", scope: 'full', items: recomputed.dfMismatch.terms });
    if (recomputed.dfMismatch.count > 0) {
      found.push(finding('term-df-blocks', 'error', `${recomputed.dfMismatch.count} term(s) have a term_df other than the blocks give`, recomputed.dfMismatch.count, recomputed.dfMismatch.examples));
    }
  }
  return { checked, found };
}

/** FTS5's own consistency check of its index structures (a write statement: run it under the write lock). */
export function ftsStructure(db: Database.Database): Inspection {
  const checked: CheckScope[] = [{ check: 'fts-structure', what: "FTS5's integrity-check of the index's own structures", scope: 'full', items: indexedRowCount(db) }];
  try {
    db.exec("INSERT INTO blocks_fts(blocks_fts) VALUES ('integrity-check')");
    return { checked, found: [] };
  } catch (error) {
    return { checked, found: [finding('fts-structure', 'error', `FTS5 finds the index damaged: ${(error as Error).message}`, 1, [])] };
  }
}

function quantizedSlots(db: Database.Database): { slot: number; model: string; dimensions: number; quantization: string }[] {
  return db.prepare("SELECT slot, model, dimensions, quantization FROM vector_models WHERE quantization <> 'none' ORDER BY slot").all() as { slot: number; model: string; dimensions: number; quantization: string }[];
}

function inconsistentDocuments(db: Database.Database): string[] {
  return db
    .prepare(
      `SELECT b.doc_id FROM blocks b JOIN documents d ON d.id = b.doc_id GROUP BY b.doc_id
       HAVING sum(b.config_hash <> d.config_hash) > 0 OR min(b.ordinal) <> 0 OR max(b.ordinal) <> count(*) - 1 OR count(DISTINCT b.ordinal) <> count(*)`,
    )
    .pluck()
    .all() as string[];
}

function describeDocument(db: Database.Database): (docId: string) => string {
  const firstPath = db.prepare('SELECT min(path) FROM paths WHERE doc_id = ?').pluck();
  return (docId) => {
    const path = firstPath.get(docId) as string | null;
    return path ? `${docId.slice(0, 12)} (${path})` : docId.slice(0, 12);
  };
}

/** The index's vocabulary, readable on this connection (a temp table, made once). */
function vocabulary(db: Database.Database): string {
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.gw_check_vocab USING fts5vocab(main, blocks_fts, 'row')");
  return `(SELECT term, doc FROM temp.gw_check_vocab WHERE doc > 0 AND term <> char(${PAD_TOKEN.codePointAt(0)}))`;
}

function compareDf(db: Database.Database, left: string, leftName: string): { count: number; terms: number; examples: string[] } {
  const diff = `SELECT coalesce(v.term, t.term) AS term, v.doc AS expected, t.df AS stored FROM ${left} v FULL JOIN term_df t ON t.term = v.term WHERE v.doc IS NOT t.df`;
  const count = db.prepare(`SELECT count(*) FROM (${diff})`).pluck().get() as number;
  const examples = count === 0 ? [] : (db.prepare(`${diff} LIMIT 5`).all() as Row[]).map((r) => `${JSON.stringify(r.term)}: ${leftName} ${r.expected ?? 0}, term_df ${r.stored ?? 0}`);
  const terms = db.prepare(`SELECT count(*) FROM ${left}`).pluck().get() as number;
  return { count, terms, examples };
}

function termDfAgainstIndex(db: Database.Database): { count: number; terms: number; examples: string[] } {
  return compareDf(db, vocabulary(db), 'index');
}

/** Re-analyses sampled blocks (all of them when there are few) and looks each up in the index. */
function sampleIndexContent(db: Database.Database, blocks: number, random: () => number): { scope: 'full' | 'sampled'; items: number; missing: string[] } {
  const byRowid = db.prepare('SELECT rowid, id, heading_path, text FROM blocks WHERE rowid >= ? ORDER BY rowid LIMIT 1');
  const lookup = db.prepare('SELECT count(*) FROM blocks_fts WHERE blocks_fts MATCH ? AND rowid = CAST(? AS INTEGER)').pluck();
  const rows: Row[] = [];
  let scope: 'full' | 'sampled' = 'full';
  if (blocks <= SAMPLE_BLOCKS) {
    rows.push(...(db.prepare('SELECT rowid, id, heading_path, text FROM blocks ORDER BY rowid').all() as Row[]));
  } else {
    scope = 'sampled';
    const { lo, hi } = db.prepare('SELECT min(rowid) AS lo, max(rowid) AS hi FROM blocks').get() as { lo: number; hi: number };
    const seen = new Set<number>();
    for (let i = 0; i < SAMPLE_BLOCKS * 2 && rows.length < SAMPLE_BLOCKS; i++) {
      const row = byRowid.get(lo + Math.floor(random() * (hi - lo + 1))) as Row | undefined;
      if (row && !seen.has(row.rowid)) {
        seen.add(row.rowid);
        rows.push(row);
      }
    }
  }
  const missing: string[] = [];
  for (const row of rows) {
    const body = blockIndexText({ headingPath: JSON.parse(row.heading_path), text: row.text });
    const terms = termCount(body);
    const distinct = [...new Set(body.split(' ').filter((t) => t !== ''))];
    // A block shorter than MIN_ROW_TOKENS carries the padding token too; an empty one only that.
    if (terms < MIN_ROW_TOKENS) distinct.push(PAD_TOKEN);
    const match = `l${lengthColumn(terms)} : (${distinct.map((t) => `"${t.replace(/"/g, '""')}"`).join(' ')})`;
    if ((lookup.get(match, row.rowid) as number) !== 1) missing.push(row.id);
  }
  return { scope, items: rows.length, missing };
}

/** Every block re-analysed: the length statistics and document frequencies the index should have. */
function recomputeFromBlocks(db: Database.Database): { blocks: number[]; terms: number[]; tokens: number; dfMismatch: { count: number; terms: number; examples: string[] } } {
  db.exec('CREATE TEMP TABLE IF NOT EXISTS gw_check_df (term TEXT PRIMARY KEY, doc INTEGER NOT NULL) WITHOUT ROWID; DELETE FROM temp.gw_check_df;');
  const add = db.prepare('INSERT INTO temp.gw_check_df(term, doc) VALUES (?, ?) ON CONFLICT(term) DO UPDATE SET doc = doc + excluded.doc');
  const page = db.prepare('SELECT rowid, heading_path, text FROM blocks WHERE rowid > ? ORDER BY rowid LIMIT 2000').raw();
  const blocks = new Array<number>(LENGTH_COLUMNS).fill(0);
  const terms = new Array<number>(LENGTH_COLUMNS).fill(0);
  let tokens = 0;
  for (let last = Number.MIN_SAFE_INTEGER; ; ) {
    const rows = page.all(last) as [number, string, string][];
    if (rows.length === 0) break;
    // Counted per page, written per page: a large library's vocabulary would not fit in memory.
    const df = new Map<string, number>();
    for (const [, headingPath, text] of rows) {
      const body = blockIndexText({ headingPath: JSON.parse(headingPath), text });
      const n = termCount(body);
      const col = lengthColumn(n);
      blocks[col]!++;
      terms[col]! += n;
      tokens += Math.max(n, MIN_ROW_TOKENS);
      for (const term of new Set(body.split(' '))) if (term !== '') df.set(term, (df.get(term) ?? 0) + 1);
    }
    for (const [term, n] of df) add.run(term, n);
    last = rows[rows.length - 1]![0];
  }
  const dfMismatch = compareDf(db, '(SELECT term, doc FROM temp.gw_check_df)', 'blocks');
  db.exec('DELETE FROM temp.gw_check_df');
  return { blocks, terms, tokens, dfMismatch };
}

/**
 * Repairs what `found` lists, inside the caller's write transaction, from the data as it is now
 * (another process may have written since the inspection): returns what it did.
 */
export function repair(db: Database.Database, found: readonly CheckFinding[], onIndexRebuild?: (done: number, total: number) => void): CheckRepair[] {
  const has = (check: string) => found.some((f) => f.check === check && f.repairable);
  const repairs: CheckRepair[] = [];
  let rebuild = [...INDEX_CHECKS].some(has) || has('term-df-blocks');
  if (has('document-blocks')) {
    const docs = inconsistentDocuments(db);
    const describe = describeDocument(db);
    const names = docs.map(describe);
    for (const docId of docs) {
      db.prepare('DELETE FROM blocks WHERE doc_id = ?').run(docId);
      db.prepare('DELETE FROM parse_cache WHERE doc_id = ?').run(docId);
      db.prepare('DELETE FROM paths WHERE doc_id = ?').run(docId);
      db.prepare('DELETE FROM documents WHERE id = ?').run(docId);
    }
    if (docs.length > 0) {
      rebuild = true;
      repairs.push({ check: 'document-blocks', action: `removed ${docs.length} document(s) with inconsistent blocks; ingest them again: ${names.slice(0, 5).join(', ')}`, count: docs.length });
    }
  }
  if (has('orphan-blocks')) {
    const n = db.prepare('DELETE FROM blocks WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = blocks.doc_id)').run().changes;
    if (n > 0) {
      rebuild = true;
      repairs.push({ check: 'orphan-blocks', action: `deleted ${n} block(s) of no document`, count: n });
    }
  }
  if (has('orphan-paths')) {
    const n = db.prepare('DELETE FROM paths WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = paths.doc_id)').run().changes;
    if (n > 0) repairs.push({ check: 'orphan-paths', action: `deleted ${n} path(s) of no document`, count: n });
  }
  if (has('orphan-parse-cache')) {
    const n = db.prepare('DELETE FROM parse_cache WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = parse_cache.doc_id)').run().changes;
    if (n > 0) repairs.push({ check: 'orphan-parse-cache', action: `deleted ${n} parse-cache entr(ies) of no document`, count: n });
  }
  if (has('vector-index')) {
    for (const slot of quantizedSlots(db)) {
      const state = trainIvf(db, slot.slot, slot.dimensions, slot.quantization as Coded);
      repairs.push({ check: 'vector-index', action: `rebuilt the ${slot.model} vector index (${slot.quantization}): ${state.count} vector(s) in ${state.lists} list(s)`, count: state.count });
    }
  }
  if (rebuild) {
    rebuildIndex(db, onIndexRebuild);
    db.prepare("INSERT INTO settings(key, value) VALUES ('index.analyzer', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(ANALYZER_VERSION);
    const blocks = db.prepare('SELECT count(*) FROM blocks').pluck().get() as number;
    repairs.push({ check: 'index', action: `rebuilt the search index, term_df, index_stats and fts_lengths from ${blocks} block(s)`, count: blocks });
  }
  return repairs;
}
