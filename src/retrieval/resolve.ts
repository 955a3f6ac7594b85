import type { NumberingStyle, Numbering } from './numbering.js';
import { parseHeadingNumbering } from './numbering.js';
import { parseChinese, parseDotted, parseRoman } from './numerals.js';
import { outlineNodes, type Outline, type OutlineNode } from './outline.js';
import { parseReference, type ReferenceRole, type ReferenceStep, type SectionReference } from './references.js';

/**
 * Resolving a section reference against outlines. A step of a reference matches a heading by, in
 * order of preference:
 *
 * - `numbering` (quality 3): the heading is numbered the way the reference is written, with the
 *   same number (`第二章` -> `第二章 安装`, `Section 3.2` -> `3.2 Trace Trees`, `（二）` -> `（二）…`);
 * - `numbering-other` (2): numbered in another style that plays the same role (`第二章` ->
 *   `二、建设内容` in a report numbered 一、二、三; `第二节` under it -> `（二）…`; `the fourth part`
 *   -> `四、…`; `chapter 4` -> `4. Nested …`), or a dotted heading standing for a chain
 *   (`第二章第二节` -> `2.2 …` where the slides flattened the levels);
 * - `position` (1): where the sibling headings carry no numbers, the n-th of them.
 *
 * Chapter- and part-like references without a parent look at the top structural level (the
 * shallowest level where headings are numbered: below a document title); other steps look at the
 * children of the previous step's heading, then deeper. A chain's quality is its weakest step; in
 * one outline the best chains win. More than one match (in one document or several) is an ambiguity
 * the caller resolves by boosting instead of restricting.
 */

/** How a step matched a heading; selectors add the title matches. */
export type MatchKind = 'title' | 'title-prefix' | 'numbering' | 'numbering-other' | 'position' | 'title-part';

const QUALITY: Record<MatchKind, number> = { title: 4, 'title-prefix': 3, numbering: 3, 'numbering-other': 2, position: 1, 'title-part': 1 };

export interface ResolvedSection {
  docId: string;
  /** The heading path of the section: hits inside it have a `headingPath` starting with it. */
  headingPath: string[];
  title: string;
  /** The section heading's numbering as written (`（二）`, `3.2`), when it has one. */
  label?: string;
  /** How each step matched (one per step of the reference or selector). */
  how: MatchKind[];
  /** The weakest step's quality: 4 title, 3 numbering, 2 numbering of another style, 1 position. */
  quality: number;
  /** The section's span in the canonical text (heading to the next heading of its level or above). */
  start?: number;
  end?: number;
  /** Where its text starts, after the heading line. */
  bodyStart?: number;
  page?: number;
}

/** Styles that are the same kind as a reference role (quality 3). */
const SAME_STYLE: Record<ReferenceRole, readonly NumberingStyle[]> = {
  part: ['part'],
  chapter: ['chapter'],
  section: ['section'],
  numbered: ['dotted', 'section'],
  article: ['article'],
  clause: ['clause'],
  item: ['item'],
  paren: ['cn-paren', 'paren'],
  appendix: ['appendix'],
};

/** Styles that can play the role in documents numbered otherwise (quality 2). */
const OTHER_STYLES: Record<ReferenceRole, readonly NumberingStyle[]> = {
  part: ['chapter', 'cn-enum', 'roman', 'dotted', 'letter'],
  chapter: ['part', 'cn-enum', 'roman', 'dotted'],
  section: ['cn-paren', 'paren', 'dotted', 'cn-enum', 'article', 'roman', 'letter', 'circled'],
  numbered: ['chapter', 'part', 'cn-enum', 'roman', 'cn-paren', 'paren', 'article', 'clause'],
  article: ['dotted', 'section', 'paren', 'cn-paren', 'cn-enum'],
  clause: ['paren', 'cn-paren', 'dotted', 'cn-enum', 'item'],
  item: ['paren', 'cn-paren', 'dotted', 'circled', 'cn-enum', 'letter'],
  paren: ['circled'],
  appendix: [],
};

/** Roles that, without a parent, mean the top structural level. */
const TOP_ROLES: ReadonlySet<ReferenceRole> = new Set(['part', 'chapter', 'appendix']);
/** Roles that, without a parent, may count headings at the top level when they carry no numbers (`the fifth section`). */
const POSITIONAL_ROLES: ReadonlySet<ReferenceRole> = new Set([...TOP_ROLES, 'numbered']);

interface Candidate {
  node: OutlineNode;
  kind: MatchKind;
}

interface Chain {
  node: OutlineNode;
  how: MatchKind[];
}

