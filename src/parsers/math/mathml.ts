import { deepText, localName, TEXT_NODE, type XmlNode } from '../xml.js';
import {
  accent,
  environment,
  fenced,
  fraction,
  functionName,
  functionWithLimit,
  groupingCharacter,
  isBraceCommand,
  isFunctionName,
  isNaryOperator,
  join,
  mathText,
  nary,
  prescripts,
  radical,
  scripts,
  textRun,
  type MathStyle,
} from './latex.js';

/**
 * Presentation MathML (what LibreOffice stores in an ODF formula object, `Object N/content.xml`) to
 * LaTeX. A pure function over the element tree; names are matched without their prefix (`math:mi`,
 * `mml:mi` and `mi` alike). A `semantics` element that carries a TeX annotation gives that TeX as
 * written; otherwise its first child is converted. Elements it does not know are read for the text
 * inside them.
 */

const MAX_DEPTH = 200;

const VARIANTS: Record<string, MathStyle> = {
  bold: 'mathbf',
  'bold-italic': 'boldsymbol',
  'double-struck': 'mathbb',
  script: 'mathcal',
  'bold-script': 'mathcal',
  fraktur: 'mathfrak',
  'bold-fraktur': 'mathfrak',
  'sans-serif': 'mathsf',
  'bold-sans-serif': 'mathsf',
  'sans-serif-italic': 'mathsf',
  'sans-serif-bold-italic': 'mathsf',
  monospace: 'mathtt',
  normal: 'mathrm',
};
const TEX_ENCODINGS = /^(?:application\/x-tex|text\/x-tex|tex|latex|application\/x-latex)$/i;
const FENCE_OPEN = new Set(['(', '[', '{', '|', '‖', '⟨', '〈', '⌈', '⌊', '⟦']);

/** A `math` element (or any MathML element) as LaTeX, without `$` delimiters. */
export function mathmlToLatex(node: XmlNode): string {
  return convert(node, 0).trim();
}

/** True when the element is MathML's root (`math`, whatever its prefix). */
export function isMathRoot(node: XmlNode): boolean {
  return localName(node.name) === 'math';
}

function elements(node: XmlNode): XmlNode[] {
  return node.children.filter((c) => c.name !== TEXT_NODE);
}

function attr(node: XmlNode, name: string): string | undefined {
  for (const [key, value] of Object.entries(node.attributes)) if (localName(key) === name) return value;
  return undefined;
}

function tokenText(node: XmlNode): string {
  return deepText(node).replace(/\s+/g, ' ').trim();
}

function convert(node: XmlNode, depth: number): string {
  if (node.name === TEXT_NODE) return '';
  if (depth > MAX_DEPTH) return mathText(tokenText(node));
  const kids = elements(node);
  const arg = (i: number): string => (kids[i] ? convert(kids[i]!, depth + 1).trim() : '');
  switch (localName(node.name)) {
    case 'mi':
      return identifier(node);
    case 'mn':
      return mathText(tokenText(node));
    case 'mo':
      return operator(tokenText(node));
    case 'mtext':
      return textRun(deepText(node).replace(/\s+/g, ' '));
    case 'ms':
      return textRun(`"${deepText(node)}"`);
    case 'mspace':
      return '\\ ';
    case 'mfrac': {
      const thickness = attr(node, 'linethickness');
      const noBar = thickness !== undefined && /^0(?:\.0*)?(?:[a-z]+)?$|^zero$/i.test(thickness.trim());
      return fraction(arg(0), arg(1), attr(node, 'bevelled') === 'true' ? 'skw' : noBar ? 'noBar' : 'bar');
    }
    case 'msqrt':
      return radical(row(kids, depth), '');
    case 'mroot':
      return radical(arg(0), arg(1));
    case 'msub':
      return scriptsOf(kids[0], arg(1), '', depth);
    case 'msup':
      return scriptsOf(kids[0], '', arg(1), depth);
    case 'msubsup':
      return scriptsOf(kids[0], arg(1), arg(2), depth);
    case 'munder':
      return underOver(node, kids, depth, arg(1), '');
    case 'mover':
      return underOver(node, kids, depth, '', arg(1));
    case 'munderover':
      return underOver(node, kids, depth, arg(1), arg(2));
    case 'mfenced': {
      const open = attr(node, 'open') ?? '(';
      const close = attr(node, 'close') ?? ')';
      const separators = (attr(node, 'separators') ?? ',').replace(/\s+/g, '');
      const pieces = kids.map((k) => convert(k, depth + 1).trim());
      if (separators.length <= 1) return fenced(open, close, pieces, separators, true);
      // Several separators: one per gap, the last one repeated.
      const joined: string[] = [];
      pieces.forEach((p, i) => {
        if (i > 0) joined.push(mathText(separators[Math.min(i - 1, separators.length - 1)]!));
        joined.push(p);
      });
      return fenced(open, close, [join(joined)], '', true);
    }
    case 'mtable':
      return environment('matrix', kids.map((tr) => rowCells(tr, depth + 1)));
    case 'mtr':
    case 'mlabeledtr':
      return rowCells(node, depth).join(' & ');
    case 'menclose':
      return enclose(attr(node, 'notation') ?? 'longdiv', row(kids, depth));
    case 'mphantom':
      return `\\phantom{${row(kids, depth)}}`;
    case 'mmultiscripts':
      return multiscripts(kids, depth);
    case 'semantics': {
      for (const k of kids) {
        if (localName(k.name) === 'annotation' && TEX_ENCODINGS.test(attr(k, 'encoding') ?? '')) {
          const tex = deepText(k).trim();
          if (tex) return tex;
        }
      }
      const first = kids.find((k) => !/^annotation/.test(localName(k.name)));
      return first ? convert(first, depth + 1) : '';
    }
    case 'annotation':
    case 'annotation-xml':
    case 'none':
    case 'mprescripts':
    case 'malignmark':
    case 'maligngroup':
      return '';
    case 'maction':
      return kids[0] ? convert(kids[0], depth + 1) : '';
    case 'mstyle': {
      const variant = VARIANTS[attr(node, 'mathvariant') ?? ''];
      const inner = row(kids, depth);
      return variant && variant !== 'mathrm' && inner ? `\\${variant}{${inner}}` : inner;
    }
    default:
      // mrow, math, mpadded, merror and anything unknown: the content, fences made to grow.
      return row(kids, depth);
  }
}

