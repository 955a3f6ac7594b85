import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterAll, describe, expect, test } from 'vitest';
import { run } from '../../src/cli/run.js';

/** `--comments` and `--revisions` on parse, chunk and ingest: the same options as the library API. */

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const run_ = (text: string): string => `<w:r><w:t xml:space="preserve">${text}</w:t></w:r>`;
const DOCX = zipSync({
  '[Content_Types].xml': strToU8('<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'),
  '_rels/.rels': strToU8(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="word/document.xml"/></Relationships>`),
  'word/_rels/document.xml.rels': strToU8(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rC" Type="${REL}/comments" Target="comments.xml"/></Relationships>`),
  'word/document.xml': strToU8(
    `<w:document ${W}><w:body><w:p>${run_('The warranty lasts ')}<w:del w:id="1" w:author="Bo"><w:r><w:delText>twelve</w:delText></w:r></w:del><w:ins w:id="2" w:author="Bo">${run_('eighteen')}</w:ins>` +
      `${run_(' months.')}<w:commentRangeStart w:id="0"/>${run_(' Returns are free.')}<w:commentRangeEnd w:id="0"/><w:r><w:commentReference w:id="0"/></w:r></w:p></w:body></w:document>`,
  ),
  'word/comments.xml': strToU8(`<w:comments ${W}><w:comment w:id="0" w:author="Ann" w:date="2024-05-01T10:00:00Z"><w:p>${run_('Only within Europe.')}</w:p></w:comment></w:comments>`),
});

const dir = mkdtempSync(join(tmpdir(), 'gw-review-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'warranty.docx');
writeFileSync(file, DOCX);

async function cli(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await run(args, { out: (t) => void (stdout += t), err: (t) => void (stderr += t), readStdin: async () => new Uint8Array() });
  return { code, stdout, stderr };
}

describe('--comments and --revisions', () => {
  test('parse: comments included and the final text by default; exclude and show change just that', async () => {
    expect((await cli('parse', file)).stdout).toBe(
      'The warranty lasts eighteen months. Returns are free.\n\n[Comment by Ann, 2024-05-01 10:00, on "Returns are free."] Only within Europe.\n',
    );
    expect((await cli('parse', file, '--comments', 'exclude')).stdout).toBe('The warranty lasts eighteen months. Returns are free.\n');
    expect((await cli('parse', file, '--comments', 'exclude', '--revisions', 'show')).stdout).toBe('The warranty lasts {-twelve-}{+eighteen+} months. Returns are free.\n');
  });

  test('chunk: the flags reach the parse', async () => {
    const out = (await cli('chunk', file, '--comments', 'exclude', '--revisions', 'show', '--jsonl')).stdout;
    const chunks = out.trim().split('\n').map((line) => JSON.parse(line) as { text: string });
    expect(chunks.map((c) => c.text)).toEqual(['The warranty lasts {-twelve-}{+eighteen+} months. Returns are free.']);
  });

  test('ingest: the stored blocks follow the flags', async () => {
    const lib = join(dir, 'lib');
    const ingest = await cli('ingest', file, '--library', lib, '--workers', '0', '--revisions', 'show', '--comments', 'exclude', '--json');
    expect(ingest.code).toBe(0);
    const hits = JSON.parse((await cli('search', 'twelve', '--library', lib, '--json')).stdout) as { block: { text: string } }[];
    expect(hits.map((h) => h.block.text)).toEqual(['The warranty lasts {-twelve-}{+eighteen+} months. Returns are free.']);
    expect(JSON.parse((await cli('search', 'Europe', '--library', lib, '--json')).stdout)).toEqual([]);
  });

  test('a value the option does not take is a usage error (exit 2) naming the choices; help lists both flags', async () => {
    const bad = await cli('parse', file, '--comments', 'hide');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--comments must be include or exclude, got 'hide'");
    expect((await cli('chunk', file, '--revisions', 'all')).stderr).toContain("--revisions must be final or show, got 'all'");
    for (const command of ['parse', 'chunk', 'ingest']) {
      const help = (await cli(command, '--help')).stdout;
      expect(help, command).toContain('--comments include|exclude');
      expect(help, command).toContain('--revisions final|show');
    }
  });
});