/** The best matches of a reference's steps in one outline (several when the outline itself is ambiguous). */
export function resolveInOutline(steps: readonly ReferenceStep[], outline: Outline): ResolvedSection[] {
  const context = new OutlineContext(outline);
  const chains: Chain[] = [];
  const walk = (i: number, parent: OutlineNode | null, how: MatchKind[]) => {
    if (i === steps.length) {
      chains.push({ node: parent!, how });
      return;
    }
    for (const c of context.candidates(steps[i]!, parent)) walk(i + 1, c.node, [...how, c.kind]);
  };
  walk(0, null, []);
  // A chain of single numbers can stand for a dotted heading (第二章第二节 -> 2.2 where levels are flat).
  if (steps.length > 1 && steps.every((s) => s.values.length === 1)) {
    const path = steps.map((s) => s.values[0]!);
    for (const node of context.nodes) {
      if (node.numbering && sameValues(node.numbering.values, path)) chains.push({ node, how: steps.map(() => 'numbering-other' as const) });
    }
  }
  return best(chains.map((chain) => toSection(outline.docId, chain)));
}

/**
 * A reference over several outlines: each document's best matches, best quality first. Documents
 * are not played off against each other by quality (the one numbered `第二章` is not more likely
 * what the user means than the one numbered `二、`: the keywords decide that), except that a guess by
 * position is dropped when some document has the numbers the reference names.
 */
export function resolveReference(reference: Pick<SectionReference, 'steps'>, outlines: readonly Outline[]): ResolvedSection[] {
  const perDocument = outlines.map((outline) => resolveInOutline(reference.steps, outline)).filter((m) => m.length > 0);
  const numbered = perDocument.some((m) => m[0]!.quality > QUALITY.position);
  return perDocument
    .filter((m) => !numbered || m[0]!.quality > QUALITY.position)
    .flat()
    .sort((a, b) => b.quality - a.quality);
}

/**
 * An explicit selector: `3.2`, `第三章第二节`, `二、建设内容 > （二）`, `Methods > Data`. Each part
 * (split at `>`) matches a heading by its whole title, with or without its numbering (`title`, 4),
 * the start of either (`title-prefix`, 3), a reference or a bare number read as one (`3.2`, `二`: as above), or a part of
 * its title (`title-part`, 1); the parts after the first look below the previous part's heading.
 */
export function resolveSelector(selector: string, outlines: readonly Outline[]): ResolvedSection[] {
  const parts = selector.split(/\s*[>›»]\s*/u).map((p) => p.trim()).filter((p) => p !== '');
  if (parts.length === 0) return [];
  const all: ResolvedSection[] = [];
  for (const outline of outlines) {
    const context = new OutlineContext(outline);
    const chains: Chain[] = [];
    const walk = (i: number, parent: OutlineNode | null, how: MatchKind[]) => {
      if (i === parts.length) {
        chains.push({ node: parent!, how });
        return;
      }
      for (const c of context.selectorCandidates(parts[i]!, parent)) walk(i + 1, c.node, [...how, c.kind]);
    };
    walk(0, null, []);
    all.push(...chains.map((chain) => toSection(outline.docId, chain)));
  }
  // An explicit selector names what it names: the best matches over all documents only.
  return best(all);
}

