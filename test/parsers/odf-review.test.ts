import { strToU8, zipSync } from 'fflate';
import { beforeAll, describe, expect, test } from 'vitest';
import type { Document } from '../../src/document/types.js';
import { parse } from '../../src/parse.js';
import { odpParser } from '../../src/parsers/odp.js';
import { odsParser } from '../../src/parsers/ods.js';
import { odtParser } from '../../src/parsers/odt.js';
import { registerParser } from '../../src/parsers/registry.js';

beforeAll(() => [odtParser, odsParser, odpParser].forEach(registerParser));

/**
 * OpenDocument annotations and tracked changes as LibreOffice writes them: `office:annotation`
 * with dc:creator/dc:date, ranges closed by `office:annotation-end`, replies by `loext:parent-name`,
 * `loext:resolved`; `text:tracked-changes` regions with `text:change-start`/`end` and `text:change`.
 */

const NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ' +
  'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" ' +
  'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" xmlns:loext="urn:org:documentfoundation:names:experimental:office:xmlns:loext:1.0" xmlns:officeooo="http://openoffice.org/2009/office"';

function odf(mime: string, body: string): Uint8Array {
  return zipSync({
    mimetype: [strToU8(mime), { level: 0 }],
    'content.xml': strToU8(`<?xml version="1.0" encoding="UTF-8"?><office:document-content ${NS}><office:body>${body}</office:body></office:document-content>`),
  });
}
const odt = (text: string): Uint8Array => odf('application/vnd.oasis.opendocument.text', `<office:text>${text}</office:text>`);

const annotation = (author: string, date: string, text: string, attrs = ''): string =>
  `<office:annotation${attrs}><dc:creator>${author}</dc:creator><dc:date>${date}</dc:date><meta:creator-initials>${author[0]}</meta:creator-initials><text:p>${text}</text:p></office:annotation>`;
const shape = (doc: Document): [string, string][] => doc.elements.map((e) => [e.kind, e.text]);

describe('ODT annotations', () => {
  const body =
    `<text:p>Revenue grew to ${annotation('Ann Lee', '2024-05-01T10:00:00.123', 'Is this final?', ' office:name="__Annotation__1_1" loext:resolved="true"')}` +
    `${annotation('Bo Chen', '2024-05-01T11:00:00', 'Yes.', ' office:name="__Annotation__2_2" loext:parent-name="__Annotation__1_1"')}4.2<text:s/>million<office:annotation-end office:name="__Annotation__1_1"/> last year.</text:p>` +
    `<table:table><table:table-row><table:table-cell><text:p>Source</text:p></table:table-cell><table:table-cell><text:p>internal${annotation('Cy', '2024-05-02T09:00:00', 'Name it.')}</text:p></table:table-cell></table:table-row>` +
    `<table:table-row><table:table-cell><text:p>Year</text:p></table:table-cell><table:table-cell><text:p>2023</text:p></table:table-cell></table:table-row></table:table>` +
    `<text:p>Point${`<office:annotation><dc:creator>Di</dc:creator><text:p>Line one</text:p><text:p>Line <text:s/>two</text:p></office:annotation>`} comment.</text:p>`;

  test('comments after their paragraph with author, time, range and thread; one in a table after the table', async () => {
    const doc = await parse(odt(body), { name: 'annotations.odt' });
    expect(shape(doc)).toEqual([
      ['paragraph', 'Revenue grew to 4.2 million last year.'],
      ['comment', 'Is this final?'],
      ['comment', 'Yes.'],
      ['table', 'Source\tinternal\nYear\t2023'],
      ['comment', 'Name it.'],
      ['paragraph', 'Point comment.'],
      // text:s is a space of its own (ODF collapses only the XML's whitespace).
      ['comment', 'Line one\nLine  two'],
    ]);
    expect(doc.elements.filter((e) => e.kind === 'comment').map((e) => e.comment)).toEqual([
      { author: 'Ann Lee', time: '2024-05-01T10:00:00.123', anchor: '4.2 million', resolved: true },
      { author: 'Bo Chen', time: '2024-05-01T11:00:00', reply: true },
      { author: 'Cy', time: '2024-05-02T09:00:00' },
      { author: 'Di' },
    ]);
    expect(doc.canonical).toContain('[Comment by Ann Lee, 2024-05-01 10:00, on "4.2 million", resolved] Is this final?\n[Reply by Bo Chen, 2024-05-01 11:00] Yes.');
    // The annotation's own text never leaks into the paragraph or the cell.
    expect(doc.elements[0]!.text).not.toContain('final');
  });

  test("comments: 'exclude'", async () => {
    const doc = await parse(odt(body), { name: 'annotations.odt', comments: 'exclude' });
    expect(doc.elements.map((e) => e.kind)).toEqual(['paragraph', 'table', 'paragraph']);
  });
});

