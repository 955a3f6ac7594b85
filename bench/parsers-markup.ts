/**
 * Markdown and HTML parser throughput, beside the libraries they stand on (measured in the same run):
 * - Markdown: our parser (elements, plain text, source offsets) vs marked's lexer alone (its floor).
 * - HTML: our parser with main-content extraction vs linkedom parsing alone and vs linkedom +
 *   Readability returning only text (the usual main-content stack); and our whole-page walk.
 * Inputs: ~1 MB of English and Chinese prose from bench/inputs.ts shaped into Markdown / HTML
 * (headings, lists, tables every few paragraphs), plus the corpus Wikipedia page when present.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { Lexer } from 'marked';
import { parseHtml } from '../src/parsers/html.js';
import { parseMarkdown } from '../src/parsers/markdown.js';
import { benchText, mb, printTable, timeIt } from './inputs.js';

/** Median of this many runs: the bench machine is shared, single runs are noisy. */
const RUNS = 7;
const WIKI_PAGE = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'corpus', 'html', 'wiki_duck.html');

function paragraphs(text: string): string[] {
  return text.split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean);
}

/** Prose as Markdown: a heading every 6 paragraphs, a short list every 7, a table every 11. */
function asMarkdown(text: string): string {
  return paragraphs(text)
    .map((p, i) => {
      const head = i % 6 === 0 ? `## Section ${i / 6 + 1}\n\n` : '';
      const words = p.split(/\s+/).slice(0, 3);
      const list = i % 7 === 3 ? `\n\n- ${words[0] ?? 'a'} item\n  - nested **${words[1] ?? 'b'}**\n- [link](https://x.test/${i})` : '';
      const table = i % 11 === 5 ? `\n\n| key | value |\n| --- | --- |\n| ${i} | \`${words[2] ?? 'c'}\` |` : '';
      return `${head}${p}${list}${table}`;
    })
    .join('\n\n');
}

/** Prose as an HTML article page with a navigation bar and footer. */
function asHtml(text: string): string {
  const body = paragraphs(text)
    .map((p, i) => {
      const head = i % 6 === 0 ? `<h2>Section ${i / 6 + 1}</h2>\n` : '';
      const list = i % 7 === 3 ? `\n<ul><li>first <b>item</b></li><li>second item</li></ul>` : '';
      const table = i % 11 === 5 ? `\n<table><tr><th>key</th><th>value</th></tr><tr><td>${i}</td><td>v</td></tr></table>` : '';
      return `${head}<p>${p.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</p>${list}${table}`;
    })
    .join('\n');
  return `<!DOCTYPE html><html lang="en"><head><title>Bench</title></head><body><nav><a href="/">Home</a> <a href="/a">About</a></nav>
<article><h1>Bench article</h1>\n${body}</article><footer>Footer</footer></body></html>`;
}

function rate(bytes: number, seconds: number): number {
  return bytes / seconds;
}

export async function main(): Promise<void> {
  const size = 1024 * 1024;
  const mdRows: (string | number)[][] = [];
  for (const lang of ['en', 'zh'] as const) {
    const md = asMarkdown(benchText(lang, size));
    const ours = timeIt(() => parseMarkdown(md), RUNS);
    const lexer = timeIt(() => new Lexer({ gfm: true }).lex(md), RUNS);
    mdRows.push([`${lang} ${mb(md).toFixed(2)} MB`, rate(mb(md), ours), rate(mb(md), lexer), ours / lexer]);
  }
  printTable('Markdown: MB/s', ['input', 'groundwork markdown', 'marked lexer only', 'time ratio (ours / lexer)'], mdRows);

  const inputs: [string, string][] = [];
  for (const lang of ['en', 'zh'] as const) inputs.push([`${lang} article`, asHtml(benchText(lang, size))]);
  if (existsSync(WIKI_PAGE)) inputs.push(['wiki_duck.html', readFileSync(WIKI_PAGE, 'utf8')]);
  const htmlRows: (string | number)[][] = [];
  for (const [name, html] of inputs) {
    const main = timeIt(() => parseHtml(html, { mainContent: true }), RUNS);
    const whole = timeIt(() => parseHtml(html, { mainContent: false }), RUNS);
    const linkedom = timeIt(() => parseHTML(html), RUNS);
    const readability = timeIt(() => new Readability(parseHTML(html).document).parse()?.textContent, RUNS);
    htmlRows.push([
      `${name} ${mb(html).toFixed(2)} MB`,
      rate(mb(html), main),
      rate(mb(html), whole),
      rate(mb(html), linkedom),
      rate(mb(html), readability),
      main / readability,
    ]);
  }
  printTable(
    'HTML: MB/s',
    ['input', 'groundwork (main content)', 'groundwork (whole page)', 'linkedom parse only', 'linkedom + Readability (text)', 'time ratio (main content / Readability)'],
    htmlRows,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
