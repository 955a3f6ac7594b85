import { ZipArchive } from '../archive/zip.js';
import type { DocumentDraft, ElementDraft } from '../document/types.js';
import { GroundworkError } from '../errors.js';
import { readRelationships } from './ooxml-package.js';
import { readOfficeProperties } from './ooxml-properties.js';
import type { ParseInput, ParserDefinition } from './types.js';
import { readPersons, sheetComments } from './xlsx-comments.js';
import { sheetCharts } from './xlsx-drawing.js';
import { readCellFormats, readSharedStrings, readSheet } from './xlsx-sheet.js';
import { sheetElements } from './xlsx-tables.js';
import { child, children, parseXmlTree } from './xml.js';

/**
 * XLSX: SpreadsheetML read directly (ZipArchive + saxes; exceljs and SheetJS are slower, and the
 * npm `xlsx` package has unpatched advisories). One section per sheet in workbook order: a level-1
 * heading with the sheet's name, then its used cells cut into tables (see xlsx-tables.ts), every
 * element carrying `sheet` and `page` = the sheet's 1-based position. Cells show what the
 * application displays: shared and inline strings, cached formula results, booleans, errors, and
 * numbers and dates through their number formats. Charts (from the sheet's drawing) become a
 * caption and a table of their cached values, placed among the tables by their anchor cell; a
 * chartsheet is a section holding its chart. Cell comments (threaded comments and notes) follow the
 * table holding their cell. Print headers/footers are page furniture.
 */

const MIME = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/';
const STRICT_REL = 'http://purl.oclc.org/ooxml/officeDocument/relationships/';

export const xlsxParser: ParserDefinition = {
  formats: ['xlsx'],
  version: '2',
  textual: false,
  parse(input: ParseInput): DocumentDraft {
    const file = input.name;
    const fileOption = file !== undefined ? { file } : {};
    const zip = ZipArchive.open(input.bytes, fileOption);
    const mainPart = findMainPart(zip);
    if (!mainPart) throw new GroundworkError('CORRUPT', 'is not an Excel workbook: the package has no xl/workbook.xml', fileOption);
    const workbook = parseXmlTree(zip.readText(mainPart));
    const rels = readRelationships(zip, mainPart);
    const partOf = (type: string): string | undefined => {
      for (const rel of rels.values()) if (!rel.external && (rel.type === REL + type || rel.type === STRICT_REL + type)) return rel.target;
      return undefined;
    };
    const date1904 = isTrue(child(workbook, 'workbookPr')?.attributes['date1904']);
    const sharedStringsPart = partOf('sharedStrings');
    const sharedStrings = sharedStringsPart && zip.has(sharedStringsPart) ? readSharedStrings(zip.readText(sharedStringsPart)) : [];
    const stylesPart = partOf('styles');
    const formats = readCellFormats(stylesPart ? zip.readTextIfPresent(stylesPart) : undefined);

    const persons = readPersons(zip, rels);
    const warnings: string[] = [];
    const elements: ElementDraft[] = [];
    const sheetNames: string[] = [];
    for (const sheet of children(child(workbook, 'sheets'), 'sheet')) {
      const name = sheet.attributes['name'] ?? `Sheet${sheetNames.length + 1}`;
      const index = sheetNames.length + 1;
      sheetNames.push(name);
      const rel = rels.get(sheet.attributes['r:id'] ?? '');
      const state = sheet.attributes['state'];
      if (state === 'hidden' || state === 'veryHidden') warnings.push(`sheet '${name}' is hidden in the workbook; its content is included`);
      if (!rel || rel.external || !zip.has(rel.target)) {
        warnings.push(`sheet '${name}' is listed but its part is missing; skipped`);
        continue;
      }
      const chartsheet = rel.type.endsWith('/chartsheet');
      if (!rel.type.endsWith('/worksheet') && !chartsheet) {
        warnings.push(`sheet '${name}' is a ${rel.type.slice(rel.type.lastIndexOf('/') + 1)}, not a worksheet; skipped`);
        continue;
      }
      const section: ElementDraft[] = [{ kind: 'heading', level: 1, text: name }];
      const sheetRels = readRelationships(zip, rel.target);
      const charts = sheetCharts(zip, sheetRels, name, warnings);
      if (chartsheet) {
        section.push(...charts.flatMap((c) => c.elements));
        if (section.length === 1) warnings.push(`chartsheet '${name}' has no chart that could be read`);
      } else {
        try {
          const content = readSheet(zip.readText(rel.target), { sharedStrings, formats, date1904 });
          const { elements: body, sparseBlocks } = sheetElements(content, [...charts, ...sheetComments(zip, sheetRels, persons, name, warnings)]);
          if (sparseBlocks > 0) warnings.push(`sheet '${name}': ${sparseBlocks} sparse cell block(s) kept as rows of text instead of a table`);
          for (const text of content.headerFooter) section.push({ kind: 'page-furniture', text });
          section.push(...body);
        } catch (error) {
          if (error instanceof GroundworkError) throw error;
          warnings.push(`sheet '${name}' could not be read (${(error as Error).message}); skipped`);
          continue;
        }
      }
      for (const el of section) {
        el.sheet = name;
        el.page = index;
      }
      elements.push(...section);
    }

    const props = readOfficeProperties(zip);
    return {
      format: 'xlsx',
      mime: MIME,
      ...(props.title !== undefined && { title: props.title }),
      ...(props.language !== undefined && { language: props.language }),
      pageCount: sheetNames.length,
      metadata: { ...props.metadata, sheets: sheetNames, ...(date1904 && { date1904 }) },
      elements,
      warnings,
    };
  },
};

function isTrue(value: string | undefined): boolean {
  return value === '1' || value === 'true';
}

function findMainPart(zip: ZipArchive): string | undefined {
  for (const rel of readRelationships(zip, '').values()) {
    if (rel.type.endsWith('/officeDocument') && !rel.external && zip.has(rel.target)) return rel.target;
  }
  return zip.has('xl/workbook.xml') ? 'xl/workbook.xml' : undefined;
}
