import { isProbablyReaderable, Readability } from '@mozilla/readability';
import type { DocumentDraft, ElementDraft } from '../document/types.js';
import type { ParseInput, ParseOptions, ParserDefinition } from './types.js';
import { type DomDocument, type DomElement, parseHtmlDocument } from './html-dom.js';
import { walkHtml } from './html-walk.js';
import { withinStack } from './markdown.js';

/**
 * HTML parser. Main content is kept and page chrome dropped: Readability (on linkedom) when the page
 * reads as an article and Readability keeps most of its text and tables; otherwise the whole body
 * minus navigation, page header/footer, asides, forms and boilerplate roles/classes. Readability
 * rejects or guts non-article pages (data sheets, filings, bare tables), hence the fallback.
 */

/** Readability's text must keep at least this share of the boilerplate-free body text... */
const MIN_ARTICLE_SHARE = 0.35;
/** ...and at least this share of its table text, when tables are a real part of the page. */
const MIN_TABLE_SHARE = 0.5;
const TABLE_HEAVY_SHARE = 0.15;
/** When Readability removes less than this share, the whole body is as clean and keeps its structure. */
const NOTHING_REMOVED_SHARE = 0.97;

const WHITESPACE_RUN = /\s+/g;
const CRLF = /\r\n?/g;

export interface HtmlResult {
  elements: ElementDraft[];
  title?: string;
  language?: string;
  metadata: Record<string, unknown>;
  warnings: string[];
}

export const htmlParser: ParserDefinition = {
  formats: ['html'],
  version: '1',
  textual: true,
  parse(input: ParseInput, options: ParseOptions): DocumentDraft {
    const text = input.text ?? new TextDecoder('utf-8').decode(input.bytes);
    const result = withinStack(() => parseHtml(text, { mainContent: options.htmlMainContent ?? true }));
    return {
      format: 'html',
      mime: 'text/html',
      ...(result.title !== undefined && { title: result.title }),
      ...(result.language !== undefined && { language: result.language }),
      metadata: result.metadata,
      elements: result.elements,
      warnings: result.warnings,
    };
  },
};

export function parseHtml(html: string, options: { mainContent: boolean }): HtmlResult {
  const source = html.charCodeAt(0) === 0xfeff ? html.slice(1) : html;
  const document = parseHtmlDocument(source.replace(CRLF, '\n'));
  const head = readHead(document);
  // The root, not <body>: <head> is skipped by the walker, and on malformed pages linkedom can leave
  // an empty <body> first with the content in a second one.
  const root = document.documentElement;
  const warnings: string[] = [];
  if (!root) return { elements: [], ...head, warnings };

  const whole = walkHtml(root, { dropBoilerplate: options.mainContent });
  let elements = whole;
  let title = head.title;
  if (options.mainContent) {
    const article = extractArticle(document, whole);
    if (article.warning) warnings.push(article.warning);
    if (article.elements) {
      elements = article.elements;
      if (article.title) title = article.title;
    }
  }
  title ??= elements.find((el) => el.kind === 'heading' && el.level === 1)?.text;
  return { elements, ...head, ...(title && { title }), warnings };
}

interface ArticleChoice {
  /** The article's elements, or undefined to keep the boilerplate-free body. */
  elements: ElementDraft[] | undefined;
  title?: string;
  /** Set when content was removed or extraction was refused; quiet when the whole page is kept as is. */
  warning?: string;
}

/**
 * Runs Readability and decides whether its article or the boilerplate-free body is the content.
 * Readability mutates the document, so the body walk (`whole`) must already be done.
 */
function extractArticle(document: DomDocument, whole: readonly ElementDraft[]): ArticleChoice {
  if (!isProbablyReaderable(document as never)) return { elements: undefined };
  // Readability turns every <h1> into <h2>; record the real levels first.
  const headings = document.querySelectorAll('h1');
  const h1Texts: string[] = [];
  for (let i = 0; i < headings.length; i++) {
    headings[i]!.setAttribute('data-gw-level', '1');
    h1Texts.push(collapse(headings[i]!.textContent ?? ''));
  }
  const parsed = new Readability<DomElement>(document as never, { keepClasses: true, serializer: (node) => node as unknown as DomElement }).parse();
  const content = parsed?.content;
  if (!parsed || !content) {
    return { elements: undefined, warning: 'main-content extraction found no article: kept the whole body without navigation and boilerplate' };
  }
  const article = walkHtml(content, { dropBoilerplate: false });
  const verdict = judgeArticle(whole, article);
  if (!verdict.useArticle) return { elements: undefined, ...(verdict.refused && { warning: verdict.reason }) };
  // Readability's title may keep the site name ('Ducks - Bird Site'); the page's own <h1> is cleaner.
  const pageTitle = parsed.title ? collapse(parsed.title) : undefined;
  const title = pageTitle ? h1Texts.find((h1) => h1 && pageTitle.includes(h1)) ?? pageTitle : undefined;
  const elements = title && !startsWithHeading(article, title) ? [{ kind: 'heading' as const, text: title, level: 1 }, ...article] : article;
  return {
    elements,
    ...(title && { title }),
    warning: verdict.reason,
  };
}

