import { textDecoderLabel } from '../detect/encoding.js';

/**
 * RTF code pages: `\ansicpgN` names the document's Windows code page, and a font's `\fcharsetN`
 * overrides it for text in that font (Japanese fonts are fcharset 128 = Shift_JIS whatever the
 * document's ANSI code page). Both map to TextDecoder labels; `decodeAs` does the decoding.
 */

/** Windows code page numbers to TextDecoder labels (the rest are tried as `windows-N`). */
const CODE_PAGES: Record<number, string> = {
  708: 'iso-8859-6',
  850: 'windows-1252',
  852: 'iso-8859-2',
  866: 'ibm866',
  874: 'windows-874',
  932: 'shift_jis',
  936: 'gb18030',
  949: 'euc-kr',
  950: 'big5',
  1361: 'euc-kr',
  10000: 'macintosh',
  10001: 'shift_jis',
  10003: 'euc-kr',
  10008: 'gb18030',
  10002: 'big5',
  10007: 'x-mac-cyrillic',
  20932: 'euc-jp',
  20936: 'gb18030',
  28591: 'windows-1252',
  65001: 'utf-8',
};

/** `\fcharsetN` values to Windows code pages (RTF 1.9.1 specification, \fcharset table). */
const CHARSET_CODE_PAGES: Record<number, number> = {
  77: 10000,
  78: 10001,
  79: 10003,
  80: 10008,
  81: 10002,
  85: 10007,
  128: 932,
  129: 949,
  130: 1361,
  134: 936,
  136: 950,
  161: 1253,
  162: 1254,
  163: 1258,
  177: 1255,
  178: 1256,
  186: 1257,
  204: 1251,
  222: 874,
  238: 1250,
};

/** TextDecoder label for a Windows code page; windows-1252 when TextDecoder does not know it. */
export function codePageLabel(codePage: number): string {
  const label = CODE_PAGES[codePage] ?? textDecoderLabel(`windows-${codePage}`);
  return label ?? 'windows-1252';
}

/**
 * The code page a font's `\fcharset` implies, or undefined when it defers to the document's
 * (`\fcharset0` ANSI and `\fcharset1` default both mean the document's `\ansicpg`; `\fcharset2`
 * symbol, OEM and unknown values fall back to it too).
 */
export function charsetCodePage(charset: number): number | undefined {
  return CHARSET_CODE_PAGES[charset];
}
