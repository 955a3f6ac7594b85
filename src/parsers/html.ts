import { isProbablyReaderable, Readability } from '@mozilla/readability';
import type { DocumentDraft, ElementDraft } from '../document/types.js';
import type { ParseInput, ParseOptions, ParserDefinition } from './types.js';
import { type DomDocument, type DomElement, parseBoundedHtml } from './html-dom.js';
import { parseLimits } from '../limits.js';
import { flatText, mainText, runningTextLength, walkHtml } from './html-walk.js';
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
  version: '2',
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
  const maxNesting = parseLimits().maxNesting;
  const { document, flattened } = parseBoundedHtml(source.replace(CRLF, '\n'), maxNesting);
  const head = readHead(document);
  // The root, not <body>: <head> is skipped by the walker, and on malformed pages linkedom can leave
  // an empty <body> first with the content in a second one.
  const root = document.documentElement;
  const warnings: string[] = [];
  if (flattened > 0) warnings.push(`${flattened} element(s) nested more than ${maxNesting} levels deep were flattened into their ancestor at that depth (maxNesting; raise it with --max-nesting)`);
  if (!root) return { elements: [], ...head, warnings };
  if (!options.mainContent) {
    const elements = walkHtml(root, { dropBoilerplate: false });
    const title = head.title ?? elements.find((el) => el.kind === 'heading' && el.level === 1)?.text;
    return { elements, ...head, ...(title && { title }), warnings };
  }

  const main = mainText(root);
  let whole = walkHtml(root, { dropBoilerplate: true, keep: main.chain });
  if (textLength(whole) === 0) {
    // The filter never drops the page: when it would leave nothing (a page that is all navigation),
    // the whole page is the content.
    const unfiltered = walkHtml(root, { dropBoilerplate: false });
    if (textLength(unfiltered) > 0) {
      whole = unfiltered;
      warnings.push('the boilerplate filter would have removed all of the page: kept the whole page');
    }
  }
  const marked = main.landmark ? walkHtml(main.landmark, { dropBoilerplate: true, keep: main.chain }) : undefined;
  const choice = extractArticle(document, whole, marked && textLength(marked) > 0 ? { elements: marked, tag: landmarkName(main.landmark!), runningText: main.landmarkText } : undefined, head.title);
  if (choice.warning) warnings.push(choice.warning);
  const elements = choice.elements ?? whole;
  const title = choice.title ?? head.title ?? elements.find((el) => el.kind === 'heading' && el.level === 1)?.text;
  return { elements, ...head, ...(title && { title }), warnings };
}

interface ArticleChoice {
  /** The content's elements, or undefined to keep the boilerplate-free body. */
  elements: ElementDraft[] | undefined;
  title?: string;
  /** Set when content was removed or extraction was refused; quiet when the whole page is kept as is. */
  warning?: string;
}

/** The page's own main content: the walk of its content landmark (`<main>`, `<article>`, role=main) on the main-text chain. */
interface MarkedContent {
  elements: ElementDraft[];
  /** How to name it in a warning, e.g. `<main>`. */
  tag: string;
  /** Its running text (text outside links and navigation), see `mainText`. */
  runningText: number;
}

function landmarkName(el: DomElement): string {
  const role = el.getAttribute('role');
  return role && el.localName !== 'main' && el.localName !== 'article' ? `<${el.localName} role="${role}">` : `<${el.localName}>`;
}

/**
 * Decides what the page's content is. Where the page marks it (a `<main>`, `<article>` or
 * role=main element holding most of its running text), that is the content, and Readability's
 * article replaces it only when Readability cleaned nothing but chrome: every heading of the
 * marked content kept, at least 90% of its running text, and nothing from outside it. Elsewhere Readability's article is
 * judged against the boilerplate-free body (`judgeArticle`). Readability mutates the document,
 * so the walks (`whole`, `marked`) must already be done.
 */
