import type { LazyParser } from './types.js';

/**
 * The built-in parsers, one entry each: what the rest of the engine needs to know synchronously
 * (the formats a parser handles, its version for the parse-cache key) and how to load its code.
 * This module imports no parser: each `load` is a dynamic `import()`, run the first time a file of
 * one of its formats is parsed (src/parsers/registry.ts), so a process that only ever reads text
 * never loads PDFium's bindings, linkedom, saxes or the image decoders (docs/robustness.md,
 * "Start-up memory"). test/parsers/registry.test.ts checks that every entry says what its module's
 * `ParserDefinition` says.
 *
 * Adding a parser: one file in this folder + one line here. The order is `supportedFormats()`'s.
 */
export const PARSER_CATALOG: readonly LazyParser[] = [
  { name: 'text', formats: ['text'], version: '1', load: async () => (await import('./text.js')).textParser },
  { name: 'markdown', formats: ['markdown'], version: '1', load: async () => (await import('./markdown.js')).markdownParser },
  { name: 'html', formats: ['html'], version: '2', load: async () => (await import('./html.js')).htmlParser },
  { name: 'json', formats: ['json', 'jsonl'], version: '1', load: async () => (await import('./json.js')).jsonParser },
  { name: 'csv', formats: ['csv', 'tsv'], version: '1', load: async () => (await import('./csv.js')).csvParser },
  { name: 'eml', formats: ['eml'], version: '1', load: async () => (await import('./eml.js')).emlParser },
  { name: 'epub', formats: ['epub'], version: '2', load: async () => (await import('./epub.js')).epubParser },
  { name: 'rtf', formats: ['rtf'], version: '1', load: async () => (await import('./rtf.js')).rtfParser },
  { name: 'vtt', formats: ['vtt'], version: '1', load: async () => (await import('./vtt.js')).vttParser },
  { name: 'transcribe', formats: ['transcribe'], version: '1', load: async () => (await import('./transcribe.js')).transcribeParser },
  { name: 'audio', formats: ['audio'], version: '1', load: async () => (await import('./audio.js')).audioParser },
  { name: 'docx', formats: ['docx'], version: '3', load: async () => (await import('./docx.js')).docxParser },
  { name: 'odt', formats: ['odt'], version: '4', load: async () => (await import('./odt.js')).odtParser },
  { name: 'zip', formats: ['zip'], version: '1', load: async () => (await import('./zip.js')).zipParser },
  { name: 'pptx', formats: ['pptx'], version: '3', load: async () => (await import('./pptx.js')).pptxParser },
  { name: 'xlsx', formats: ['xlsx'], version: '2', load: async () => (await import('./xlsx.js')).xlsxParser },
  { name: 'odp', formats: ['odp'], version: '4', load: async () => (await import('./odp.js')).odpParser },
  { name: 'ods', formats: ['ods'], version: '2', load: async () => (await import('./ods.js')).odsParser },
  { name: 'image', formats: ['image'], version: '2', load: async () => (await import('./image.js')).imageParser },
  { name: 'pdf', formats: ['pdf'], version: '2', load: async () => (await import('./pdf.js')).pdfParser },
];