/** The matches with the best weakest step, then the best sum; one per section. */
function best(sections: ResolvedSection[]): ResolvedSection[] {
  if (sections.length === 0) return [];
  const score = (s: ResolvedSection) => s.quality * 100 + s.how.reduce((sum, k) => sum + QUALITY[k], 0);
  const top = Math.max(...sections.map(score));
  const seen = new Set<string>();
  return sections.filter((s) => {
    const key = `${s.docId}\u0000${s.headingPath.join('\u0000')}\u0000${s.start ?? ''}`;
    if (score(s) !== top || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function toSection(docId: string, chain: Chain): ResolvedSection {
  const { node, how } = chain;
  const section: ResolvedSection = {
    docId,
    headingPath: node.path,
    title: node.title,
    how,
    quality: Math.min(...how.map((k) => QUALITY[k])),
  };
  if (node.numbering) section.label = node.numbering.label;
  if (node.start !== undefined) section.start = node.start;
  if (node.end !== undefined) section.end = node.end;
  if (node.bodyStart !== undefined) section.bodyStart = node.bodyStart;
  if (node.page !== undefined) section.page = node.page;
  return section;
}

function sameValues(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** Does a single-number step name this numbering (letters of one-letter Roman numerals included)? */
function sameNumber(step: ReferenceStep, numbering: Numbering): boolean {
  const n = numbering.values[numbering.values.length - 1];
  const wanted = [step.values[0]!, ...(step.letterValue !== undefined ? [step.letterValue] : [])];
  const have = [n, ...(numbering.letterValue !== undefined ? [numbering.letterValue] : [])];
  return wanted.some((w) => have.includes(w));
}

class OutlineContext {
  readonly nodes: OutlineNode[];
  private readonly parents = new Map<OutlineNode, OutlineNode | null>();
  private topNumbered: OutlineNode[] | undefined;
  private topPositional: OutlineNode[][] | undefined;

  constructor(private readonly outline: Outline) {
    this.nodes = outlineNodes(outline);
    const link = (nodes: readonly OutlineNode[], parent: OutlineNode | null) => {
      for (const node of nodes) {
        this.parents.set(node, parent);
        link(node.children, node);
      }
    };
    link(outline.roots, null);
  }

  candidates(step: ReferenceStep, parent: OutlineNode | null): Candidate[] {
    if (step.values.length > 1) return this.dottedCandidates(step, parent);
    const scope = parent ? parent.children : null;
    const deep = parent ? descendants(parent) : this.nodes;
    const same = SAME_STYLE[step.role];
    const other = OTHER_STYLES[step.role];
    const fits = (node: OutlineNode, styles: readonly NumberingStyle[]) =>
      node.numbering !== undefined && styles.includes(node.numbering.style) && this.numberFits(step, node, parent);
    const out: Candidate[] = [];
    for (const node of scope ?? deep) if (fits(node, same)) out.push({ node, kind: 'numbering' });
    const otherScope = scope ?? (TOP_ROLES.has(step.role) ? this.topLevel() : deep);
    for (const node of otherScope) if (fits(node, other)) out.push({ node, kind: 'numbering-other' });
    if (out.length === 0 && scope) {
      // Not among the children: deeper below the parent (a level the reference skips).
      const children = new Set(scope);
      for (const node of deep) {
        if (children.has(node)) continue;
        if (fits(node, same)) out.push({ node, kind: 'numbering' });
        else if (fits(node, other)) out.push({ node, kind: 'numbering-other' });
      }
    }
    if (out.length > 0) return out;
    // Headings without numbers: the n-th sibling.
    const groups = scope ? [scope] : POSITIONAL_ROLES.has(step.role) ? this.positionalGroups() : [];
    for (const group of groups) {
      const relevant = step.role === 'appendix' ? group.filter((n) => n.numbering?.style === 'appendix') : group;
      if (relevant.some((n) => n.numbering !== undefined && (step.role === 'appendix' ? n.numbering.values.length > 0 : [...same, ...other].includes(n.numbering.style)))) continue;
      const node = relevant[step.values[0]! - 1];
      if (node) out.push({ node, kind: 'position' });
    }
    return out;
  }

  /** `3.2`: a heading numbered 3.2, else 3 then its child 2 (at most numbering-other). */
  private dottedCandidates(step: ReferenceStep, parent: OutlineNode | null): Candidate[] {
    const deep = parent ? descendants(parent) : this.nodes;
    const exact = deep.filter((node) => node.numbering !== undefined && sameValues(node.numbering.values, step.values));
    if (exact.length > 0) return exact.map((node) => ({ node, kind: 'numbering' as const }));
    // Step by step: the first number at the top (or below the parent), each next one below the last.
    let level: { node: OutlineNode | null; kind: MatchKind }[] = [{ node: parent, kind: 'numbering' }];
    step.values.forEach((value, i) => {
      const sub: ReferenceStep = { role: i === 0 && !parent ? 'chapter' : 'numbered', values: [value] };
      level = level.flatMap((c) => this.candidates(sub, c.node).map((n) => ({ node: n.node, kind: weaker(weaker(c.kind, n.kind), 'numbering-other') })));
    });
    return level as Candidate[];
  }

  selectorCandidates(part: string, parent: OutlineNode | null): Candidate[] {
    const scope = parent ? descendants(parent) : this.nodes;
    const wanted = normalize(part);
    const out: Candidate[] = [];
    for (const node of scope) {
      const title = normalize(node.title);
      const bare = normalize(withoutNumbering(node));
      if (title === wanted || bare === wanted) out.push({ node, kind: 'title' });
      else if ((title.startsWith(wanted) && boundaryAt(title, wanted.length)) || (bare.startsWith(wanted) && boundaryAt(bare, wanted.length))) out.push({ node, kind: 'title-prefix' });
    }
    if (out.length > 0) return out;
    const reference = parseReference(part) ?? bareNumber(part);
    if (reference) {
      let level: (Candidate | { node: OutlineNode | null; kind: MatchKind })[] = [{ node: parent, kind: 'title' }];
      for (const step of reference.steps) {
        level = level.flatMap((c) => this.candidates(step, c.node).map((n) => ({ node: n.node, kind: weaker(c.kind, n.kind) })));
      }
      if (level.length > 0) return level as Candidate[];
    }
    for (const node of scope) if (normalize(node.title).includes(wanted)) out.push({ node, kind: 'title-part' });
    return out;
  }

  /** Does the step's number name this heading (a dotted child must continue its parent's number)? */
  private numberFits(step: ReferenceStep, node: OutlineNode, parent: OutlineNode | null): boolean {
    const numbering = node.numbering!;
    if (numbering.values.length === 0) return false;
    if (numbering.values.length === 1) return sameNumber(step, numbering);
    if (!parent) return false;
    const prefix = numbering.values.slice(0, -1);
    const parentValues = parent.numbering?.values;
    return sameNumber(step, numbering) && (parentValues === undefined || parentValues.length === 0 || sameValues(prefix, parentValues.slice(-prefix.length)));
  }

  /** The shallowest level with at least two numbered headings (below a title, above sections). */
  private topLevel(): OutlineNode[] {
    if (this.topNumbered) return this.topNumbered;
    let level: OutlineNode[][] = [this.outline.roots];
    while (level.length > 0) {
      const numbered = level.filter((group) => group.filter((n) => n.numbering && n.numbering.values.length === 1).length >= 2);
      if (numbered.length > 0) return (this.topNumbered = numbered.flat());
      level = level.flatMap((group) => group.map((n) => n.children)).filter((g) => g.length > 0);
    }
    return (this.topNumbered = []);
  }

  /** The shallowest level with at least two headings (for headings without numbers). */
  private positionalGroups(): OutlineNode[][] {
    if (this.topPositional) return this.topPositional;
    let level: OutlineNode[][] = [this.outline.roots];
    while (level.length > 0) {
      const wide = level.filter((group) => group.length >= 2);
      if (wide.length > 0) return (this.topPositional = wide);
      level = level.flatMap((group) => group.map((n) => n.children)).filter((g) => g.length > 0);
    }
    return (this.topPositional = []);
  }
}

function descendants(node: OutlineNode): OutlineNode[] {
  const out: OutlineNode[] = [];
  const walk = (nodes: readonly OutlineNode[]) => {
    for (const n of nodes) {
      out.push(n);
      walk(n.children);
    }
  };
  walk(node.children);
  return out;
}

function weaker(a: MatchKind, b: MatchKind): MatchKind {
  return QUALITY[a] <= QUALITY[b] ? a : b;
}

/** `（一）投资估算` -> `投资估算`, `3.2 Trace Trees` -> `Trace Trees`. */
function withoutNumbering(node: OutlineNode): string {
  if (!node.numbering) return node.title;
  const at = node.title.indexOf(node.numbering.label);
  return at === -1 ? node.title : node.title.slice(at + node.numbering.label.length).replace(/^[\s、，,.．:：)）\-—]+/u, '');
}

function normalize(text: string): string {
  return text.normalize('NFKC').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** `3.2` is a prefix of `3.2 trace trees` but not of `3.21 …` or `3.2.1 …`. */
function boundaryAt(title: string, at: number): boolean {
  if (at >= title.length) return true;
  const before = title[at - 1]!;
  const next = title[at]!;
  if (/[\p{L}\p{N}]/u.test(before) && /[\p{L}\p{N}]/u.test(next) && !(/\p{Script=Han}/u.test(before) || /\p{Script=Han}/u.test(next))) return false;
  if (/\d/.test(before) && /[.．]/.test(next) && /\d/.test(title[at + 1] ?? '')) return false;
  return true;
}

/** A selector that is only a number: `3.2`, `4`, `二`, `IV`, or a heading numbering such as `二、` or `（二）`. */
function bareNumber(part: string): Pick<SectionReference, 'steps'> | undefined {
  const text = part.trim();
  const dotted = /^[0-9０-９]+(?:[.．][0-9０-９]+)*[.．]?$/.test(text) ? parseDotted(text.replace(/[.．]$/, '')) : undefined;
  if (dotted) return { steps: [{ role: 'numbered', values: dotted }] };
  const value = parseChinese(text) ?? parseRoman(text);
  if (value !== undefined) return { steps: [{ role: 'numbered', values: [value] }] };
  const numbering = parseHeadingNumbering(`${text} `);
  if (numbering && numbering.label.length >= text.replace(/[、，,.．]$/, '').length && numbering.values.length > 0) {
    const role: ReferenceRole = numbering.style === 'cn-paren' || numbering.style === 'paren' ? 'paren' : numbering.style === 'appendix' ? 'appendix' : 'numbered';
    return { steps: [{ role, values: numbering.values, ...(numbering.letterValue !== undefined && { letterValue: numbering.letterValue }) }] };
  }
  return undefined;
}
