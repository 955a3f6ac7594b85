import fc from 'fast-check';
import { Lexer } from 'marked';
import { describe, expect, test } from 'vitest';
import { DEFAULT_PARSE_LIMITS, withParseLimits } from '../../src/limits.js';
import { inlineText, parseMarkdown } from '../../src/parsers/markdown.js';
import { plainInline } from '../../src/parsers/markdown-inline.js';
import { delimiterCount, MAX_MARKED_DELIMITERS } from '../../src/parsers/markdown-lexer.js';

/** What the Markdown parser makes of a run lexed by marked. */
function viaMarked(src: string, defs = ''): string {
  const lexer = new Lexer({ gfm: true });
  if (defs) lexer.blockTokens(defs, lexer.tokens);
  return inlineText(lexer.inlineTokens(src));
}

function viaReader(src: string, links = {}): string {
  return inlineText([{ type: 'plain', raw: src, text: plainInline(src, links) } as never]);
}

const WORDS = ['word', 'two words', 'snake_case_name', 'x', '中文', 'é', '42', ' ', ' ', ' ', ', ', '. ', '!', '?', '(', ')', ':'];
const MARKUP = ['*', '**', '_', '__', '~~', '`', '``', '[', ']', '](http://x.y)', '](<a b>)', '](u "t")', '![', '<br>', '<b>', '</b>', '<!-- c -->', '&amp;', '&lt;', '&#35;', '\\*', '\\_', '\\[', '\n', '  \n', '<http://x.y/z>', '<a@b.co>', '[ref]', '[ref][]', '[x][ref]'];

describe('markdown inline reader: parity with marked', () => {
  const run = (weights: { words: number; markup: number }) =>
    fc
      .array(fc.oneof({ arbitrary: fc.constantFrom(...WORDS), weight: weights.words }, { arbitrary: fc.constantFrom(...MARKUP), weight: weights.markup }), { maxLength: 30 })
      .map((parts) => parts.join('').trim())
      .filter((s) => s !== '');

  test('realistic inline text reads as marked reads it (fast-check)', () => {
    const defs = '[ref]: http://example.com\n';
    const links = { ref: { href: 'http://example.com', title: null } };
    for (const weights of [{ words: 6, markup: 1 }, { words: 2, markup: 1 }]) {
      fc.assert(
        fc.property(run(weights), (src) => {
          expect(viaReader(src, links)).toBe(viaMarked(src, defs));
        }),
        { seed: 20261201, numRuns: 1500 },
      );
    }
  });

  test('common markup reads as marked reads it', () => {
    for (const src of [
      'a **bold** and *em* and _under_ and __strong__ and ~~gone~~ text',
      'snake_case_identifiers_stay and 2*3*4 too',
      'see [the docs](http://x.y "Title") or ![a chart](c.png) now',
      'code `a * b` and ``x ` y`` here',
      'line one  \nline two\\\nline three\nline four',
      'Tom &amp; Jerry &lt;3 &#169;',
      '<b>bold</b> and<br>break <!-- gone -->',
      'escaped \\*stars\\* and \\_under\\_',
      '***both*** and **_mixed_** and *a **b** c*',
      'unclosed *star and **double and _under',
    ]) {
      expect(viaReader(src)).toBe(viaMarked(src));
    }
  });
});

describe('markdown lexer: linear block quotes and emphasis', () => {
  test('block quotes read as with marked’s lexer (fast-check)', () => {
    // Common shapes: nested quotes, lazy lines, lists, code, headings, rules. Not reproduced: how
    // marked reads indented lazy lines between quotes of different depths.
    const line = fc.constantFrom('> ', '> > ', '> > > ', '', '>', '> - ', '- ', '> # ', '> ```', '```', '> 1. ');
    const text = fc.constantFrom('text', 'more words', 'x', '---', '===', '| a |', '*em*');
    fc.assert(
      fc.property(fc.array(fc.tuple(line, text), { maxLength: 12 }), (lines) => {
        const src = lines.map(([m, t]) => m + t).join('\n');
        expect(parseMarkdown(src).elements).toEqual(parseMarkdown(src, (s) => new Lexer({ gfm: true }).lex(s)).elements);
      }),
      { seed: 20261201, numRuns: 1500 },
    );
  });

  test('a staircase of quotes 300 deep parses when maxNesting allows it (marked doubled its work per level)', () => {
    const lines: string[] = [];
    for (let d = 1; d <= 300; d++) lines.push(`${'> '.repeat(d)}level ${d}`);
    for (let d = 299; d >= 1; d--) lines.push(`${'> '.repeat(d)}back ${d}`);
    // Past the default nesting limit (256) it is LIMIT_EXCEEDED, naming the limit.
    expect(() => parseMarkdown(lines.join('\n'))).toThrow(expect.objectContaining({ code: 'LIMIT_EXCEEDED', limit: expect.objectContaining({ name: 'maxNesting' }) }));
    const { elements } = withParseLimits({ ...DEFAULT_PARSE_LIMITS, maxNesting: 400 }, () => parseMarkdown(lines.join('\n')));
    expect(elements.map((el) => el.kind)).toEqual(['quote']);
    // Lazy continuation: every line after the deepest one continues its paragraph.
    expect(elements[0]!.text).toContain('level 300 back 299');
  });

  test('runs with many delimiters are read by the linear reader; their text drops paired markers', () => {
    const src = `${'**bold** and _under_ '.repeat(40)}tail`;
    expect(delimiterCount(src)).toBeGreaterThan(MAX_MARKED_DELIMITERS);
    const { elements } = parseMarkdown(src);
    expect(elements[0]!.text).toBe(`${'bold and under '.repeat(40)}tail`);
    // 40,000 characters of `_*~` soup (marked: minutes) reads as text.
    const soup = parseMarkdown('_*~'.repeat(13_000));
    expect(soup.elements[0]!.text.length).toBeGreaterThan(1000);
  });
});
