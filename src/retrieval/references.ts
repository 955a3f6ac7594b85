import { CHINESE_APPENDIX_WORDS, CHINESE_UNIT_PATTERN, CHINESE_UNITS } from './numbering.js';
import { ARABIC_DIGITS, CHINESE_NUMERAL_CHARS, ENGLISH_NUMBER_WORDS, ENGLISH_ORDINAL_WORDS, parseDotted, parseNumeral, type NumeralKind } from './numerals.js';

/**
 * Section references in a query: `第三章第二节`, `第3章`, `第二部分`, `（二）`, `3.2节`, `附件二`,
 * `Section 3.2`, `chapter 4`, `§ 4.1`, `Part II`, `Appendix B`, `the fourth part`, and chains of
 * them (`第二部分第三章`, `chapter 3 section 2`, `section 2 of chapter 3`). The grammar is a table of
 * rules (one line each, both languages); `findSectionReferences` scans a query with every rule,
 * keeps the longest non-overlapping matches, chains adjacent ones (only connectors such as 的, 中,
 * `of`, `in` between them) into one reference from the outermost level in, and returns the query
 * with the references cut out as the keywords to search for.
 */

/** What a step of a reference names: the level of the document it points into. */
export type ReferenceRole =
  /** 第二部分, 第一篇, Part II, the fourth part */
  | 'part'
  /** 第三章, chapter 4 */
  | 'chapter'
  /** 第二节 */
  | 'section'
  /** Section 3.2, § 4.1, 3.2节: a numbered section, the numbers being its path */
  | 'numbered'
  /** 第五条, Article 5 */
  | 'article'
  /** 第二款, clause 2 */
  | 'clause'
  /** 第三项 */
  | 'item'
  /** （二）, (2) */
  | 'paren'
  /** 附件二, 附录A, Appendix B */
  | 'appendix';

export interface ReferenceStep {
  role: ReferenceRole;
  /** One number, or a dotted path (`3.2` -> [3, 2]). */
  values: number[];
  /** A one-letter Roman numeral (`Part C`) read as a letter. */
  letterValue?: number;
}

export interface SectionReference {
  /** The reference as written in the query, e.g. `第三章第二节`. */
  text: string;
  /** Its span in the query. */
  start: number;
  end: number;
  /** Outermost first: `section 2 of chapter 3` -> chapter 3, then section 2. */
  steps: ReferenceStep[];
}

export interface ReferenceScan {
  references: SectionReference[];
  /** The query without its references (whitespace collapsed), what the retrievers search for. */
  keywords: string;
}

/** Outer levels first when a chain is ordered (part > chapter > section …). */
export const ROLE_RANK: Record<ReferenceRole, number> = {
  part: 0, appendix: 0, chapter: 1, section: 2, numbered: 2, article: 3, clause: 4, item: 5, paren: 5,
};

interface GrammarRule {
  /** A readable name (tests and docs list the rules). */
  name: string;
  /** Forms the rule finds (the tests check each). */
  examples: readonly string[];
  /** Global pattern with named groups `n` (the numeral) and optionally `unit`. */
  pattern: RegExp;
  role: ReferenceRole | ((unit: string) => ReferenceRole);
  kinds: readonly NumeralKind[];
  /** `n` may be a dotted path. */
  dotted?: boolean;
  /** A one-letter `n` that is not a Roman numeral counts only in upper case (`Part B`, not `part a`). */
  upperLetters?: boolean;
}

const D = ARABIC_DIGITS;
const CN = CHINESE_NUMERAL_CHARS;
const CJK: NumeralKind[] = ['arabic', 'chinese'];
const DOTTED = `[${D}]+(?:[.．][${D}]+)+`;
const UNIT_ROLES: Record<string, ReferenceRole> = Object.fromEntries(
  Object.entries(CHINESE_UNITS).map(([unit, style]) => [unit, style as ReferenceRole]),
);
const ENGLISH_UNIT_ROLES: Record<string, ReferenceRole> = {
  chapter: 'chapter', section: 'numbered', part: 'part', appendix: 'appendix', article: 'article', clause: 'clause', paragraph: 'clause',
};
// An English word boundary that also holds next to CJK text ("见chapter 3").
const B = '(?<![A-Za-z])';
const E = '(?![A-Za-z0-9])';

