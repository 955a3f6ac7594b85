import { strToU8, zipSync } from 'fflate';
import { beforeAll, describe, expect, test } from 'vitest';
import { parse } from '../../src/parse.js';
import { registerParser } from '../../src/parsers/registry.js';
import { pptxParser } from '../../src/parsers/pptx.js';

beforeAll(() => registerParser(pptxParser));

/** Decks with legacy comments (PowerPoint 2007-2019) and modern comments (Microsoft 365), as those versions write them. */

const NS = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const MODERN_REL = 'http://schemas.microsoft.com/office/2018/10/relationships';
const P188 = 'xmlns:p188="http://schemas.microsoft.com/office/powerpoint/2018/8/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"';

function rels(list: [string, string, string][]): string {
  return `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${list.map(([id, type, target]) => `<Relationship Id="${id}" Type="${type.startsWith('http') ? type : `${REL}/${type}`}" Target="${target}"/>`).join('')}</Relationships>`;
}

const title = (text: string): string =>
  `<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title"/><p:cNvSpPr/><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>${text}</a:t></a:r></a:p></p:txBody></p:sp>`;
const slide = (text: string, shapes = ''): string => `<p:sld ${NS}><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>${title(text)}${shapes}</p:spTree></p:cSld></p:sld>`;

function deck(slideRels: [string, string, string][][], parts: Record<string, string>, presentationRels: [string, string, string][], shapes: string[] = []): Uint8Array {
  const files: Record<string, Uint8Array> = {
    '[Content_Types].xml': strToU8('<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'),
    '_rels/.rels': strToU8(rels([['rId1', 'officeDocument', 'ppt/presentation.xml']])),
    'ppt/presentation.xml': strToU8(`<p:presentation ${NS}><p:sldIdLst>${slideRels.map((_, i) => `<p:sldId id="${256 + i}" r:id="rS${i + 1}"/>`).join('')}</p:sldIdLst></p:presentation>`),
    'ppt/_rels/presentation.xml.rels': strToU8(rels([...slideRels.map((_, i): [string, string, string] => [`rS${i + 1}`, 'slide', `slides/slide${i + 1}.xml`]), ...presentationRels])),
  };
  slideRels.forEach((list, i) => {
    files[`ppt/slides/slide${i + 1}.xml`] = strToU8(slide(`Slide ${i + 1}`, shapes[i]));
    files[`ppt/slides/_rels/slide${i + 1}.xml.rels`] = strToU8(rels(list));
  });
  for (const [name, xml] of Object.entries(parts)) files[name] = strToU8(xml);
  return zipSync(files);
}

const LEGACY_AUTHORS = `<p:cmAuthorLst ${NS}><p:cmAuthor id="0" name="Ann Lee" initials="AL" lastIdx="2" clrIdx="0"/><p:cmAuthor id="1" name="Bo Chen" initials="BC" lastIdx="1" clrIdx="1"/></p:cmAuthorLst>`;
const LEGACY = `<p:cmLst ${NS}>` +
  `<p:cm authorId="0" dt="2019-05-01T10:00:00.000" idx="1"><p:pos x="10" y="10"/><p:text>Use the new logo here.</p:text></p:cm>` +
  `<p:cm authorId="1" dt="2019-05-02T11:30:00.000" idx="1"><p:pos x="10" y="10"/><p:text>Done.</p:text><p:extLst><p:ext uri="{C676402C-5697-4E1C-873F-D02D1690AC5C}"><p15:threadingInfo xmlns:p15="http://schemas.microsoft.com/office/powerpoint/2012/main" timeZoneBias="-60"><p15:parentCm authorId="0" idx="1"/></p15:threadingInfo></p:ext></p:extLst></p:cm>` +
  `<p:cm authorId="0" dt="2019-05-03T09:00:00.000" idx="2"><p:pos x="50" y="10"/><p:text>Second thought: bigger font.</p:text></p:cm>` +
  `</p:cmLst>`;
const MODERN_AUTHORS = `<p188:authorLst ${P188}><p188:author id="{A1}" name="Cy Dee" initials="CD" userId="cy@example.com" providerId="AD"/><p188:author id="{A2}" name="Eve" initials="E" userId="eve" providerId="None"/></p188:authorLst>`;
const MODERN = `<p188:cmLst ${P188} xmlns:pc="http://schemas.microsoft.com/office/powerpoint/2013/main/command">` +
  `<p188:cm id="{C1}" authorId="{A1}" created="2024-02-01T08:00:00.000" status="resolved"><pc:sldMkLst><pc:docMk/><pc:sldMk cId="1" sldId="257"/></pc:sldMkLst><p188:pos x="100" y="100"/>` +
  `<p188:replyLst><p188:reply id="{R1}" authorId="{A2}" created="2024-02-01T09:00:00.000"><p188:txBody><a:bodyPr/><a:lstStyle/><a:p><a:r><a:t>Fixed in v2.</a:t></a:r></a:p></p188:txBody></p188:reply></p188:replyLst>` +
  `<p188:txBody><a:bodyPr/><a:lstStyle/><a:p><a:r><a:t>The numbers are from 2023.</a:t></a:r></a:p><a:p><a:r><a:t>Please update.</a:t></a:r></a:p></p188:txBody></p188:cm>` +
  `</p188:cmLst>`;

