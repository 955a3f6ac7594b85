/**
 * Per-file quality of the PDF parser against the corpus ground truth (docling's Markdown): heading
 * F1, text token F1 and table cell agreement. Writes docs/pdf-quality.md.
 * Run: node --import tsx scripts/pdf-quality.ts
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../test/helpers.js';
import { measurePdfQuality } from '../test/pdf/quality.js';

const rows = await measurePdfQuality();
const lines = [
  '# PDF parser quality',
  '',
  'Measured by `node --import tsx scripts/pdf-quality.ts` against the ground truth in `../shared/corpus`',
  "(docling's Markdown `*.expected.md`, tabula's CSV). Text F1: multiset token F1 of our canonical text",
  'vs the expected Markdown; heading F1: longest-common-subsequence F1 of heading texts; tables: share',
  'of expected cells equal at the same row and column (best-matching table of ours for each expected table).',
  '',
  '| file | pages | text F1 | heading F1 | headings ours/expected | table cells | tables ours/expected | ms |',
  '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ...rows.map(
    (r) =>
      `| ${r.file} | ${r.pages} | ${r.textF1.toFixed(3)} | ${r.headingF1 === undefined ? '-' : r.headingF1.toFixed(3)} | ${r.headingsOurs}/${r.headingsExpected ?? '-'} | ${r.tableCells === undefined ? '-' : r.tableCells.toFixed(3)} | ${r.tablesOurs}/${r.tablesExpected ?? '-'} | ${r.ms.toFixed(0)} |`,
  ),
  '',
  '## Reading the table',
  '',
  '- Thresholds in `test/parsers/pdf.test.ts` are the measured value minus a margin. The aim is text F1 >= 0.95',
  '  and heading F1 >= 0.8 on text PDFs, OCR text F1 >= 0.9 on scans (the scans run only where Tesseract is installed).',
  '- `normal_4pages.pdf` headings: our heading texts match docling\'s, but docling writes the section number after',
  '  the title (`들어가며 1`, `코로나-19 관련 보험 현황 2`: the number is a separate graphic) and misses the author',
  '  line we report; exact-match F1 counts those as misses. Threshold 0.5.',
  '- `redp5110_sampled.pdf` headings: the cover and back-cover pages carry large bold blurbs and author names that',
  '  read as headings by font statistics, and docling splits `Chapter 1.` from its title. Threshold 0.6.',
  '  Tables: docling\'s ground truth has the table of contents as a table (dot leaders); we keep it as text.',
  '- `spanning_cells.pdf` is compared with tabula\'s CSV (cells of both tables stacked); its text F1 is against',
  '  the CSV cells only, so the page title and notes count as extra.',
  '- Table cells: docling repeats a spanning cell\'s text in every slot it covers; the measure expands our spans',
  '  the same way (`expandSpans` in `test/pdf/quality.ts`).',
  '',
];
writeFileSync(join(projectRoot, 'docs', 'pdf-quality.md'), lines.join('\n'));
console.log(lines.join('\n'));
