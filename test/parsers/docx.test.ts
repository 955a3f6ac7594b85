import { readFileSync } from 'node:fs';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, test } from 'vitest';
import type { Document } from '../../src/document/types.js';
import { GroundworkError } from '../../src/errors.js';
import { parse } from '../../src/parse.js';
import { docxParser } from '../../src/parsers/docx.js';
import { registerParser } from '../../src/parsers/registry.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';
import { cellAgreement, markdownHeadings, markdownTables, sequenceF1, tokenF1 } from './similarity.js';

registerParser(docxParser);

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

const p = (text: string, props = ''): string => `<w:p>${props ? `<w:pPr>${props}</w:pPr>` : ''}<w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;
const styled = (style: string, text: string): string => p(text, `<w:pStyle w:val="${style}"/>`);
const listed = (numId: number, ilvl: number, text: string): string => p(text, `<w:numPr><w:ilvl w:val="${ilvl}"/><w:numId w:val="${numId}"/></w:numPr>`);
const cell = (text: string, props = ''): string => `<w:tc>${props ? `<w:tcPr>${props}</w:tcPr>` : ''}${p(text)}</w:tc>`;

function docx(body: string, parts: Record<string, string> = {}): Uint8Array {
  const files: Record<string, Uint8Array> = {
    '[Content_Types].xml': strToU8('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'),
    '_rels/.rels': strToU8(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="word/document.xml"/></Relationships>`),
    'word/document.xml': strToU8(`<?xml version="1.0" encoding="UTF-8"?><w:document ${W}><w:body>${body}</w:body></w:document>`),
    'word/_rels/document.xml.rels': strToU8(
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
        `<Relationship Id="rS" Type="${REL}/styles" Target="styles.xml"/><Relationship Id="rN" Type="${REL}/numbering" Target="numbering.xml"/>` +
        `<Relationship Id="rF" Type="${REL}/footnotes" Target="footnotes.xml"/><Relationship Id="rC" Type="${REL}/comments" Target="comments.xml"/>` +
        `<Relationship Id="rH" Type="${REL}/header" Target="header1.xml"/><Relationship Id="rFt" Type="${REL}/footer" Target="footer1.xml"/>` +
        `<Relationship Id="rL" Type="${REL}/hyperlink" Target="https://example.com/x" TargetMode="External"/></Relationships>`,
    ),
  };
  for (const [name, xml] of Object.entries(parts)) files[name] = strToU8(xml);
  return zipSync(files);
}

const STYLES = `<w:styles ${W}>
<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style>
<w:style w:type="paragraph" w:styleId="1"><w:name w:val="标题 1"/></w:style>
<w:style w:type="paragraph" w:styleId="berschrift2"><w:name w:val="Überschrift 2"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading3"><w:name w:val="heading 3"/><w:pPr><w:outlineLvl w:val="2"/></w:pPr></w:style>
<w:style w:type="paragraph" w:customStyle="1" w:styleId="MyHeading"><w:name w:val="My Fancy Heading"/><w:basedOn w:val="Heading3"/></w:style>
<w:style w:type="paragraph" w:customStyle="1" w:styleId="Bulleted"><w:name w:val="Bulleted"/><w:pPr><w:numPr><w:numId w:val="2"/></w:numPr></w:pPr></w:style>
<w:style w:type="paragraph" w:customStyle="1" w:styleId="SourceCode"><w:name w:val="Source Code"/><w:rPr><w:rFonts w:ascii="Consolas" w:hAnsi="Consolas"/></w:rPr></w:style>
</w:styles>`;

const NUMBERING = `<w:numbering ${W}>
<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl><w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="%2)"/></w:lvl></w:abstractNum>
<w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/><w:lvlText w:val="•"/></w:lvl><w:lvl w:ilvl="1"><w:numFmt w:val="bullet"/><w:lvlText w:val="o"/></w:lvl></w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>
<w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>
<w:num w:numId="3"><w:abstractNumId w:val="0"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride></w:num>
</w:numbering>`;