describe('PPTX comments', () => {
  const bytes = (): Uint8Array =>
    deck(
      [[['rC', 'comments', '../comments/comment1.xml']], [['rC', `${MODERN_REL}/comments`, '../comments/modernComment_101_ABC.xml']], []],
      { 'ppt/commentAuthors.xml': LEGACY_AUTHORS, 'ppt/comments/comment1.xml': LEGACY, 'ppt/authors.xml': MODERN_AUTHORS, 'ppt/comments/modernComment_101_ABC.xml': MODERN },
      [['rA', 'commentAuthors', 'commentAuthors.xml'], ['rM', `${MODERN_REL}/authors`, 'authors.xml']],
    );

  test('legacy and modern comments follow their slide, replies under their comment', async () => {
    const doc = await parse(bytes(), { name: 'comments.pptx' });
    const comments = doc.elements.filter((e) => e.kind === 'comment');
    expect(comments.map((e) => [e.slide, e.text, e.comment])).toEqual([
      [1, 'Use the new logo here.', { author: 'Ann Lee', time: '2019-05-01T10:00:00.000' }],
      [1, 'Done.', { author: 'Bo Chen', time: '2019-05-02T11:30:00.000', reply: true }],
      [1, 'Second thought: bigger font.', { author: 'Ann Lee', time: '2019-05-03T09:00:00.000' }],
      [2, 'The numbers are from 2023.\nPlease update.', { author: 'Cy Dee', time: '2024-02-01T08:00:00.000', resolved: true }],
      [2, 'Fixed in v2.', { author: 'Eve', time: '2024-02-01T09:00:00.000', reply: true }],
    ]);
    expect(comments.every((e) => e.page === e.slide)).toBe(true);
    expect(doc.canonical).toBe(
      '## Slide 1\n\n[Comment by Ann Lee, 2019-05-01 10:00, on slide 1] Use the new logo here.\n[Reply by Bo Chen, 2019-05-02 11:30] Done.\n\n' +
        '[Comment by Ann Lee, 2019-05-03 09:00, on slide 1] Second thought: bigger font.\n\n' +
        '## Slide 2\n\n[Comment by Cy Dee, 2024-02-01 08:00, on slide 2, resolved] The numbers are from 2023.\nPlease update.\n[Reply by Eve, 2024-02-01 09:00] Fixed in v2.\n\n## Slide 3',
    );
  });

  test("comments: 'exclude' leaves them out; a broken comments part is a warning", async () => {
    const excluded = await parse(bytes(), { name: 'comments.pptx', comments: 'exclude' });
    expect(excluded.canonical).toBe('## Slide 1\n\n## Slide 2\n\n## Slide 3');
    const broken = deck([[['rC', 'comments', '../comments/comment1.xml']]], { 'ppt/comments/comment1.xml': '<p:cmLst><p:cm>' }, []);
    const doc = await parse(broken, { name: 'broken.pptx' });
    expect(doc.warnings).toEqual([expect.stringMatching(/^slide 1: comments 'ppt\/comments\/comment1.xml' could not be read/)]);
    expect(doc.canonical).toBe('## Slide 1');
  });
});

describe('PPTX Office 2016 charts', () => {
  test('a chartex chart (mc:Choice, with its fallback picture skipped) becomes its caption and table', async () => {
    const frame =
      '<mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><mc:Choice xmlns:cx1="http://schemas.microsoft.com/office/drawing/2015/9/8/chartex" Requires="cx1">' +
      '<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="4" name="Chart 3"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><p:xfrm><a:off x="0" y="2000"/><a:ext cx="10" cy="10"/></p:xfrm>' +
      '<a:graphic><a:graphicData uri="http://schemas.microsoft.com/office/drawing/2014/chartex"><cx:chart xmlns:cx="http://schemas.microsoft.com/office/drawing/2014/chartex" r:id="rCx"/></a:graphicData></a:graphic></p:graphicFrame>' +
      '</mc:Choice><mc:Fallback><p:sp><p:nvSpPr><p:cNvPr id="4" name="Chart 3"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>This chart isn\'t available in your version of PowerPoint</a:t></a:r></a:p></p:txBody></p:sp></mc:Fallback></mc:AlternateContent>';
    const chartex = `<cx:chartSpace xmlns:cx="http://schemas.microsoft.com/office/drawing/2014/chartex"><cx:chartData><cx:data id="0">` +
      `<cx:strDim type="cat"><cx:lvl ptCount="2"><cx:pt idx="0">Leads</cx:pt><cx:pt idx="1">Deals</cx:pt></cx:lvl></cx:strDim>` +
      `<cx:numDim type="val"><cx:lvl ptCount="2" formatCode="General"><cx:pt idx="0">500</cx:pt><cx:pt idx="1">42</cx:pt></cx:lvl></cx:numDim></cx:data></cx:chartData>` +
      `<cx:chart><cx:plotArea><cx:plotAreaRegion><cx:series layoutId="funnel"><cx:tx><cx:txData><cx:v>Pipeline</cx:v></cx:txData></cx:tx><cx:dataId val="0"/></cx:series></cx:plotAreaRegion></cx:plotArea></cx:chart></cx:chartSpace>`;
    const bytes = deck([[['rCx', 'http://schemas.microsoft.com/office/2014/relationships/chartEx', '../charts/chartEx1.xml']]], { 'ppt/charts/chartEx1.xml': chartex }, [], [frame]);
    const doc = await parse(bytes, { name: 'chartex.pptx' });
    expect(doc.canonical).toBe('## Slide 1\n\nFunnel chart: Pipeline\n\n|  | Pipeline |\n| --- | --- |\n| Leads | 500 |\n| Deals | 42 |');
  });
});