/** The grammar. Add a form by adding a line. */
export const REFERENCE_GRAMMAR: readonly GrammarRule[] = [
  { name: 'zh-ordinal-unit', examples: ['第三章', '第3.2节', '第二部分', '第十一条'], pattern: new RegExp(`第\\s*(?<n>${DOTTED}|[${D}]+|[${CN}]+)\\s*(?<unit>${CHINESE_UNIT_PATTERN})`, 'gu'), role: (u) => UNIT_ROLES[u]!, kinds: CJK, dotted: true },
  { name: 'zh-dotted-unit', examples: ['3.2节', '4.1条'], pattern: new RegExp(`(?<![${D}.．])(?<n>${DOTTED})\\s*(?<unit>小节|节|条|款|章)`, 'gu'), role: (u) => (u === '节' || u === '小节' ? 'numbered' : UNIT_ROLES[u]!), kinds: ['arabic'], dotted: true },
  { name: 'zh-appendix', examples: ['附件二', '附录A'], pattern: new RegExp(`(?:${CHINESE_APPENDIX_WORDS})\\s*(?<n>[${D}]+|[${CN}]+|[A-Za-zＡ-Ｚ](?![A-Za-z]))`, 'gu'), role: 'appendix', kinds: [...CJK, 'letter'] },
  { name: 'zh-paren', examples: ['（二）', '(三)'], pattern: new RegExp(`[（(]\\s*(?<n>[${CN}]+)\\s*[）)]`, 'gu'), role: 'paren', kinds: ['chinese'] },
  { name: 'paren-number', examples: ['（2）'], pattern: new RegExp(`（\\s*(?<n>[${D}]+)\\s*）`, 'gu'), role: 'paren', kinds: ['arabic'] },
  { name: 'en-chapter', examples: ['chapter 4', 'Chapter IV', 'ch. 4', 'chapter two'], pattern: new RegExp(`${B}(?<unit>chapter|chap\\.|ch\\.)\\s*(?<n>\\d+|[ivxlcdm]+|${ENGLISH_NUMBER_WORDS})${E}`, 'giu'), role: 'chapter', kinds: ['arabic', 'roman', 'word'] },
  { name: 'en-section', examples: ['Section 3.2', 'sec. 3', '§ 4.1'], pattern: new RegExp(`(?:${B}(?:section|sect?\\.)\\s*|§§?\\s*)(?<n>\\d+(?:\\.\\d+)*)(?![0-9])`, 'giu'), role: 'numbered', kinds: ['arabic'], dotted: true },
  { name: 'en-part', examples: ['Part II', 'part 2', 'Part B'], pattern: new RegExp(`${B}part\\s+(?<n>\\d+|[ivxlcdm]+|${ENGLISH_NUMBER_WORDS}|[A-Z])${E}`, 'giu'), role: 'part', kinds: ['arabic', 'roman', 'word', 'letter'], upperLetters: true },
  { name: 'en-appendix', examples: ['Appendix B', 'annex 2'], pattern: new RegExp(`${B}(?:appendix|annexe?|app\\.)\\s*(?<n>\\d+|[a-z]|[ivxlc]+)${E}`, 'giu'), role: 'appendix', kinds: ['arabic', 'letter', 'roman'] },
  { name: 'en-article', examples: ['Article 5', 'art. 5'], pattern: new RegExp(`${B}(?:article|art\\.)\\s*(?<n>\\d+(?:\\.\\d+)*)(?![0-9])`, 'giu'), role: 'article', kinds: ['arabic'], dotted: true },
  { name: 'en-clause', examples: ['clause 4.2', 'paragraph 3'], pattern: new RegExp(`${B}(?<unit>clause|paragraph|para\\.)\\s*(?<n>\\d+(?:\\.\\d+)*)(?![0-9])`, 'giu'), role: 'clause', kinds: ['arabic'], dotted: true },
  { name: 'en-ordinal', examples: ['the fourth part', '2nd chapter'], pattern: new RegExp(`${B}(?:the\\s+)?(?<n>${ENGLISH_ORDINAL_WORDS}|\\d+(?:st|nd|rd|th))\\s+(?<unit>chapter|section|part|appendix|article|clause|paragraph)s?${E}`, 'giu'), role: (u) => ENGLISH_UNIT_ROLES[u.toLowerCase()]!, kinds: ['word'] },
];