function identifier(node: XmlNode): string {
  const text = tokenText(node);
  const variant = attr(node, 'mathvariant');
  const chars = Array.from(text);
  if (chars.length > 1) {
    if (isFunctionName(text)) return functionName(text);
    if (/^[A-Za-z]+$/.test(text)) return variant && VARIANTS[variant] && variant !== 'normal' ? `\\${VARIANTS[variant]}{${text}}` : `\\mathrm{${text}}`;
    return mathText(text, variant ? (VARIANTS[variant] ?? '') : '');
  }
  // A single letter is italic by default; mathvariant="normal" sets it upright.
  return mathText(text, variant ? (VARIANTS[variant] ?? '') : '');
}

function operator(text: string): string {
  if (Array.from(text).length > 1 && /^[A-Za-z]+$/.test(text)) return functionName(text);
  return mathText(text);
}

/** Children in a row; a row that opens and closes with fence operators becomes \left...\right. */
function row(kids: readonly XmlNode[], depth: number): string {
  if (kids.length >= 2) {
    const first = kids[0]!;
    const last = kids[kids.length - 1]!;
    const open = fenceChar(first);
    const close = fenceChar(last);
    if (open !== undefined && close !== undefined && (FENCE_OPEN.has(open) || open === '')) {
      const inner = join(kids.slice(1, -1).map((k) => convert(k, depth + 1)));
      return fenced(open, close, [inner.trim()], '', true);
    }
  }
  return join(kids.map((k) => convert(k, depth + 1)));
}

/** The character of an `mo` marked as a fence or stretchy delimiter, else undefined. */
function fenceChar(node: XmlNode): string | undefined {
  if (localName(node.name) !== 'mo') return undefined;
  if (attr(node, 'fence') !== 'true' && attr(node, 'stretchy') !== 'true') return undefined;
  return tokenText(node);
}

function rowCells(tr: XmlNode, depth: number): string[] {
  const cells = elements(tr).filter((td) => localName(td.name) === 'mtd');
  // A labeled row's first cell is its equation number.
  const shown = localName(tr.name) === 'mlabeledtr' ? cells.slice(1) : cells;
  return shown.map((td) => row(elements(td), depth + 1).trim());
}

function scriptsOf(baseNode: XmlNode | undefined, sub: string, sup: string, depth: number): string {
  const baseText = baseNode && localName(baseNode.name) === 'mo' ? tokenText(baseNode) : undefined;
  // A large operator with scripts keeps TeX's own placement of them (\int_{a}^{b}).
  if (baseText !== undefined && isNaryOperator(baseText)) return nary(baseText, sub, sup, '');
  return scripts(baseNode ? convert(baseNode, depth + 1).trim() : '', sub, sup);
}

