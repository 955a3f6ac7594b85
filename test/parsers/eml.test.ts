import { readdirSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { parse } from '../../src/parse.js';
import { plainTextElements } from '../../src/parsers/eml-text.js';
import { emlParser } from '../../src/parsers/eml.js';
import { registerParser } from '../../src/parsers/registry.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';

registerParser(emlParser);

const crlf = (lines: string[]): Uint8Array => new TextEncoder().encode(lines.join('\r\n'));

/** A mixed message: plain + HTML alternatives, a CSV attachment and an attached message. */
const mixed = crlf([
  'From: "Zhang Wei" <zhang@example.com>',
  'To: Ops <ops@example.com>, b@example.com',
  'Cc: c@example.com',
  'Subject: =?GBK?B?1MLC28i3yM8=?=',
  'Date: Tue, 04 Mar 2025 09:30:00 +0800',
  'Message-ID: <abc@example.com>',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="outer"',
  '',
  '--outer',
  'Content-Type: multipart/alternative; boundary="alt"',
  '',
  '--alt',
  'Content-Type: text/plain; charset=iso-8859-1',
  'Content-Transfer-Encoding: quoted-printable',
  '',
  'Hello team,',
  '',
  'Agenda for the caf=E9 meeting:',
  '  - budget',
  '  - hiring',
  '',
  '> earlier message',
  '> quoted',
  '--alt',
  'Content-Type: text/html; charset=utf-8',
  '',
  '<p>Hello team,</p><ul><li>budget</li><li>hiring</li></ul>',
  '--alt--',
  '--outer',
  'Content-Type: text/csv; name="q1.csv"',
  'Content-Disposition: attachment; filename="q1.csv"',
  '',
  'region,revenue',
  'north,10',
  '--outer',
  'Content-Type: message/rfc822',
  'Content-Disposition: attachment',
  '',
  'From: old@example.com',
  'Subject: Original',
  '',
  'The original text.',
  '--outer--',
  '',
]);

describe('eml: headers, body, attachments', () => {
  test('headers become metadata (RFC 2047 GBK subject decoded), the plain body its paragraphs, lists and quotes', async () => {
    const doc = await parse(mixed, { name: 'mail.eml' });
    expect(doc.format).toBe('eml');
    expect(doc.title).toBe('月论确认');
    expect(doc.metadata).toMatchObject({
      from: 'Zhang Wei <zhang@example.com>',
      to: ['Ops <ops@example.com>', 'b@example.com'],
      cc: ['c@example.com'],
      date: '2025-03-04T01:30:00.000Z',
      subject: '月论确认',
      messageId: '<abc@example.com>',
      attachments: ['q1.csv', 'attached-message-2.eml'],
    });
    expect(doc.elements.map((e) => [e.kind, e.text, e.depth])).toEqual([
      ['heading', '月论确认', undefined],
      ['paragraph', 'From: Zhang Wei <zhang@example.com>\nTo: Ops <ops@example.com>, b@example.com\nCc: c@example.com\nDate: 2025-03-04T01:30:00.000Z', undefined],
      ['paragraph', 'Hello team,', undefined],
      ['paragraph', 'Agenda for the café meeting:', undefined],
      ['list-item', 'budget', 0],
      ['list-item', 'hiring', 0],
      ['quote', 'earlier message\nquoted', undefined],
    ]);
  });

  test('every attachment is parsed as a child document linked to the mail, the attached message included', async () => {
    const doc = await parse(mixed, { name: 'mail.eml' });
    expect(doc.children?.map((c) => [c.source.name, c.format])).toEqual([
      ['mail.eml#q1.csv', 'csv'],
      ['mail.eml#attached-message-2.eml', 'eml'],
    ]);
    expect(doc.children![0]!.elements[0]!.table?.rows[1]?.map((c) => c.text)).toEqual(['north', '10']);
    expect(doc.children![1]!.title).toBe('Original');
    expect(doc.children![1]!.canonical).toContain('The original text.');
  });

  test('an HTML-only message goes through the HTML walker (lists and tables kept)', async () => {
    const html = crlf([
      'From: a@example.com',
      'Subject: Report',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<html><body><div class="footer">Sent from my phone</div><h2>Numbers</h2><ul><li>one</li><li>two</li></ul>',
      '<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table></body></html>',
    ]);
    const doc = await parse(html, { name: 'r.eml' });
    const kinds = doc.elements.map((e) => e.kind);
    expect(kinds).toEqual(['heading', 'paragraph', 'paragraph', 'heading', 'list-item', 'list-item', 'table']);
    // Mail HTML is not a web page: a div classed 'footer' is the sender's content, not page chrome.
    expect(doc.elements[2]!.text).toBe('Sent from my phone');
    expect(doc.elements[6]!.table?.rows.map((r) => r.map((c) => c.text))).toEqual([['k', 'v'], ['a', '1']]);
  });

  test('plain-text structure: bullets with depth by indent, numbered items, wrapped bullets, prose kept as is', () => {
    expect(plainTextElements('Intro line\nsecond line\n\n- a\n  - a1\n    wrapped\n- b\n\n1. one\n2) two\n\n-- \nSig').map((e) => [e.kind, e.text, e.depth, e.number])).toEqual([
      ['paragraph', 'Intro line\nsecond line', undefined, undefined],
      ['list-item', 'a', 0, undefined],
      ['list-item', 'a1 wrapped', 1, undefined],
      ['list-item', 'b', 0, undefined],
      ['list-item', 'one', 0, 1],
      ['list-item', 'two', 0, 2],
      ['paragraph', '--\nSig', undefined, undefined],
    ]);
  });

  test('a file without headers is CORRUPT', async () => {
    await expect(parse(new TextEncoder().encode('just some words\n'), { format: 'eml' })).rejects.toMatchObject({ code: 'CORRUPT' });
  });
});

describe.skipIf(!hasShared)('eml: corpus', () => {
  if (!hasShared) console.warn(sharedSkipReason);

  test('every corpus mail parses with its subject as title', async () => {
    const names = readdirSync(corpus('eml')).filter((n) => n.endsWith('.eml'));
    expect(names.length).toBeGreaterThanOrEqual(7);
    for (const name of names) {
      const doc = await parse(corpus('eml', name));
      expect(doc.format, name).toBe('eml');
      expect(doc.elements.length, name).toBeGreaterThan(0);
    }
  });

  test('charsets: ISO-2022-JP body and UTF-8 encoded-word subject; ks_c_5601-1987 (EUC-KR) body', async () => {
    const jp = await parse(corpus('eml', 'japanese_iso_2022.eml'));
    expect(jp.title).toBe('まみむめも');
    expect(jp.metadata.to).toEqual(['みける <raasdnil@gmail.com>']);
    expect(jp.canonical).toContain('すみません。');
    const ko = await parse(corpus('eml', 'ks_c_5601-1987.eml'));
    expect(ko.canonical).toContain('스티해');
  });

  test('a whole-file UTF-16LE mail (no BOM) is decoded before MIME parsing', async () => {
    const doc = await parse(corpus('eml', 'fake-email-utf-16-le.eml'));
    expect(doc.title).toBe('Test Email');
    expect(doc.metadata.from).toBe('Matthew Robinson <mrobinson@unstructured.io>');
    expect(doc.elements.filter((e) => e.kind === 'list-item').map((e) => e.text)).toEqual(['Roses are red', 'Violets are blue']);
  });

  test('attachments: the text attachment and the inline image are children or reported; nested parts are read', async () => {
    const withAttachment = await parse(corpus('eml', 'fake-email-attachment.eml'));
    expect(withAttachment.children?.map((c) => [c.source.name?.split('#')[1], c.canonical])).toEqual([['fake-attachment.txt', 'Hey this is a fake attachment!']]);
    const image = await parse(corpus('eml', 'fake-email-image-embedded.eml'));
    expect(image.metadata.attachments).toEqual(['unstructured_logo.png']);
    // The PNG is a child when an image parser is registered, else a warning naming it.
    expect((image.children?.length ?? 0) + image.warnings.filter((w) => w.includes('unstructured_logo.png')).length).toBe(1);
    const nested = await parse(corpus('eml', 'nested.eml'));
    expect(nested.canonical).toContain('Good evening.');
    expect(nested.canonical).toContain('The footer');
  });

  test('a delivery-status report: the bounce text, the status part and the returned message as children', async () => {
    const doc = await parse(corpus('eml', 'delivery-status.eml'));
    expect(doc.canonical).toContain('An error occurred while trying to deliver the mail');
    expect(doc.children).toHaveLength(2);
    expect(doc.children![0]!.canonical).toContain('Final-Recipient: rfc822; xxxx@xxxx.com');
    expect(doc.children![1]!.format).toBe('eml');
    expect(doc.children![1]!.title).toBe('Example Subject');
  });

  test('a mail misnamed .txt is detected and parsed as e-mail', async () => {
    const doc = await parse(corpus('adversarial', 'fake-email.txt'));
    expect(doc.format).toBe('eml');
    expect(doc.title).toBe('Test Email');
  });
});