// What may stand between two steps of one reference: 第三章的第二节, chapter 3, section 2, section 2 of chapter 3.
const CONNECTOR = /^(?:\s|的|之|中的?|里的?|内的?|[,，、:：]|of(?:\s+the)?(?![A-Za-z])|in(?:\s+the)?(?![A-Za-z]))*$/iu;

interface Token {
  start: number;
  end: number;
  step: ReferenceStep;
}

/** Finds the section references in `query` and the keywords left when they are cut out. */
export function findSectionReferences(query: string): ReferenceScan {
  const tokens = scanTokens(query);
  const references: SectionReference[] = [];
  let group: Token[] = [];
  const flush = () => {
    if (group.length === 0) return;
    const start = group[0]!.start;
    const end = group[group.length - 1]!.end;
    const steps = group.map((t) => t.step).sort((a, b) => ROLE_RANK[a.role] - ROLE_RANK[b.role]);
    references.push({ text: query.slice(start, end), start, end, steps });
    group = [];
  };
  for (const token of tokens) {
    const last = group[group.length - 1];
    const chains = last !== undefined
      && CONNECTOR.test(query.slice(last.end, token.start))
      && group.every((t) => ROLE_RANK[t.step.role] !== ROLE_RANK[token.step.role]);
    if (!chains) flush();
    group.push(token);
  }
  flush();
  return { references, keywords: cutOut(query, references) };
}

/** A whole string read as one reference (for `--section "第三章第二节"`), or undefined. */
export function parseReference(text: string): SectionReference | undefined {
  const trimmed = text.trim();
  const { references } = findSectionReferences(trimmed);
  const only = references.length === 1 ? references[0]! : undefined;
  return only && only.start === 0 && only.end === trimmed.length ? only : undefined;
}

function scanTokens(query: string): Token[] {
  const found: Token[] = [];
  for (const rule of REFERENCE_GRAMMAR) {
    for (const match of query.matchAll(rule.pattern)) {
      const groups = match.groups as Record<string, string | undefined>;
      const n = groups.n!;
      const role = typeof rule.role === 'function' ? rule.role(groups.unit ?? '') : rule.role;
      const step = stepOf(role, n, rule);
      if (step) found.push({ start: match.index, end: match.index + match[0].length, step });
    }
  }
  // Left to right; of two that overlap, the longer (the first when equal) stays.
  found.sort((a, b) => a.start - b.start || b.end - b.start - (a.end - a.start));
  const kept: Token[] = [];
  for (const token of found) {
    const last = kept[kept.length - 1];
    if (!last || token.start >= last.end) kept.push(token);
    else if (token.end - token.start > last.end - last.start) kept[kept.length - 1] = token;
  }
  return kept;
}

function stepOf(role: ReferenceRole, n: string, rule: GrammarRule): ReferenceStep | undefined {
  if (rule.dotted && /[.．]/.test(n)) {
    const values = parseDotted(n);
    return values ? { role: role === 'section' ? 'numbered' : role, values } : undefined;
  }
  if (rule.upperLetters && /^[a-z]$/.test(n) && parseNumeral(n, ['roman']) === undefined) return undefined;
  // `Part C`, `Part I`: one letter that is also a Roman numeral keeps both readings.
  const value = parseNumeral(n, rule.kinds);
  if (value === undefined) return undefined;
  const step: ReferenceStep = { role, values: [value] };
  if (n.length === 1 && rule.kinds.includes('roman') && rule.kinds.includes('letter')) {
    const letter = parseNumeral(n, ['letter']);
    if (letter !== undefined && letter !== value) step.letterValue = letter;
  }
  return step;
}

function cutOut(query: string, references: readonly SectionReference[]): string {
  let out = '';
  let cursor = 0;
  for (const ref of references) {
    out += `${query.slice(cursor, ref.start)} `;
    cursor = ref.end;
  }
  return (out + query.slice(cursor)).replace(/\s+/g, ' ').trim();
}
