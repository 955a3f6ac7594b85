import { readdirSync, readFileSync } from 'node:fs';
import { zipSync, strToU8 } from 'fflate';
import { beforeAll, describe, expect, test } from 'vitest';
import { parse } from '../../src/parse.js';
import { registerParser } from '../../src/parsers/registry.js';
import { pptxParser, readingOrder } from '../../src/parsers/pptx.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';
import { cellAgreement, markdownHeadings, markdownTables, orderF1, sequenceF1, tokenF1 } from './similarity.js';

beforeAll(() => registerParser(pptxParser));

const NS = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

function rels(list: [string, string, string][]): string {
  return `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${list.map(([id, type, target]) => `<Relationship Id="${id}" Type="${REL}/${type}" Target="${target}"/>`).join('')}</Relationships>`;
}

function sp(body: string, options: { ph?: string; x?: number; y?: number; name?: string } = {}): string {
  const ph = options.ph ? `<p:nvPr><p:ph ${options.ph}/></p:nvPr>` : '<p:nvPr/>';
  const xfrm = options.y !== undefined ? `<a:xfrm><a:off x="${options.x ?? 0}" y="${options.y}"/><a:ext cx="100" cy="100"/></a:xfrm>` : '';
  return `<p:sp><p:nvSpPr><p:cNvPr id="2" name="${options.name ?? 'Shape'}"/><p:cNvSpPr/>${ph}</p:nvSpPr><p:spPr>${xfrm}</p:spPr><p:txBody><a:bodyPr/>${body}</p:txBody></p:sp>`;
}

function para(text: string, pPr = ''): string {
  return `<a:p>${pPr}<a:r><a:t>${text}</a:t></a:r></a:p>`;
}

function slide(shapes: string): string {
  return `<?xml version="1.0"?><p:sld ${NS}><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>${shapes}</p:spTree></p:cSld></p:sld>`;
}