const BODY = [
  styled('Title', 'The Title'),
  styled('1', '第一章 安装'),
  p('Intro paragraph.'),
  `<w:p><w:r><w:t xml:space="preserve">See </w:t></w:r><w:hyperlink r:id="rL"><w:r><w:t>the site</w:t></w:r></w:hyperlink><w:r><w:t>.</w:t></w:r><w:r><w:footnoteReference w:id="2"/></w:r><w:r><w:commentReference w:id="0"/></w:r></w:p>`,
  styled('berschrift2', 'Zweiter Abschnitt'),
  styled('MyHeading', 'Custom based on heading 3'),
  listed(1, 0, 'first'),
  listed(1, 1, 'sub a'),
  listed(1, 1, 'sub b'),
  listed(1, 0, 'second'),
  styled('Bulleted', 'bullet from style'),
  listed(2, 1, 'nested bullet'),
  listed(3, 0, 'restarted'),
  `<w:tbl><w:tr><w:trPr><w:tblHeader/></w:trPr>${cell('H1')}${cell('H2')}${cell('H3')}</w:tr>` +
    `<w:tr>${cell('wide', '<w:gridSpan w:val="2"/>')}${cell('tall', '<w:vMerge w:val="restart"/>')}</w:tr>` +
    `<w:tr>${cell('x')}<w:tc><w:tbl><w:tr>${cell('in1')}${cell('in2')}</w:tr><w:tr>${cell('in3')}${cell('in4')}</w:tr></w:tbl>${p('')}</w:tc>${cell('', '<w:vMerge/>')}</w:tr></w:tbl>`,
  `<w:p><w:r><w:drawing><wp:inline><wp:docPr id="1" name="Picture 1" descr="A chart of sales"/></wp:inline></w:drawing></w:r></w:p>`,
  `<w:p><w:r><w:t>Anchor</w:t></w:r><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><w:txbxContent>${p('Inside the text box')}</w:txbxContent></w:drawing></mc:Choice><mc:Fallback><w:pict><w:txbxContent>${p('Inside the text box')}</w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>`,
  styled('SourceCode', 'print(1)'),
  styled('SourceCode', 'print(2)'),
  `<w:p><w:r><w:t>kept</w:t></w:r><w:del><w:r><w:delText>deleted</w:delText></w:r></w:del><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>PAGE</w:instrText></w:r><w:r><w:t xml:space="preserve"> text</w:t></w:r></w:p>`,
].join('');

const PARTS = {
  'word/styles.xml': STYLES,
  'word/numbering.xml': NUMBERING,
  'word/footnotes.xml': `<w:footnotes ${W}><w:footnote w:type="separator" w:id="-1">${p('----')}</w:footnote><w:footnote w:id="2">${p('A footnote body.')}</w:footnote></w:footnotes>`,
  'word/comments.xml': `<w:comments ${W}><w:comment w:id="0" w:author="Ann">${p('Check this.')}</w:comment></w:comments>`,
  'word/header1.xml': `<w:hdr ${W}>${p('Running header')}</w:hdr>`,
  'word/footer1.xml': `<w:ftr ${W}>${p('Page footer')}</w:ftr>`,
  'docProps/core.xml': `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/"><dc:title>Props title</dc:title><dc:creator>Bo</dc:creator><cp:keywords>a, b</cp:keywords><dcterms:created>2024-01-02T03:04:05Z</dcterms:created></cp:coreProperties>`,
  'docProps/app.xml': `<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Pages>3</Pages><Application>Word</Application></Properties>`,
};