/**
 * Whether Readability's article (`article`) should replace the boilerplate-free body (`body`): it
 * must keep enough of the text and of the tables, and remove enough to be worth its restructuring.
 */
export function judgeArticle(
  body: readonly ElementDraft[],
  article: readonly ElementDraft[],
): { useArticle: boolean; /** True when the article was rejected as damaging (worth a warning). */ refused: boolean; reason: string } {
  const bodyChars = textLength(body);
  const articleChars = textLength(article);
  const bodyTableChars = textLength(body.filter((el) => el.kind === 'table'));
  const articleTableChars = textLength(article.filter((el) => el.kind === 'table'));
  if (articleChars < MIN_ARTICLE_SHARE * bodyChars) {
    return { useArticle: false, refused: true, reason: `main-content extraction kept only ${articleChars} of ${bodyChars} characters: kept the whole body without navigation and boilerplate instead` };
  }
  if (bodyTableChars > TABLE_HEAVY_SHARE * bodyChars && articleTableChars < MIN_TABLE_SHARE * bodyTableChars) {
    return { useArticle: false, refused: true, reason: `main-content extraction dropped tables (${articleTableChars} of ${bodyTableChars} table characters kept): kept the whole body without navigation and boilerplate instead` };
  }
  if (articleChars >= NOTHING_REMOVED_SHARE * bodyChars) {
    return { useArticle: false, refused: false, reason: `the page has no boilerplate to remove: kept the whole body (${bodyChars} characters)` };
  }
  return { useArticle: true, refused: false, reason: `kept the main content (Readability): ${bodyChars - articleChars} of ${bodyChars} characters of navigation and boilerplate removed` };
}

function startsWithHeading(elements: readonly ElementDraft[], title: string): boolean {
  const first = elements[0];
  return first !== undefined && first.kind === 'heading' && collapse(first.text) === title;
}

function textLength(elements: readonly ElementDraft[]): number {
  let n = 0;
  for (const el of elements) n += el.kind === 'image' ? (el.alt ?? '').length : el.text.length;
  return n;
}

function collapse(text: string): string {
  return text.replace(WHITESPACE_RUN, ' ').trim();
}

/** <meta> names and property prefixes kept as metadata. */
const META_NAMES = new Set(['description', 'author', 'keywords', 'generator', 'date', 'robots']);
const META_PREFIXES = ['og:', 'article:', 'dc.', 'dcterms.', 'twitter:'];

interface HeadInfo {
  title?: string;
  language?: string;
  metadata: Record<string, unknown>;
}

/** Title, language and <meta> metadata, read before Readability mutates the document. */
function readHead(document: DomDocument): HeadInfo {
  const metadata: Record<string, unknown> = {};
  const titleText = collapse(document.querySelector('title')?.textContent ?? '');
  if (titleText) metadata.title = titleText;
  const metas = document.querySelectorAll('meta');
  let httpLanguage: string | undefined;
  for (let i = 0; i < metas.length; i++) {
    const meta = metas[i]!;
    const content = collapse(meta.getAttribute('content') ?? '');
    if (!content) continue;
    const httpEquiv = (meta.getAttribute('http-equiv') ?? '').toLowerCase();
    if (httpEquiv === 'content-language') httpLanguage = content;
    const key = (meta.getAttribute('name') ?? meta.getAttribute('property') ?? '').toLowerCase();
    if (!key || !(META_NAMES.has(key) || META_PREFIXES.some((prefix) => key.startsWith(prefix)))) continue;
    metadata[key] = key === 'keywords' ? content.split(',').map((k) => k.trim()).filter(Boolean) : content;
  }
  const canonical = document.querySelector('link[rel="canonical"]')?.getAttribute('href');
  if (canonical) metadata.canonicalUrl = canonical;
  const language = collapse(document.documentElement?.getAttribute('lang') ?? '') || httpLanguage;
  const title = titleText || (typeof metadata['og:title'] === 'string' ? metadata['og:title'] : undefined);
  return { metadata, ...(title && { title }), ...(language && { language }) };
}