/** A two-slide deck whose slide files are named in the opposite order of the presentation. */
function deck(): Uint8Array {
  const first = slide(
    sp(para('Quarterly Review'), { ph: 'type="ctrTitle"' }) +
      sp(para('Prepared by the finance team'), { ph: 'type="subTitle" idx="1"', y: 3000 }),
  );
  const table =
    '<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="5" name="Table"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><p:xfrm><a:off x="0" y="5000"/><a:ext cx="10" cy="10"/></p:xfrm>' +
    '<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl><a:tblPr firstRow="1"/><a:tblGrid><a:gridCol w="1"/><a:gridCol w="1"/><a:gridCol w="1"/></a:tblGrid>' +
    `<a:tr h="1"><a:tc gridSpan="2"><a:txBody>${para('Region')}</a:txBody></a:tc><a:tc hMerge="1"><a:txBody><a:p/></a:txBody></a:tc><a:tc><a:txBody>${para('Sales')}</a:txBody></a:tc></a:tr>` +
    `<a:tr h="1"><a:tc rowSpan="2"><a:txBody>${para('EU')}</a:txBody></a:tc><a:tc><a:txBody>${para('North')}</a:txBody></a:tc><a:tc><a:txBody>${para('10')}</a:txBody></a:tc></a:tr>` +
    `<a:tr h="1"><a:tc vMerge="1"><a:txBody><a:p/></a:txBody></a:tc><a:tc><a:txBody>${para('South')}</a:txBody></a:tc><a:tc><a:txBody>${para('12')}</a:txBody></a:tc></a:tr>` +
    '</a:tbl></a:graphicData></a:graphic></p:graphicFrame>';
  const group =
    '<p:grpSp><p:nvGrpSpPr><p:cNvPr id="8" name="Group"/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr><a:xfrm><a:off x="0" y="7000"/><a:ext cx="200" cy="200"/><a:chOff x="0" y="0"/><a:chExt cx="200" cy="200"/></a:xfrm></p:grpSpPr>' +
    sp(para('grouped right'), { x: 150, y: 10 }) +
    sp(para('grouped left'), { x: 0, y: 10 }) +
    '</p:grpSp>';
  const picture = '<p:pic><p:nvPicPr><p:cNvPr id="9" name="Picture 3" descr="Bar chart of sales by region"/><p:cNvPicPr/><p:nvPr/></p:nvPicPr><p:blipFill/><p:spPr><a:xfrm><a:off x="0" y="9000"/><a:ext cx="1" cy="1"/></a:xfrm></p:spPr></p:pic>';
  const second = slide(
    // z-order puts the lower text box first; reading order must not.
    sp(para('Closing remark below the list'), { y: 4000, name: 'TextBox' }) +
      sp(
        para('Growth drivers') +
          para('Pricing', '<a:pPr lvl="1"/>') +
          para('Volume', '<a:pPr lvl="1"/>') +
          para('Steps', '<a:pPr><a:buNone/></a:pPr>') +
          para('Plan', '<a:pPr><a:buAutoNum type="arabicPeriod"/></a:pPr>') +
          para('Execute', '<a:pPr><a:buAutoNum type="arabicPeriod"/></a:pPr>'),
        { ph: 'idx="1"', y: 1000 },
      ) +
      sp(para('Results'), { ph: 'type="title"' }) +
      sp(para('7'), { ph: 'type="sldNum" idx="12"', y: 9500 }) +
      table +
      group +
      picture,
  );
  const notes = `<?xml version="1.0"?><p:notes ${NS}><p:cSld><p:spTree>${sp(para('slide image'), { ph: 'type="sldImg"' })}${sp(para('Mention the EU split.') + para('Keep it short.'), { ph: 'type="body" idx="1"' })}</p:spTree></p:cSld></p:notes>`;
  return zipSync({
    '[Content_Types].xml': strToU8('<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'),
    '_rels/.rels': strToU8(rels([['rId1', 'officeDocument', 'ppt/presentation.xml']])),
    'ppt/presentation.xml': strToU8(`<p:presentation ${NS}><p:sldIdLst><p:sldId id="256" r:id="rId7"/><p:sldId id="257" r:id="rId3"/></p:sldIdLst><p:sldSz cx="12192000" cy="6858000"/></p:presentation>`),
    'ppt/_rels/presentation.xml.rels': strToU8(rels([['rId3', 'slide', 'slides/slide1.xml'], ['rId7', 'slide', 'slides/slide2.xml']])),
    'ppt/slides/slide2.xml': strToU8(first),
    'ppt/slides/slide1.xml': strToU8(second),
    'ppt/slides/_rels/slide1.xml.rels': strToU8(rels([['rId2', 'notesSlide', '../notesSlides/notesSlide1.xml']])),
    'ppt/notesSlides/notesSlide1.xml': strToU8(notes),
    'docProps/core.xml': strToU8('<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>Ada</dc:creator></cp:coreProperties>'),
  });
}

const SCALE = { sameLine: 30, minGutter: 5, minBand: 5 };

function box(id: string, [x, y, width, height]: [number, number, number, number]): { id: string; x: number; y: number; width: number; height: number } {
  return { id, x, y, width, height };
}

function ids(shapes: readonly { id: string }[]): string[] {
  return shapes.map((s) => s.id);
}

/**
 * One "Content with Caption" slide: the title top left, the caption body placeholder with no
 * position of its own (the layout puts it under the title), a table on the right from the top,
 * all over a background rectangle.
 */