describe('DOCX parser (inline fixture)', async () => {
  const doc = await parse(docx(BODY, PARTS), { name: 'fixture.docx' });
  const kinds = (kind: string) => doc.elements.filter((e) => e.kind === kind);

  test('headings: Title, localized names, outline levels, custom styles based on headings', () => {
    expect(kinds('heading').map((e) => [e.level, e.text])).toEqual([
      [1, 'The Title'],
      [1, '第一章 安装'],
      [2, 'Zweiter Abschnitt'],
      [3, 'Custom based on heading 3'],
    ]);
  });

  test('lists: levels, numbers, letter labels, bullets from a style, restarts', () => {
    expect(kinds('list-item').map((e) => [e.depth, e.ordered, e.number, e.text])).toEqual([
      [0, true, 1, 'first'],
      [1, false, undefined, 'a) sub a'],
      [1, false, undefined, 'b) sub b'],
      [0, true, 2, 'second'],
      [0, false, undefined, 'bullet from style'],
      [1, false, undefined, 'nested bullet'],
      [0, true, 1, 'restarted'],
    ]);
  });

  test('tables: header row, gridSpan -> colSpan, vMerge -> rowSpan, nested table flattened into its cell', () => {
    const [table] = kinds('table');
    expect(table!.table!.headerRows).toBe(1);
    expect(table!.table!.rows).toEqual([
      [{ text: 'H1' }, { text: 'H2' }, { text: 'H3' }],
      [{ text: 'wide', colSpan: 2 }, { text: '' }, { text: 'tall', rowSpan: 2 }],
      [{ text: 'x' }, { text: 'in1 | in2\nin3 | in4' }, { text: 'tall' }],
    ]);
  });

  test('hyperlinks, footnotes and comments', () => {
    expect(doc.metadata.hyperlinks).toEqual([{ text: 'the site', url: 'https://example.com/x' }]);
    expect(kinds('paragraph').map((e) => e.text)).toContain('See the site.[1]');
    const notes = kinds('footnote').map((e) => e.text);
    expect(notes).toEqual(['[1] A footnote body.']);
    expect(kinds('comment').map((e) => [e.text, e.comment])).toEqual([['Check this.', { author: 'Ann' }]]);
    // Notes and comments follow the paragraph citing them.
    const cite = doc.elements.findIndex((e) => e.text === 'See the site.[1]');
    expect(doc.elements.slice(cite + 1, cite + 3).map((e) => e.kind)).toEqual(['footnote', 'comment']);
  });

  test('images by alt text, text boxes once (mc:Fallback ignored), code, deleted text and field codes dropped', () => {
    expect(kinds('image').map((e) => e.alt)).toEqual(['A chart of sales']);
    expect(doc.elements.filter((e) => e.text === 'Inside the text box')).toHaveLength(1);
    const anchor = doc.elements.findIndex((e) => e.text === 'Anchor');
    expect(doc.elements[anchor + 1]!.text).toBe('Inside the text box');
    expect(kinds('code').map((e) => e.text)).toEqual(['print(1)\nprint(2)']);
    expect(kinds('paragraph').map((e) => e.text)).toContain('kept text');
    expect(doc.canonical).not.toContain('deleted');
    expect(doc.canonical).not.toContain('PAGE');
  });

  test('headers/footers are page furniture; properties are metadata', () => {
    expect(kinds('page-furniture').map((e) => e.text)).toEqual(['Running header', 'Page footer']);
    expect(doc.canonical).not.toContain('Running header');
    expect(doc.title).toBe('Props title');
    expect(doc.pageCount).toBe(3);
    expect(doc.metadata).toMatchObject({ title: 'Props title', author: 'Bo', keywords: 'a, b', created: '2024-01-02T03:04:05Z', application: 'Word', pages: 3 });
  });

  test('a package without a main document part is CORRUPT', async () => {
    const notWord = zipSync({ 'a.txt': strToU8('hello') });
    await expect(parse(notWord, { format: 'docx', name: 'x.docx' })).rejects.toMatchObject({ code: 'CORRUPT' });
  });
});

async function codeOf(path: string): Promise<string | undefined> {
  try {
    await parse(path);
  } catch (error) {
    expect(error).toBeInstanceOf(GroundworkError);
    return (error as GroundworkError).code;
  }
  return undefined;
}

/** Our table with column-spanned slots filled with the spanning text, as docling renders them. */
function expandColSpans(doc: Document): string[][][] {
  return doc.elements
    .filter((e) => e.kind === 'table')
    .map((e) => e.table!.rows.map((row) => {
      const out: string[] = [];
      row.forEach((c, i) => {
        const spanner = [...row.slice(0, i)].reverse().find((x, k) => x.colSpan !== undefined && x.colSpan > k + 1);
        out.push(c.text === '' && spanner ? spanner.text : c.text);
      });
      return out;
    }));
}

const listLines = (md: string): string[] => md.split('\n').filter((l) => /^\s*(?:[-*]|\d+\.)\s/.test(l)).map((l) => l.replace(/^\s*(?:[-*]|\d+\.)\s+/, ''));