/** munder / mover / munderover: limits of a large operator or function, accents, braces, else \underset/\overset. */
function underOver(node: XmlNode, kids: readonly XmlNode[], depth: number, under: string, over: string): string {
  const baseNode = kids[0];
  const baseText = baseNode ? tokenText(baseNode) : '';
  const baseKind = baseNode ? localName(baseNode.name) : '';
  if (baseKind === 'mo' && isNaryOperator(baseText)) return nary(baseText, under, over, '', 'undOvr');
  if ((baseKind === 'mo' || baseKind === 'mi') && /^[A-Za-z]+$/.test(baseText) && Array.from(baseText).length > 1 && (under !== '' || over !== '')) {
    if (over === '') return functionWithLimit(baseText, under, 'under');
    if (under === '') return functionWithLimit(baseText, over, 'over');
  }
  const base = baseNode ? convert(baseNode, depth + 1).trim() : '';
  const overNode = localName(node.name) === 'munder' ? undefined : kids[localName(node.name) === 'mover' ? 1 : 2];
  const underNode = localName(node.name) === 'mover' ? undefined : kids[1];
  let out = base;
  if (overNode && localName(overNode.name) === 'mo' && (attr(node, 'accent') === 'true' || isAccentChar(tokenText(overNode)))) {
    out = overAccent(tokenText(overNode), base);
  } else if (over !== '') {
    out = isBraceCommand(out) === 'over' ? `${out}^{${over}}` : `\\overset{${over}}{${out}}`;
  }
  if (underNode && localName(underNode.name) === 'mo' && (attr(node, 'accentunder') === 'true' || isUnderChar(tokenText(underNode)))) {
    out = underAccent(tokenText(underNode), out);
  } else if (under !== '') {
    out = isBraceCommand(out) === 'under' ? `${out}_{${under}}` : `\\underset{${under}}{${out}}`;
  }
  return out;
}

const OVER_GROUPING = new Set(['⏞', '⏜', '⎴', '→', '←', '↔']);
const UNDER_GROUPING = new Set(['⏟', '⏝', '⎵', '_', '̲']);

function isAccentChar(ch: string): boolean {
  return /^[\u0300-\u036f\u20d0-\u20ff^~¯ˆ˜˙¨‾´`˘ˇ˚→←↔⏞⏜⎴]$/u.test(ch);
}

function isUnderChar(ch: string): boolean {
  return UNDER_GROUPING.has(ch) || ch === '¯' || ch === '‾';
}

function overAccent(chr: string, base: string): string {
  if (OVER_GROUPING.has(chr) && (chr === '⏞' || chr === '⏜' || chr === '⎴' || Array.from(base).length > 1)) return groupingCharacter(chr, base, 'top');
  return accent(chr, base);
}

function underAccent(chr: string, base: string): string {
  if (chr === '¯' || chr === '‾' || chr === '_' || chr === '̲') return `\\underline{${base}}`;
  return groupingCharacter(chr, base, 'bot');
}

function enclose(notation: string, inner: string): string {
  const kinds = notation.split(/\s+/);
  let out = inner;
  if (kinds.includes('radical')) out = `\\sqrt{${out}}`;
  if (kinds.includes('top')) out = `\\overline{${out}}`;
  if (kinds.includes('bottom')) out = `\\underline{${out}}`;
  if (kinds.some((k) => k === 'updiagonalstrike' || k === 'downdiagonalstrike' || k === 'horizontalstrike')) out = `\\cancel{${out}}`;
  if (kinds.some((k) => k === 'box' || k === 'roundedbox' || k === 'circle')) out = `\\boxed{${out}}`;
  return out;
}

/** mmultiscripts: base, (sub sup)* pairs, then after mprescripts the pairs written before the base. */
function multiscripts(kids: readonly XmlNode[], depth: number): string {
  const base = kids[0] ? convert(kids[0], depth + 1).trim() : '';
  const post: [string, string][] = [];
  const pre: [string, string][] = [];
  let target = post;
  let pending: string | undefined;
  for (const k of kids.slice(1)) {
    if (localName(k.name) === 'mprescripts') {
      target = pre;
      pending = undefined;
      continue;
    }
    const value = convert(k, depth + 1).trim();
    if (pending === undefined) pending = value;
    else {
      target.push([pending, value]);
      pending = undefined;
    }
  }
  const sub = (pairs: [string, string][]) => join(pairs.map((p) => p[0]));
  const sup = (pairs: [string, string][]) => join(pairs.map((p) => p[1]));
  return prescripts(scripts(base, sub(post), sup(post)), sub(pre), sup(pre));
}