function captionDeck(): Uint8Array {
  const frame = (x: number, y: number, cx: number, cy: number): string => `<a:xfrm><a:off x="${x}" y="${y}"/><a:ext cx="${cx}" cy="${cy}"/></a:xfrm>`;
  const placeholder = (ph: string, spPr: string, body: string): string =>
    `<p:sp><p:nvSpPr><p:cNvPr id="3" name="Placeholder"/><p:cNvSpPr/><p:nvPr><p:ph ${ph}/></p:nvPr></p:nvSpPr><p:spPr>${spPr}</p:spPr><p:txBody><a:bodyPr/>${body}</p:txBody></p:sp>`;
  const layout = `<?xml version="1.0"?><p:sldLayout ${NS}><p:cSld><p:spTree>${placeholder('type="title"', frame(457201, 204787, 3008313, 871538), '')}${placeholder('type="body" sz="half" idx="2"', frame(457201, 1076326, 3008313, 3518297), '')}</p:spTree></p:cSld></p:sldLayout>`;
  const table =
    `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="6" name="Table"/><p:cNvGraphicFramePr/><p:nvPr><p:ph idx="1"/></p:nvPr></p:nvGraphicFramePr><p:xfrm><a:off x="3568700" y="203200"/><a:ext cx="5105400" cy="4381500"/></p:xfrm>` +
    `<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl><a:tblGrid><a:gridCol w="1"/><a:gridCol w="1"/></a:tblGrid>` +
    `<a:tr h="1"><a:tc><a:txBody>${para('Role')}</a:txBody></a:tc><a:tc><a:txBody>${para('CPU')}</a:txBody></a:tc></a:tr>` +
    `<a:tr h="1"><a:tc><a:txBody>${para('Gateway')}</a:txBody></a:tc><a:tc><a:txBody>${para('4 cores')}</a:txBody></a:tc></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>`;
  // A background rectangle without text over the whole slide must not hide the gutter.
  const background = `<p:sp><p:nvSpPr><p:cNvPr id="7" name="Background"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:spPr>${frame(0, 0, 9144000, 5143500)}</p:spPr><p:txBody><a:bodyPr/><a:p/></p:txBody></p:sp>`;
  const slideXml = slide(
    background +
      placeholder('type="title"', frame(457201, 204787, 3008313, 871538), para('Hardware')) +
      placeholder('type="body" sz="half" idx="2"', '', para('Check the nodes against the table.', '<a:pPr><a:buNone/></a:pPr>')) +
      table,
  );
  return zipSync({
    '[Content_Types].xml': strToU8('<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'),
    '_rels/.rels': strToU8(rels([['rId1', 'officeDocument', 'ppt/presentation.xml']])),
    'ppt/presentation.xml': strToU8(`<p:presentation ${NS}><p:sldIdLst><p:sldId id="256" r:id="rId2"/></p:sldIdLst><p:sldSz cx="9144000" cy="5143500"/></p:presentation>`),
    'ppt/_rels/presentation.xml.rels': strToU8(rels([['rId2', 'slide', 'slides/slide1.xml']])),
    'ppt/slides/slide1.xml': strToU8(slideXml),
    'ppt/slides/_rels/slide1.xml.rels': strToU8(rels([['rId1', 'slideLayout', '../slideLayouts/slideLayout8.xml']])),
    'ppt/slideLayouts/slideLayout8.xml': strToU8(layout),
  });
}

