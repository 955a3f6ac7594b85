import { strToU8, zipSync } from 'fflate';
import { beforeAll, describe, expect, test } from 'vitest';
import { parse } from '../../src/parse.js';
import { odsParser } from '../../src/parsers/ods.js';
import { registerParser } from '../../src/parsers/registry.js';

beforeAll(() => registerParser(odsParser));

const NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"';

function ods(body: string, extra: Record<string, string> = {}): Uint8Array {
  const files: Record<string, Uint8Array> = {
    mimetype: strToU8('application/vnd.oasis.opendocument.spreadsheet'),
    'content.xml': strToU8(`<office:document-content ${NS}><office:body><office:spreadsheet>${body}</office:spreadsheet></office:body></office:document-content>`),
    'meta.xml': strToU8('<office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0"><office:meta><dc:title>Budget</dc:title><meta:initial-creator>Ada</meta:initial-creator></office:meta></office:document-meta>'),
  };
  for (const [name, content] of Object.entries(extra)) files[name] = strToU8(content);
  return zipSync(files);
}

const cell = (text: string, attrs = ''): string => `<table:table-cell office:value-type="string"${attrs}><text:p>${text}</text:p></table:table-cell>`;
const num = (value: number, shown: string, type = 'float'): string => `<table:table-cell office:value-type="${type}" office:value="${value}"><text:p>${shown}</text:p></table:table-cell>`;

describe('ods parser', () => {
  test('sheets, displayed values, merges, repeats', async () => {
    const body =
      '<table:table table:name="Costs">' +
      `<table:table-row>${cell('Item')}${cell('Cost')}${cell('Share')}${cell('Due')}</table:table-row>` +
      `<table:table-row>${cell('Rent', ' table:number-rows-spanned="2"')}${num(1200, '1,200.00', 'currency')}${num(0.6, '60%', 'percentage')}<table:table-cell office:value-type="date" office:date-value="2024-03-01"><text:p>03/01/24</text:p></table:table-cell></table:table-row>` +
      `<table:table-row><table:covered-table-cell/>${num(800, '800.00', 'currency')}<table:table-cell office:value-type="percentage" office:value="0.4"/><table:table-cell table:number-columns-repeated="1020"/></table:table-row>` +
      '<table:table-row table:number-rows-repeated="1048570"><table:table-cell table:number-columns-repeated="1024"/></table:table-row>' +
      '</table:table>' +
      `<table:table table:name="Notes"><table:table-row>${cell('Paid <text:s text:c="2"/>late<office:annotation><text:p>comment</text:p></office:annotation>')}</table:table-row></table:table>`;
    const doc = await parse(ods(body), { name: 'budget.ods' });
    expect(doc.format).toBe('ods');
    expect(doc.title).toBe('Budget');
    expect(doc.metadata.author).toBe('Ada');
    expect(doc.pageCount).toBe(2);
    expect(doc.elements.filter((e) => e.kind === 'heading').map((e) => [e.text, e.page])).toEqual([
      ['Costs', 1],
      ['Notes', 2],
    ]);
    const table = doc.elements.find((e) => e.kind === 'table')!.table!;
    expect(table.headerRows).toBe(1);
    expect(table.rows).toEqual([
      [{ text: 'Item' }, { text: 'Cost' }, { text: 'Share' }, { text: 'Due' }],
      [{ text: 'Rent', rowSpan: 2 }, { text: '1,200.00' }, { text: '60%' }, { text: '03/01/24' }],
      [{ text: 'Rent' }, { text: '800.00' }, { text: '40%' }, { text: '' }],
    ]);
    expect(doc.elements.find((e) => e.sheet === 'Notes' && e.kind === 'paragraph')?.text).toBe('Paid   late');
  });

  test('repeated content is expanded up to a cap', async () => {
    const body = `<table:table table:name="R"><table:table-row table:number-rows-repeated="3">${cell('x', ' table:number-columns-repeated="2"')}</table:table-row></table:table>`;
    const doc = await parse(ods(body), { name: 'r.ods' });
    expect(doc.elements.find((e) => e.kind === 'table')!.table!.rows.map((r) => r.map((c) => c.text))).toEqual([
      ['x', 'x'],
      ['x', 'x'],
      ['x', 'x'],
    ]);
  });

  test('an encrypted package is ENCRYPTED; a package without content.xml is CORRUPT', async () => {
    const manifest = '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data/></manifest:file-entry></manifest:manifest>';
    await expect(parse(ods('', { 'META-INF/manifest.xml': manifest }), { name: 'e.ods', format: 'ods' })).rejects.toMatchObject({ code: 'ENCRYPTED' });
    await expect(parse(zipSync({ mimetype: strToU8('application/vnd.oasis.opendocument.spreadsheet') }), { name: 'c.ods', format: 'ods' })).rejects.toMatchObject({ code: 'CORRUPT' });
  });
});
