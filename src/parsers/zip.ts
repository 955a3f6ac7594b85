import { ZipArchive, type ZipEntryInfo } from '../archive/zip.js';
import { contentHash } from '../document/build.js';
import type { Attachment, DocumentDraft, ElementDraft } from '../document/types.js';
import type { ParseInput, ParserDefinition } from './types.js';

/**
 * ZIP archives: every file entry becomes an attachment that parse() parses as a child document
 * (nesting depth is capped there by `maxDepth`), and the archive's own document lists its entries,
 * one list item per file with its size, so it is never empty and says what was inside.
 *
 * Safety is ZipArchive's: entry count, declared sizes and ratio are checked before anything is
 * inflated, each entry inflates with a hard cap, and names that climb out of the archive (zip slip)
 * refuse the whole archive as CORRUPT. Folders and operating-system junk (`__MACOSX/`, `.DS_Store`,
 * `Thumbs.db`, hidden files) are skipped; an entry that is a byte-for-byte copy of the archive itself
 * (the "droste" zip) is skipped with a warning instead of recursing until the depth cap.
 */

const JUNK = /(?:^|\/)(?:__MACOSX\/|\.DS_Store$|Thumbs\.db$|desktop\.ini$|\.[^/]+$)/i;

export const zipParser: ParserDefinition = {
  formats: ['zip'],
  version: '1',
  textual: false,
  parse(input: ParseInput): DocumentDraft {
    const file = input.name;
    const zip = ZipArchive.open(input.bytes, file !== undefined ? { file } : {});
    const selfHash = contentHash(input.bytes);
    const elements: ElementDraft[] = [];
    const attachments: Attachment[] = [];
    const warnings: string[] = [];
    const files = zip.entries.filter((e) => !e.name.endsWith('/') && !JUNK.test(e.name));
    elements.push({ kind: 'paragraph', text: `ZIP archive with ${files.length} file(s):` });
    for (const entry of files) {
      elements.push({ kind: 'list-item', text: `${entry.name} (${formatSize(entry.uncompressedSize)})`, depth: 0, ordered: false });
      if (entry.encrypted) {
        warnings.push(`'${entry.name}' not parsed: it is encrypted`);
        continue;
      }
      if (entry.uncompressedSize === 0) continue;
      const bytes = readEntry(zip, entry, warnings);
      if (!bytes) continue;
      if (bytes.length === input.bytes.length && contentHash(bytes) === selfHash) {
        warnings.push(`'${entry.name}' not parsed: it is a copy of the archive itself`);
        continue;
      }
      attachments.push({ name: entry.name, bytes });
    }
    const skipped = zip.entries.length - files.length - zip.entries.filter((e) => e.name.endsWith('/')).length;
    if (skipped > 0) warnings.push(`${skipped} system/hidden file(s) skipped (__MACOSX, .DS_Store, dot files)`);
    return { format: 'zip', mime: 'application/zip', elements, attachments, warnings };
  },
};

/** One entry's bytes; an entry that fails its limits is reported and skipped, the archive goes on. */
function readEntry(zip: ZipArchive, entry: ZipEntryInfo, warnings: string[]): Uint8Array | undefined {
  try {
    return zip.read(entry.name);
  } catch (error) {
    const e = error as { code?: string; message: string };
    warnings.push(`'${entry.name}' not parsed: ${e.code ?? 'CORRUPT'}: ${e.message}`);
    return undefined;
  }
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