describe('pptx parser (inline deck)', () => {
  test('slides follow sldIdLst, one page per slide, titles are headings', async () => {
    const doc = await parse(deck(), { name: 'deck.pptx' });
    expect(doc.format).toBe('pptx');
    expect(doc.pageCount).toBe(2);
    const headings = doc.elements.filter((e) => e.kind === 'heading');
    expect(headings.map((h) => [h.text, h.level, h.page, h.slide])).toEqual([
      ['Quarterly Review', 1, 1, 1],
      ['Results', 2, 2, 2],
    ]);
    expect(doc.title).toBe('Quarterly Review');
    expect(doc.metadata.author).toBe('Ada');
    expect(doc.elements.find((e) => e.text === 'Prepared by the finance team')?.kind).toBe('paragraph');
  });

  test('reading order by position, bullets with levels, numbering, notes last', async () => {
    const doc = await parse(deck(), { name: 'deck.pptx' });
    const slide2 = doc.elements.filter((e) => e.slide === 2 && e.kind !== 'page-furniture');
    expect(slide2.map((e) => e.text.split('\n')[0])).toEqual([
      'Results',
      'Growth drivers',
      'Pricing',
      'Volume',
      'Steps',
      'Plan',
      'Execute',
      'Closing remark below the list',
      'Region\t\tSales',
      'grouped left',
      'grouped right',
      '',
      'Notes: Mention the EU split.',
    ]);
    const items = slide2.filter((e) => e.kind === 'list-item');
    expect(items.map((e) => [e.text, e.depth, e.ordered, e.number])).toEqual([
      ['Growth drivers', 0, false, undefined],
      ['Pricing', 1, false, undefined],
      ['Volume', 1, false, undefined],
      ['Plan', 0, true, 1],
      ['Execute', 0, true, 2],
    ]);
    expect(slide2.at(-1)!.text).toBe('Notes: Mention the EU split.\nKeep it short.');
    expect(doc.elements.find((e) => e.kind === 'page-furniture')?.text).toBe('7');
  });

  test('tables keep spans; images keep alt text', async () => {
    const doc = await parse(deck(), { name: 'deck.pptx' });
    const table = doc.elements.find((e) => e.kind === 'table')!.table!;
    expect(table.headerRows).toBe(1);
    expect(table.rows).toEqual([
      [{ text: 'Region', colSpan: 2 }, { text: '' }, { text: 'Sales' }],
      [{ text: 'EU', rowSpan: 2 }, { text: 'North' }, { text: '10' }],
      [{ text: 'EU' }, { text: 'South' }, { text: '12' }],
    ]);
    expect(doc.elements.find((e) => e.kind === 'image')?.alt).toBe('Bar chart of sales by region');
  });

  test('readingOrder: same line left to right, then down; unplaced shapes last', () => {
    const shapes = [{ id: 'c', x: 0, y: 500 }, { id: 'b', x: 300, y: 10 }, { id: 'u' }, { id: 'a', x: 0, y: 30 }];
    expect(ids(readingOrder(shapes, SCALE))).toEqual(['a', 'b', 'c', 'u']);
  });

  // Units of a 1000 x 1000 slide; boxes as [x, y, width, height].
  test('readingOrder: a caption under a title on the left is read before a table on the right that starts higher', () => {
    const title = box('title', [50, 30, 300, 120]);
    const caption = box('caption', [50, 160, 300, 700]);
    const table = box('table', [390, 20, 560, 900]);
    expect(ids(readingOrder([table, caption, title], SCALE))).toEqual(['title', 'caption', 'table']);
    // Without the title (the slide leaves it out): still the left column first.
    expect(ids(readingOrder([table, caption], SCALE))).toEqual(['caption', 'table']);
  });

  test('readingOrder: two level shapes read left to right, also when they only pair up row by row', () => {
    const right = box('right', [520, 210, 430, 600]);
    const left = box('left', [50, 200, 430, 600]);
    expect(ids(readingOrder([right, left], SCALE))).toEqual(['left', 'right']);
    // A grid of labels and values (rows touching, no band between them) stays row by row.
    const grid = [box('v2', [300, 140, 200, 60]), box('k1', [50, 80, 200, 65]), box('v1', [300, 80, 200, 60]), box('k2', [50, 140, 200, 65])];
    expect(ids(readingOrder(grid, SCALE))).toEqual(['k1', 'v1', 'k2', 'v2']);
  });

  test('readingOrder: two columns, then a full-width shape under both', () => {
    const shapes = [
      box('footer note', [50, 860, 900, 80]),
      box('right', [520, 150, 430, 650]),
      box('left 2', [50, 450, 430, 350]),
      box('left 1', [50, 300, 430, 120]),
    ];
    expect(ids(readingOrder(shapes, SCALE))).toEqual(['left 1', 'left 2', 'right', 'footer note']);
    // The full-width shape reaching up into the columns' band leaves no gutter: rows by their tops.
    shapes[0] = box('footer note', [50, 780, 900, 80]);
    expect(ids(readingOrder(shapes, SCALE))).toEqual(['right', 'left 1', 'left 2', 'footer note']);
  });

  test('a placeholder takes its extent from the layout: the caption column is read before the table', async () => {
    const doc = await parse(captionDeck(), { name: 'caption.pptx' });
    expect(doc.elements.map((e) => [e.kind, e.text.split('\t')[0]])).toEqual([
      ['heading', 'Hardware'],
      ['paragraph', 'Check the nodes against the table.'],
      ['table', 'Role'],
    ]);
  });

  test('a ZIP without a presentation part is CORRUPT, garbage is CORRUPT', async () => {
    const zip = zipSync({ 'hello.txt': strToU8('hi') });
    await expect(parse(zip, { name: 'x.pptx', format: 'pptx' })).rejects.toMatchObject({ code: 'CORRUPT' });
    await expect(parse(new Uint8Array([1, 2, 3, 4]), { name: 'x.pptx', format: 'pptx' })).rejects.toMatchObject({ code: 'CORRUPT' });
  });
});