describe.skipIf(!hasShared)(`DOCX parser on the corpus${hasShared ? '' : ` (${sharedSkipReason})`}`, () => {
  /**
   * Docling Markdown ground truth. Measures (test/parsers/similarity.ts): text = token F1 of our
   * canonical text vs the Markdown; headings and list items = LCS F1 of normalised texts; tables =
   * share of expected cells equal at the same position. Thresholds sit just under what the parser
   * reaches, so a regression fails. Where they are below 1 the ground truth differs by design:
   * docling renumbers "2.0.1" headings as "2.1.1". Equations are LaTeX in both (their agreement is
   * measured equation by equation in test/parsers/equations.test.ts).
   */
  test.each([
    ['docx_lists.docx', { text: 0.99, headings: 0.99, lists: 0.99 }],
    ['unit_test_headers_numbered.docx', { text: 0.9, headings: 0.75, lists: 0.2 }],
    ['word_tables.docx', { text: 0.95, headings: 0.99, lists: 0.99, cells: 0.99 }],
    ['docx_code_blocks.docx', { text: 0.99, headings: 0.99, lists: 0.99 }],
    ['equations.docx', { text: 0.98, headings: 0.99 }],
    ['docx_page_header_footer_first_page.docx', { text: 0.99, headings: 0.99 }],
  ] as const)('%s matches docling: %o', async (name, min) => {
    const doc = await parse(corpus('docx', name));
    const md = readFileSync(corpus('docx', `${name}.expected.md`), 'utf8');
    expect(tokenF1(doc.canonical, md).f1).toBeGreaterThanOrEqual(min.text);
    expect(sequenceF1(doc.elements.filter((e) => e.kind === 'heading').map((e) => e.text), markdownHeadings(md)).f1).toBeGreaterThanOrEqual(min.headings);
    if ('lists' in min) expect(sequenceF1(doc.elements.filter((e) => e.kind === 'list-item').map((e) => e.text), listLines(md)).f1).toBeGreaterThanOrEqual(min.lists);
    if ('cells' in min) {
      const ours = expandColSpans(doc);
      markdownTables(md).forEach((expected, i) => expect(cellAgreement(ours[i] ?? [], expected), `table ${i}`).toBeGreaterThanOrEqual(min.cells));
    }
  });

  test('calibre-demo.docx: text matches the officeParser baseline (token F1 >= 0.95), 6 tables, notes after their paragraph', async () => {
    const doc = await parse(corpus('docx', 'calibre-demo.docx'));
    expect(tokenF1(doc.canonical, readFileSync(corpus('docx', 'calibre-demo.docx.expected.txt'), 'utf8')).f1).toBeGreaterThanOrEqual(0.95);
    expect(doc.elements.filter((e) => e.kind === 'table').length).toBeGreaterThanOrEqual(5);
    expect(doc.elements.filter((e) => e.kind === 'footnote').map((e) => e.text.slice(0, 4))).toEqual(['[1] ', '[i] ']);
  });

  test('Chinese: test11_zh.docx body (token F1 = 1), ocr_test_zh.docx table cells and image alt', async () => {
    const zh = await parse(corpus('docx', 'test11_zh.docx'));
    const expected = JSON.parse(readFileSync(corpus('docx', 'test11_zh.docx.expected.json'), 'utf8')) as { body: string };
    expect(tokenF1(zh.canonical, expected.body).f1).toBe(1);
    const ocr = await parse(corpus('docx', 'ocr_test_zh.docx'));
    expect(ocr.elements.find((e) => e.kind === 'table')!.table!.rows.flat().map((c) => c.text)).toEqual(['我是表格1', '我是表格2', '我是表格3', '我是表格4']);
    expect(ocr.canonical).toContain('我是文字');
  });

  test('handbook-1p.docx: the unstructured element texts (token F1 = 1), header/footer as furniture', async () => {
    const doc = await parse(corpus('docx', 'handbook-1p.docx'));
    const expected = JSON.parse(readFileSync(corpus('docx', 'handbook-1p.docx.expected.json'), 'utf8')) as { type: string; text: string }[];
    const body = expected.filter((e) => e.type !== 'Header' && e.type !== 'Footer').map((e) => e.text).join('\n');
    expect(tokenF1(doc.canonical, body).f1).toBe(1);
    expect(doc.elements.filter((e) => e.kind === 'page-furniture').map((e) => e.text)).toEqual(['US Trustee Handbook', 'Copyright']);
  });

  test('docx-hdrftr.docx: header and footer parts (with tables) are furniture; footnotes.docx notes', async () => {
    const doc = await parse(corpus('docx', 'docx-hdrftr.docx'));
    expect(doc.canonical).toBe('Main document');
    expect(doc.elements.filter((e) => e.kind === 'page-furniture').map((e) => e.text)).toContain('Table cell1 | Table cell2');
    const notes = await parse(corpus('docx', 'footnotes.docx'));
    expect(notes.elements.filter((e) => e.kind === 'footnote').map((e) => e.text)).toEqual(['[1] A tachyon walks into a bar.', '[2] Fin.']);
  });

  test.each([
    ['adversarial/oversized_archive.docx', 'LIMIT_EXCEEDED'],
    ['adversarial/large_size_archive.docx', 'LIMIT_EXCEEDED'],
    ['adversarial/many_entries_archive.docx', 'LIMIT_EXCEEDED'],
    ['adversarial/testWORD_truncated.docx', 'CORRUPT'],
    ['adversarial/testWORD_protected_passtika.docx', 'ENCRYPTED'],
  ])('%s is refused with %s in bounded memory', async (path, code) => {
    const before = process.memoryUsage().rss;
    expect(await codeOf(corpus(path))).toBe(code);
    expect(process.memoryUsage().rss - before).toBeLessThan(300 * 1024 * 1024);
  });

  test('a DOCX misnamed .doc is parsed by content (eng_spa_mult.doc)', async () => {
    const doc = await parse(corpus('adversarial', 'eng_spa_mult.doc'));
    expect(doc.format).toBe('docx');
    expect(doc.elements.length).toBeGreaterThan(0);
  });
});
