import { strToU8, zipSync } from 'fflate';
import { beforeAll, describe, expect, test } from 'vitest';
import type { Document } from '../../src/document/types.js';
import { parse } from '../../src/parse.js';
import { docxParser } from '../../src/parsers/docx.js';
import { registerParser } from '../../src/parsers/registry.js';

beforeAll(() => registerParser(docxParser));

/**
 * Word's review layer and charts, in the shape Word 365 saves them: comments anchored by ranges,
 * threaded by commentsExtended.xml; tracked insertions, deletions, moves and deleted rows; a chart
 * drawn in the body (w:drawing -> c:chart r:id -> word/charts/chart1.xml).
 */

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml" xmlns:w15="http://schemas.microsoft.com/office/word/2012/wordml"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

function docx(body: string, parts: Record<string, string> = {}, extraRels = ''): Uint8Array {
  const files: Record<string, Uint8Array> = {
    '[Content_Types].xml': strToU8('<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'),
    '_rels/.rels': strToU8(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="word/document.xml"/></Relationships>`),
    'word/document.xml': strToU8(`<w:document ${W}><w:body>${body}</w:body></w:document>`),
    'word/_rels/document.xml.rels': strToU8(
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
        `<Relationship Id="rC" Type="${REL}/comments" Target="comments.xml"/>` +
        `<Relationship Id="rX" Type="http://schemas.microsoft.com/office/2011/relationships/commentsExtended" Target="commentsExtended.xml"/>${extraRels}</Relationships>`,
    ),
  };
  for (const [name, xml] of Object.entries(parts)) files[name] = strToU8(xml);
  return zipSync(files);
}

const run = (text: string): string => `<w:r><w:t xml:space="preserve">${text}</w:t></w:r>`;
const p = (...content: string[]): string => `<w:p>${content.join('')}</w:p>`;
const start = (id: number): string => `<w:commentRangeStart w:id="${id}"/>`;
const end = (id: number): string => `<w:commentRangeEnd w:id="${id}"/><w:r><w:rPr><w:rStyle w:val="CommentReference"/></w:rPr><w:commentReference w:id="${id}"/></w:r>`;
const comment = (id: number, author: string, date: string, paraId: string, ...paragraphs: string[]): string =>
  `<w:comment w:id="${id}" w:author="${author}" w:date="${date}" w:initials="${author[0]}">${paragraphs
    .map((text, i) => `<w:p w14:paraId="${i === paragraphs.length - 1 ? paraId : `${paraId}0${i}`}"><w:r><w:annotationRef/></w:r>${run(text)}</w:p>`)
    .join('')}</w:comment>`;
const cell = (...content: string[]): string => `<w:tc>${content.join('')}</w:tc>`;

const COMMENTS = `<w:comments ${W}>` +
  comment(0, 'Ann Lee', '2024-05-01T10:00:00Z', '1A000001', 'Is this the final figure?') +
  comment(1, 'Bo Chen', '2024-05-01T11:30:00Z', '1A000002', 'Yes, from the audited report.') +
  comment(2, 'Cy Dee', '2024-05-02T09:00:00Z', '1A000003', 'Name the source.', 'And the year.') +
  comment(3, 'Ann Lee', '2024-05-03T09:00:00Z', '1A000004', 'Lost its anchor.') +
  `</w:comments>`;
const EXTENDED = `<w15:commentsEx ${W}><w15:commentEx w15:paraId="1A000001" w15:done="1"/><w15:commentEx w15:paraId="1A000002" w15:paraIdParent="1A000001" w15:done="0"/><w15:commentEx w15:paraId="1A000003" w15:done="0"/><w15:commentEx w15:paraId="1A000004" w15:done="0"/></w15:commentsEx>`;

const commented = (): Uint8Array =>
  docx(
    p(run('Revenue grew to '), start(0), start(1), run('4.2 million'), end(0), end(1), run(' last year.')) +
      `<w:tbl><w:tr>${cell(p(run('Source')))}${cell(p(start(2), run('internal'), end(2)))}</w:tr><w:tr>${cell(p(run('Year')))}${cell(p(run('2023')))}</w:tr></w:tbl>` +
      p(run('Closing words.')),
    { 'word/comments.xml': COMMENTS, 'word/commentsExtended.xml': EXTENDED },
  );

const shape = (doc: Document): [string, string][] => doc.elements.map((e) => [e.kind, e.text]);

describe('DOCX comments', () => {
  test('a comment follows its paragraph with the commented text; its reply follows it; one in a table follows the table', async () => {
    const doc = await parse(commented(), { name: 'comments.docx' });
    expect(shape(doc)).toEqual([
      ['paragraph', 'Revenue grew to 4.2 million last year.'],
      ['comment', 'Is this the final figure?'],
      ['comment', 'Yes, from the audited report.'],
      ['table', 'Source\tinternal\nYear\t2023'],
      ['comment', 'Name the source.\nAnd the year.'],
      ['paragraph', 'Closing words.'],
      // No reference in the body: kept, at the end.
      ['comment', 'Lost its anchor.'],
    ]);
    const comments = doc.elements.filter((e) => e.kind === 'comment').map((e) => e.comment);
    expect(comments).toEqual([
      { author: 'Ann Lee', time: '2024-05-01T10:00:00Z', anchor: '4.2 million', resolved: true },
      { author: 'Bo Chen', time: '2024-05-01T11:30:00Z', reply: true },
      { author: 'Cy Dee', time: '2024-05-02T09:00:00Z', anchor: 'internal' },
      { author: 'Ann Lee', time: '2024-05-03T09:00:00Z' },
    ]);
    expect(doc.canonical).toContain(
      'Revenue grew to 4.2 million last year.\n\n[Comment by Ann Lee, 2024-05-01 10:00, on "4.2 million", resolved] Is this the final figure?\n[Reply by Bo Chen, 2024-05-01 11:30] Yes, from the audited report.\n\n| Source | internal |',
    );
  });

  test('a range over two paragraphs anchors on both texts; a long anchor is shortened in the label', async () => {
    const long = 'word '.repeat(30).trim();
    const bytes = docx(p(start(0), run('First part')) + p(run(long), end(0)), { 'word/comments.xml': `<w:comments ${W}>${comment(0, 'Ann', '2024-01-01T00:00:00Z', '2A', 'Both.')}</w:comments>` });
    const doc = await parse(bytes, { name: 'range.docx' });
    const el = doc.elements.find((e) => e.kind === 'comment')!;
    expect(el.comment!.anchor).toBe(`First part ${long}`);
    expect(doc.canonical.slice(el.start, el.end)).toBe(`[Comment by Ann, 2024-01-01 00:00, on "First part word word word word word word word word word…"] Both.`);
  });

  test("comments: 'exclude' leaves every comment out and nothing else", async () => {
    const doc = await parse(commented(), { name: 'comments.docx', comments: 'exclude' });
    expect(shape(doc)).toEqual([
      ['paragraph', 'Revenue grew to 4.2 million last year.'],
      ['table', 'Source\tinternal\nYear\t2023'],
      ['paragraph', 'Closing words.'],
    ]);
  });

  test('an invalid comments or revisions value is INVALID_OPTIONS', async () => {
    await expect(parse(commented(), { name: 'c.docx', comments: 'hide' as never })).rejects.toMatchObject({ code: 'INVALID_OPTIONS', message: 'comments must be include or exclude, got "hide"' });
    await expect(parse(commented(), { name: 'c.docx', revisions: 'all' as never })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
  });
});

const ins = (text: string): string => `<w:ins w:id="11" w:author="Ann" w:date="2024-05-01T10:00:00Z">${run(text)}</w:ins>`;
const del = (text: string): string => `<w:del w:id="12" w:author="Bo" w:date="2024-05-01T10:00:00Z"><w:r><w:delText xml:space="preserve">${text}</w:delText></w:r></w:del>`;
const TRACKED =
  p(run('The fee is '), del('10'), ins('12'), run(' euros.')) +
  // A whole deleted paragraph: its runs and its paragraph mark are deleted.
  `<w:p><w:pPr><w:rPr><w:del w:id="13" w:author="Bo" w:date="2024-05-01T10:00:00Z"/></w:rPr></w:pPr>${del('Obsolete clause.')}</w:p>` +
  // An inserted paragraph (its mark inserted too) and a move.
  `<w:p><w:pPr><w:rPr><w:ins w:id="14" w:author="Ann" w:date="2024-05-01T10:00:00Z"/></w:rPr></w:pPr>${ins('New clause.')}</w:p>` +
  p(`<w:moveFromRangeStart w:id="15" w:name="move1"/><w:moveFrom w:id="16" w:author="Ann">${run('Moved sentence.')}</w:moveFrom><w:moveFromRangeEnd w:id="15"/>`, run('Stays.')) +
  p(run('Here: '), `<w:moveToRangeStart w:id="17" w:name="move1"/><w:moveTo w:id="18" w:author="Ann">${run('Moved sentence.')}</w:moveTo><w:moveToRangeEnd w:id="17"/>`) +
  `<w:tbl><w:tr>${cell(p(run('Item')))}${cell(p(run('Price')))}</w:tr>` +
  `<w:tr><w:trPr><w:del w:id="19" w:author="Bo" w:date="2024-05-01T10:00:00Z"/></w:trPr>${cell(p(del('Old')))}${cell(p(del('5')))}</w:tr>` +
  `<w:tr>${cell(p(run('New')))}${cell(p(run('7')))}</w:tr></w:tbl>` +
  // A deleted field code never shows.
  p(run('Page '), `<w:del w:id="20" w:author="Bo"><w:r><w:delInstrText> PAGE </w:delInstrText></w:r></w:del>`, run('end'));

describe('DOCX tracked changes', () => {
  test('the final text by default: insertions in, deletions and moved-away text out, deleted rows gone', async () => {
    const doc = await parse(docx(TRACKED), { name: 'tracked.docx' });
    expect(shape(doc)).toEqual([
      ['paragraph', 'The fee is 12 euros.'],
      ['paragraph', 'New clause.'],
      ['paragraph', 'Stays.'],
      ['paragraph', 'Here: Moved sentence.'],
      ['table', 'Item\tPrice\nNew\t7'],
      ['paragraph', 'Page end'],
    ]);
  });

  test("revisions: 'show' marks both sides: {+inserted+} and {-deleted-}, moves at both ends, deleted rows kept", async () => {
    const doc = await parse(docx(TRACKED), { name: 'tracked.docx', revisions: 'show' });
    expect(shape(doc)).toEqual([
      ['paragraph', 'The fee is {-10-}{+12+} euros.'],
      ['paragraph', '{-Obsolete clause.-}'],
      ['paragraph', '{+New clause.+}'],
      ['paragraph', '{-Moved sentence.-}Stays.'],
      ['paragraph', 'Here: {+Moved sentence.+}'],
      ['table', 'Item\tPrice\n{-Old-}\t{-5-}\nNew\t7'],
      ['paragraph', 'Page end'],
    ]);
  });

  test('an insertion holding a text box whose paragraph mark is inserted stays one mark', async () => {
    const box = `<w:r><w:drawing><wp:anchor><wp:docPr id="3" name="Text Box 3"/><w:txbxContent><w:p><w:pPr><w:rPr><w:ins w:id="31" w:author="Ann"/></w:rPr></w:pPr>${run('inside')}</w:p></w:txbxContent></wp:anchor></w:drawing></w:r>`;
    const bytes = docx(p(`<w:ins w:id="30" w:author="Ann">${run('Boxed ')}${box}${run('after')}</w:ins>`));
    expect(shape(await parse(bytes, { name: 'box.docx', revisions: 'show' }))).toEqual([
      ['paragraph', '{+Boxed after+}'],
      ['paragraph', 'inside'],
    ]);
  });

  test('tracked changes inside a comment follow the same rule', async () => {
    const comments = `<w:comments ${W}><w:comment w:id="0" w:author="Ann"><w:p>${run('Use ')}${del('old')}${ins('new')}${run(' wording')}</w:p></w:comment></w:comments>`;
    const bytes = docx(p(start(0), run('Text'), end(0)), { 'word/comments.xml': comments });
    expect((await parse(bytes, { name: 'c.docx' })).elements[1]!.text).toBe('Use new wording');
    expect((await parse(bytes, { name: 'c.docx', revisions: 'show' })).elements[1]!.text).toBe('Use {-old-}{+new+} wording');
  });
});

const CHART = `<c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><c:chart>` +
  `<c:title><c:tx><c:rich><a:p><a:r><a:t>Share of votes</a:t></a:r></a:p></c:rich></c:tx></c:title><c:plotArea><c:pieChart>` +
  `<c:ser><c:tx><c:strRef><c:strCache><c:pt idx="0"><c:v>Votes</c:v></c:pt></c:strCache></c:strRef></c:tx>` +
  `<c:cat><c:strRef><c:strCache><c:pt idx="0"><c:v>Yes</c:v></c:pt><c:pt idx="1"><c:v>No</c:v></c:pt></c:strCache></c:strRef></c:cat>` +
  `<c:val><c:numRef><c:numCache><c:formatCode>General</c:formatCode><c:pt idx="0"><c:v>61</c:v></c:pt><c:pt idx="1"><c:v>39</c:v></c:pt></c:numCache></c:numRef></c:val></c:ser>` +
  `</c:pieChart></c:plotArea></c:chart></c:chartSpace>`;
const chartDrawing = (id: string, alt = ''): string =>
  `<w:r><w:drawing><wp:inline><wp:extent cx="5486400" cy="3200400"/><wp:docPr id="1" name="Chart 1"${alt ? ` descr="${alt}"` : ''}/>` +
  `<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart">` +
  `<c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" r:id="${id}"/></a:graphicData></a:graphic></wp:inline></w:drawing></w:r>`;

describe('DOCX charts', () => {
  test('a chart in the body becomes its caption and table after the paragraph holding it; in a table, after the table', async () => {
    const bytes = docx(
      p(run('The vote:'), chartDrawing('rCh')) + `<w:tbl><w:tr>${cell(p(chartDrawing('rCh')))}${cell(p(run('beside')))}</w:tr><w:tr>${cell(p(run('a')))}${cell(p(run('b')))}</w:tr></w:tbl>`,
      { 'word/charts/chart1.xml': CHART },
      `<Relationship Id="rCh" Type="${REL}/chart" Target="charts/chart1.xml"/>`,
    );
    const doc = await parse(bytes, { name: 'chart.docx' });
    expect(shape(doc)).toEqual([
      ['paragraph', 'The vote:'],
      ['caption', 'Pie chart: Share of votes'],
      ['table', '\tVotes\nYes\t61\nNo\t39'],
      ['table', '\tbeside\na\tb'],
      ['caption', 'Pie chart: Share of votes'],
      ['table', '\tVotes\nYes\t61\nNo\t39'],
    ]);
    expect(doc.warnings).toEqual([]);
  });

  test('a chart whose part is missing keeps its alt text as an image, with a warning', async () => {
    const doc = await parse(docx(p(run('Figure'), chartDrawing('rNone', 'Vote shares'))), { name: 'chart.docx' });
    expect(shape(doc)).toEqual([['paragraph', 'Figure'], ['image', '']]);
    expect(doc.elements[1]!.alt).toBe('Vote shares');
    expect(doc.warnings).toEqual(["a chart's part (relationship rNone) is missing from the package; its alt text is kept instead"]);
  });
});