const pptxFiles = hasShared ? readdirSync(corpus('pptx')).filter((f) => f.endsWith('.pptx')) : [];

describe.skipIf(!hasShared)(`pptx corpus (${hasShared ? 'shared corpus' : sharedSkipReason})`, () => {
  test.each(pptxFiles)('%s parses with one page per slide', async (file) => {
    const doc = await parse(corpus('pptx', file));
    expect(doc.pageCount).toBeGreaterThan(0);
    expect(doc.elements.length).toBeGreaterThan(0);
    for (const el of doc.elements) expect(el.page).toBeGreaterThanOrEqual(1);
    expect(Math.max(...doc.elements.map((e) => e.page!))).toBeLessThanOrEqual(doc.pageCount!);
  });

  // docling ground truth. Thresholds: headings and list items (LCS F1 over normalised text) 1.0 —
  // the deck's structure must come out exactly; table cells 0.9 (docling repeats a column-spanned
  // cell's text in every slot, our model leaves the slots to its right empty); token F1 0.85
  // (our speaker notes are not in docling's output).
  test('powerpoint_sample.pptx matches docling: headings, list items, table cells, text', async () => {
    const doc = await parse(corpus('pptx', 'powerpoint_sample.pptx'));
    const md = readFileSync(corpus('pptx', 'powerpoint_sample.pptx.expected.md'), 'utf8');
    const headings = doc.elements.filter((e) => e.kind === 'heading').map((e) => e.text);
    expect(sequenceF1(headings, markdownHeadings(md)).f1).toBe(1);
    const expectedItems = md.split('\n').filter((l) => /^\s*(?:[-*]|\d+\.)\s/.test(l)).map((l) => l.replace(/^\s*(?:[-*]|\d+\.)\s+/, ''));
    const items = doc.elements.filter((e) => e.kind === 'list-item').map((e) => e.text);
    expect(sequenceF1(items, expectedItems).f1).toBe(1);
    const table = doc.elements.find((e) => e.kind === 'table')!.table!.rows.map((r) => r.map((c) => c.text));
    expect(cellAgreement(table, markdownTables(md)[0]!)).toBeGreaterThanOrEqual(0.9);
    expect(tokenF1(doc.canonical, md).f1).toBeGreaterThanOrEqual(0.85);
    expect(doc.elements.some((e) => e.text.startsWith('Notes: ') && e.slide === 2)).toBe(true);
  });

  // Chart values come from the chart part's cache: the docling table must be found cell for cell.
  test('pptx_chart.pptx: the chart becomes its title and a table of cached values', async () => {
    const doc = await parse(corpus('pptx', 'pptx_chart.pptx'));
    const md = readFileSync(corpus('pptx', 'pptx_chart.pptx.expected.md'), 'utf8');
    // docling writes the title and the type ("Bar chart") apart; one caption holds both here.
    expect(doc.elements.filter((e) => e.kind === 'caption').map((e) => e.text)).toEqual(['Column chart: Wild Duck Observations by Year', 'Column chart: 2026']);
    const table = doc.elements.find((e) => e.kind === 'table')!.table!.rows.map((r) => r.map((c) => c.text));
    expect(cellAgreement(table, markdownTables(md)[0]!)).toBe(1);
    expect(sequenceF1(doc.elements.filter((e) => e.kind === 'heading').map((e) => e.text), markdownHeadings(md)).f1).toBe(1);
  });

  // officeParser's text baseline (notes inline, slide numbers as text): token F1 >= 0.95.
  test('calibre-demo.pptx matches the officeParser text', async () => {
    const doc = await parse(corpus('pptx', 'calibre-demo.pptx'));
    const expected = readFileSync(corpus('pptx', 'calibre-demo.pptx.expected.txt'), 'utf8');
    expect(tokenF1(doc.canonical, expected).f1).toBeGreaterThanOrEqual(0.95);
    expect(doc.canonical).toContain('Notes: Slide Note 1.');
  });

  // unstructured's element texts: token F1 >= 0.95.
  test('science-exploration-1p.pptx matches the unstructured elements', async () => {
    const doc = await parse(corpus('pptx', 'science-exploration-1p.pptx'));
    const expected = (JSON.parse(readFileSync(corpus('pptx', 'science-exploration-1p.pptx.expected.json'), 'utf8')) as { text: string }[]).map((e) => e.text).join('\n');
    expect(tokenF1(doc.canonical, expected).f1).toBeGreaterThanOrEqual(0.95);
    expect(doc.elements.filter((e) => e.kind === 'list-item' && e.depth === 1).length).toBeGreaterThan(0);
  });

  test('prs-notes.pptx: the notes are attached to their slide', async () => {
    const doc = await parse(corpus('pptx', 'prs-notes.pptx'));
    expect(doc.elements.find((e) => e.text === 'Notes: Notes')?.slide).toBe(1);
  });

  test('tbl-cell.pptx: merged cells carry their spans', async () => {
    const doc = await parse(corpus('pptx', 'tbl-cell.pptx'));
    const spans = doc.elements.filter((e) => e.kind === 'table').flatMap((e) => e.table!.rows.flat()).filter((c) => (c.rowSpan ?? 1) > 1 || (c.colSpan ?? 1) > 1);
    expect(spans).toContainEqual({ text: 'merged cell', rowSpan: 2, colSpan: 2 });
    expect(spans).toContainEqual({ text: 'merged cell', rowSpan: 2, colSpan: 3 });
  });

  test('ocr_test_zh.pptx: Chinese text, table and picture alt text', async () => {
    const doc = await parse(corpus('pptx', 'ocr_test_zh.pptx'));
    expect(doc.canonical).toContain('我是文字');
    expect(doc.elements.find((e) => e.kind === 'table')!.table!.rows.flat().map((c) => c.text)).toContain('我是表格1');
    expect(doc.elements.find((e) => e.kind === 'image')?.alt).toBe('ocr_test');
  });

  // The generated Chinese manual (see zh-generated/README.md): every heading of the source Markdown
  // is a slide title (LCS F1 1.0), list items and the two tables come through (cells 1.0), token F1 >= 0.95.
  test('zh-generated/warehouse-manual-zh.pptx matches its source Markdown', async () => {
    const doc = await parse(corpus('zh-generated', 'warehouse-manual-zh.pptx'));
    const md = readFileSync(corpus('zh-generated', 'warehouse-manual-zh.pptx.expected.md'), 'utf8');
    expect(doc.pageCount).toBe(15);
    expect(sequenceF1(doc.elements.filter((e) => e.kind === 'heading').map((e) => e.text), markdownHeadings(md)).f1).toBe(1);
    const expectedTables = markdownTables(md);
    const tables = doc.elements.filter((e) => e.kind === 'table').map((e) => e.table!.rows.map((r) => r.map((c) => c.text)));
    expect(tables).toHaveLength(expectedTables.length);
    expectedTables.forEach((t, i) => expect(cellAgreement(tables[i]!, t)).toBe(1));
    expect(doc.elements.filter((e) => e.kind === 'list-item' && e.depth === 1).length).toBeGreaterThan(0);
    expect(tokenF1(doc.canonical, md).f1).toBeGreaterThanOrEqual(0.95);
  });

  // "Content with Caption" slides (7 and 14): the caption on the left, its position inherited from
  // the layout, starts lower than the table on the right; the source Markdown has the caption first.
  // Order F1 falls short of 1 by the fence's `yaml` info string alone, which no slide shows.
  test('zh-generated/warehouse-manual-zh.pptx: captions are read before the tables beside them', async () => {
    const doc = await parse(corpus('zh-generated', 'warehouse-manual-zh.pptx'));
    const md = readFileSync(corpus('zh-generated', 'warehouse-manual-zh.pptx.expected.md'), 'utf8');
    expect(doc.elements.filter((e) => e.slide === 7).map((e) => [e.kind, e.text.slice(0, 5)])).toEqual([
      ['heading', '2.1 硬'],
      ['paragraph', '安装开始前'],
      ['table', '节点角色\t'],
    ]);
    expect(doc.elements.filter((e) => e.slide === 14).map((e) => [e.kind, e.text.slice(0, 5)])).toEqual([
      ['paragraph', '发生故障时'],
      ['table', '错误码\t含'],
    ]);
    expect(orderF1(doc.canonical, md).f1).toBeGreaterThan(0.999);
  });
});
