import type { DocumentDraft, ElementDraft } from '../document/types.js';
import { OdfTableReader, MAX_REPEATED_CELLS, type OdfTable } from './odf-table.js';
import { openOdfPackage } from './odf-package.js';
import type { ParseInput, ParserDefinition } from './types.js';
import { sheetElements } from './xlsx-tables.js';
import { saxParse } from './xml.js';

/**
 * ODS: the same structure as XLSX (see xlsx.ts and xlsx-tables.ts): one section per
 * `table:table` in document order, a level-1 heading with the sheet's name, then its cells cut
 * into tables, every element carrying `sheet` and `page` = the sheet's 1-based position. Cell text
 * is what the application stored for display (`text:p`), so numbers and dates read as shown;
 * merged cells come from `table:number-columns-spanned` / `table:number-rows-spanned`; cell
 * annotations are comments after the table holding their cell. content.xml is streamed through SAX.
 */

const MIME = 'application/vnd.oasis.opendocument.spreadsheet';

export const odsParser: ParserDefinition = {
  formats: ['ods'],
  version: '2',
  textual: false,
  parse(input: ParseInput): DocumentDraft {
    const pkg = openOdfPackage(input.bytes, input.name, 'spreadsheet');
    const tables = readSpreadsheetTables(pkg.content);
    const warnings: string[] = [];
    const elements: ElementDraft[] = [];
    tables.forEach((table, i) => {
      if (table.truncated) warnings.push(`sheet '${table.name}': repeated cells beyond ${MAX_REPEATED_CELLS} were not expanded`);
      const { elements: body, sparseBlocks } = sheetElements(table, table.comments);
      if (sparseBlocks > 0) warnings.push(`sheet '${table.name}': ${sparseBlocks} sparse cell block(s) kept as rows of text instead of a table`);
      const section: ElementDraft[] = [{ kind: 'heading', level: 1, text: table.name }, ...body];
      for (const el of section) {
        el.sheet = table.name;
        el.page = i + 1;
      }
      elements.push(...section);
    });
    return {
      format: 'ods',
      mime: MIME,
      ...(pkg.title !== undefined && { title: pkg.title }),
      ...(pkg.language !== undefined && { language: pkg.language }),
      pageCount: tables.length,
      metadata: { ...pkg.metadata, sheets: tables.map((t) => t.name) },
      elements,
      warnings,
    };
  },
};

/** The top-level tables of an ODF spreadsheet body (one per sheet). */
export function readSpreadsheetTables(content: string): OdfTable[] {
  const tables: OdfTable[] = [];
  let reader: OdfTableReader | undefined;
  saxParse(content, {
    open(name, attrs, selfClosing) {
      if (reader) reader.open(name, attrs, selfClosing);
      else if (name === 'table:table') {
        reader = new OdfTableReader(attrs['table:name'] ?? `Sheet${tables.length + 1}`);
        if (selfClosing) {
          tables.push(reader.finish());
          reader = undefined;
        }
      }
    },
    close(name) {
      if (!reader) return;
      if (name === 'table:table' && reader.atTop()) {
        tables.push(reader.finish());
        reader = undefined;
      } else reader.close(name);
    },
    text(text) {
      reader?.text(text);
    },
  });
  return tables;
}