function extractArticle(document: DomDocument, whole: readonly ElementDraft[], marked: MarkedContent | undefined, headTitle: string | undefined): ArticleChoice {
  // Readability turns every <h1> into <h2>; record the real levels first.
  const headings = document.querySelectorAll('h1');
  const h1Texts: string[] = [];
  for (let i = 0; i < headings.length; i++) {
    headings[i]!.setAttribute('data-gw-level', '1');
    h1Texts.push(flatText(headings[i]!, { dropBoilerplate: false }));
  }
  // A page's <title> often carries the site name ('Ducks - Bird Site'); the page's own <h1> is cleaner.
  const cleanTitle = (pageTitle: string | undefined) => (pageTitle ? h1Texts.find((h1) => h1 && pageTitle.includes(h1)) ?? pageTitle : undefined);
  const useMarked = (why: string): ArticleChoice => {
    const title = cleanTitle(headTitle);
    const titled = title && h1Texts.includes(title) && !hasHeading(marked!.elements, title) ? [{ kind: 'heading' as const, text: title, level: 1 }, ...marked!.elements] : marked!.elements;
    const removed = textLength(whole) - textLength(marked!.elements);
    return {
      elements: titled,
      ...(title && { title }),
      warning: `kept the page's main content (${marked!.tag})${removed > 0 ? `: ${removed} of ${textLength(whole)} characters of navigation and boilerplate removed` : ''}${why}`,
    };
  };

  if (!isProbablyReaderable(document as never)) return marked ? useMarked('') : { elements: undefined };
  const parsed = new Readability<DomElement>(document as never, { keepClasses: true, serializer: (node) => node as unknown as DomElement }).parse();
  const content = parsed?.content;
  if (!parsed || !content) {
    if (marked) return useMarked('');
    return { elements: undefined, warning: 'main-content extraction found no article: kept the whole body without navigation and boilerplate' };
  }
  const walked = walkHtml(content, { dropBoilerplate: false });
  const title = cleanTitle(parsed.title ? collapse(parsed.title) : undefined);
  // Readability removes the heading that repeats the title; put it back unless the article opens with its own.
  const opensWithTitle = walked[0]?.kind === 'heading' && (walked[0].level === 1 || collapse(walked[0].text) === title);
  const article = title && !opensWithTitle ? [{ kind: 'heading' as const, text: title, level: 1 }, ...walked] : walked;
  if (marked) {
    const verdict = judgeAgainstMarked(marked, article, runningTextLength(content));
    if (!verdict.useArticle) return useMarked(`; ${verdict.reason}`);
    return { elements: article, ...(title && { title }), warning: `kept the main content (Readability): ${Math.max(0, textLength(whole) - textLength(article))} of ${textLength(whole)} characters of navigation and boilerplate removed` };
  }
  const verdict = judgeArticle(whole, walked);
  if (!verdict.useArticle) return { elements: undefined, ...(verdict.refused && { warning: verdict.reason }) };
  return { elements: article, ...(title && { title }), warning: verdict.reason };
}

/** Readability's article must keep at least this share of the marked content's running text. */
const MIN_MARKED_SHARE = 0.9;

/** Whether Readability's article may replace the page's marked content: it must have removed only chrome. */
export function judgeAgainstMarked(
  marked: Pick<MarkedContent, 'elements' | 'runningText'>,
  article: readonly ElementDraft[],
  articleRunningText: number,
): { useArticle: boolean; reason: string } {
  const kept = new Set(article.filter((el) => el.kind === 'heading').map((el) => collapse(el.text)));
  const lost = marked.elements.filter((el) => el.kind === 'heading' && collapse(el.text) !== '' && !kept.has(collapse(el.text)));
  if (lost.length > 0) {
    return { useArticle: false, reason: `Readability dropped ${lost.length} of its headings ('${collapse(lost[0]!.text)}')` };
  }
  if (articleRunningText < MIN_MARKED_SHARE * marked.runningText) {
    return { useArticle: false, reason: `Readability kept only ${articleRunningText} of its ${marked.runningText} characters of running text` };
  }
  if (articleRunningText > marked.runningText) {
    return { useArticle: false, reason: `Readability added ${articleRunningText - marked.runningText} characters from outside it` };
  }
  return { useArticle: true, reason: 'Readability removed only chrome' };
}

function hasHeading(elements: readonly ElementDraft[], text: string): boolean {
  return elements.some((el) => el.kind === 'heading' && collapse(el.text) === text);
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