describe('ODT tracked changes', () => {
  const info = '<office:change-info><dc:creator>Ann</dc:creator><dc:date>2024-05-01T10:00:00</dc:date></office:change-info>';
  const body =
    `<text:tracked-changes text:track-changes="true">` +
    `<text:changed-region xml:id="ct1" text:id="ct1"><text:insertion>${info}</text:insertion></text:changed-region>` +
    `<text:changed-region xml:id="ct2" text:id="ct2"><text:deletion>${info}<text:p>10</text:p></text:deletion></text:changed-region>` +
    `<text:changed-region xml:id="ct3" text:id="ct3"><text:insertion>${info}</text:insertion></text:changed-region>` +
    `<text:changed-region xml:id="ct4" text:id="ct4"><text:format-change>${info}</text:format-change></text:changed-region>` +
    `</text:tracked-changes>` +
    `<text:p>The fee is <text:change text:change-id="ct2"/><text:change-start text:change-id="ct1"/>12<text:change-end text:change-id="ct1"/> euros.</text:p>` +
    `<text:p>Intro <text:change-start text:change-id="ct3"/>added text</text:p><text:p>spanning two paragraphs<text:change-end text:change-id="ct3"/> done.</text:p>` +
    `<text:p><text:change-start text:change-id="ct4"/>Bold now<text:change-end text:change-id="ct4"/></text:p>`;

  test('the final text by default', async () => {
    const doc = await parse(odt(body), { name: 'tracked.odt' });
    expect(shape(doc)).toEqual([
      ['paragraph', 'The fee is 12 euros.'],
      ['paragraph', 'Intro added text'],
      ['paragraph', 'spanning two paragraphs done.'],
      ['paragraph', 'Bold now'],
    ]);
  });

  test("revisions: 'show' marks insertions (across paragraphs too) and puts deletions back; format changes are not marked", async () => {
    const doc = await parse(odt(body), { name: 'tracked.odt', revisions: 'show' });
    expect(shape(doc)).toEqual([
      ['paragraph', 'The fee is {-10-}{+12+} euros.'],
      ['paragraph', 'Intro {+added text+}'],
      ['paragraph', '{+spanning two paragraphs+} done.'],
      ['paragraph', 'Bold now'],
    ]);
  });
});

describe('ODS and ODP annotations', () => {
  test('a cell annotation is a comment on its cell after the table holding it', async () => {
    const c = (text: string, extra = ''): string => `<table:table-cell office:value-type="string">${extra}<text:p>${text}</text:p></table:table-cell>`;
    const body =
      '<office:spreadsheet><table:table table:name="Budget">' +
      `<table:table-row>${c('Item')}${c('Cost')}</table:table-row>` +
      `<table:table-row>${c('Rent')}${c('1200', annotation('Ann', '2024-01-02T03:04:05', 'Check <text:s text:c="2"/>the lease', ' office:name="n1"'))}</table:table-row>` +
      `<table:table-row><table:table-cell table:number-columns-repeated="3"/>${'<table:table-cell>' + annotation('Bo', '2024-01-03T00:00:00', 'On an empty cell', ' loext:parent-name="n1"') + '</table:table-cell>'}</table:table-row>` +
      '</table:table></office:spreadsheet>';
    const doc = await parse(odf('application/vnd.oasis.opendocument.spreadsheet', body), { name: 'budget.ods' });
    expect(shape(doc)).toEqual([
      ['heading', 'Budget'],
      ['table', 'Item\tCost\nRent\t1200'],
      ['comment', 'Check   the lease'],
      ['comment', 'On an empty cell'],
    ]);
    expect(doc.elements.filter((e) => e.kind === 'comment').map((e) => [e.comment, e.sheet])).toEqual([
      [{ author: 'Ann', time: '2024-01-02T03:04:05', cell: 'B2' }, 'Budget'],
      [{ author: 'Bo', time: '2024-01-03T00:00:00', cell: 'D3', reply: true }, 'Budget'],
    ]);
    // The annotation is not cell text.
    expect(doc.elements[1]!.table!.rows[1]![1]!.text).toBe('1200');
  });

  test('slide annotations (officeooo:annotation, office:annotation) follow the slide content and notes', async () => {
    const frame = (cls: string, y: string, text: string): string => `<draw:frame presentation:class="${cls}" svg:x="2cm" svg:y="${y}" svg:width="20cm" svg:height="3cm"><draw:text-box><text:p>${text}</text:p></draw:text-box></draw:frame>`;
    const page =
      `<draw:page draw:name="p1">${frame('title', '1cm', 'Plan')}${frame('outline', '5cm', 'Ship it')}<draw:rect svg:x="1cm" svg:y="9cm" svg:width="1cm" svg:height="1cm"/>` +
      `<officeooo:annotation svg:x="1cm" svg:y="1cm" svg:width="1cm" svg:height="1cm"><dc:creator>Ann</dc:creator><dc:date>2024-02-01T08:00:00</dc:date><text:p>Which date?</text:p></officeooo:annotation>` +
      `<presentation:notes>${frame('notes', '1cm', 'Speak slowly.')}</presentation:notes></draw:page>` +
      `<draw:page draw:name="p2">${frame('title', '1cm', 'Next')}<office:annotation><dc:creator>Bo</dc:creator><text:p>Add a chart</text:p></office:annotation></draw:page>`;
    const doc = await parse(odf('application/vnd.oasis.opendocument.presentation', `<office:presentation>${page}</office:presentation>`), { name: 'deck.odp' });
    expect(doc.elements.map((e) => [e.kind, e.text, e.slide])).toEqual([
      ['heading', 'Plan', 1],
      ['paragraph', 'Ship it', 1],
      ['paragraph', 'Notes: Speak slowly.', 1],
      ['comment', 'Which date?', 1],
      ['heading', 'Next', 2],
      ['comment', 'Add a chart', 2],
    ]);
    expect(doc.canonical).toContain('[Comment by Ann, 2024-02-01 08:00, on slide 1] Which date?');
  });
});
