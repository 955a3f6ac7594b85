import { child, children, type XmlNode } from '../xml.js';
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
  join,
  mathText,
  nary,
  prescripts,
  radical,
  scripts,
  textRun,
  type FractionType,
  type MathStyle,
} from './latex.js';

/**
 * OMML (Office Math Markup Language, ECMA-376 part 1 §22.1: Word's equations, also inside PowerPoint
 * as `a14:m`) to LaTeX. A pure function over the element tree the parsers build (xml.ts): each math
 * object has its converter, properties (`m:*Pr`) only steer them, and an element it does not know
 * is read for the text inside it, so nothing in an equation is lost.
 *
 * Choices: `m:d` is `\left(...\right)` (separators `\middle|`); `m:func` is `\sin{x}`, with a limit
 * under the name `\lim_{n}`; n-ary objects write `\limits`/`\nolimits` only where the document
 * places limits other than TeX would; normal-text runs (`m:nor`) are `\text{}`; an equation array
 * of one row is that row, of several an `aligned` (with `m:aln` points) or `gathered` environment.
 */

/** Deeper than this, an equation is read as its text (a guard against pathological nesting). */
const MAX_DEPTH = 200;

interface Context {
  depth: number;
  /** Inside an m:fName: a plain run is a function name. */
  functionName: boolean;
  /** Inside a row of a multi-row equation array: m:aln marks an alignment point. */
  align: boolean;
}

const TOP: Context = { depth: 0, functionName: false, align: false };

/** One equation (`m:oMath`, or any OMML object) as LaTeX, without `$` delimiters. */
export function ommlToLatex(node: XmlNode): string {
  return convert(node, TOP).trim();
}

/** A display paragraph (`m:oMathPara`): one LaTeX string per `m:oMath` in it, empty ones left out. */
export function ommlParagraph(node: XmlNode): string[] {
  const out: string[] = [];
  const visit = (n: XmlNode, depth: number): void => {
    for (const c of n.children) {
      if (c.name === 'm:oMath') {
        const latex = ommlToLatex(c);
        if (latex) out.push(latex);
      } else if (depth < MAX_DEPTH && !c.name.endsWith('Pr')) visit(c, depth + 1);
    }
  };
  if (node.name === 'm:oMath') return [ommlToLatex(node)].filter(Boolean);
  visit(node, 0);
  return out;
}

type Converter = (node: XmlNode, ctx: Context) => string;

const CONVERTERS: Record<string, Converter> = {
  'm:r': run,
  'w:r': run,
  'm:f': (n, ctx) => fraction(part(n, 'm:num', ctx), part(n, 'm:den', ctx), (prop(n, 'm:fPr', 'm:type') ?? 'bar') as FractionType),
  'm:sSub': (n, ctx) => scripts(part(n, 'm:e', ctx), part(n, 'm:sub', ctx), ''),
  'm:sSup': (n, ctx) => scripts(part(n, 'm:e', ctx), '', part(n, 'm:sup', ctx)),
  'm:sSubSup': (n, ctx) => scripts(part(n, 'm:e', ctx), part(n, 'm:sub', ctx), part(n, 'm:sup', ctx)),
  'm:sPre': (n, ctx) => prescripts(part(n, 'm:e', ctx), part(n, 'm:sub', ctx), part(n, 'm:sup', ctx)),
  'm:rad': (n, ctx) => radical(part(n, 'm:e', ctx), flag(n, 'm:radPr', 'm:degHide') ? '' : part(n, 'm:deg', ctx)),
  'm:nary': naryObject,
  'm:d': delimiterObject,
  'm:m': (n, ctx) => environment('matrix', children(n, 'm:mr').map((row) => children(row, 'm:e').map((cell) => convert(cell, deeper(ctx)).trim()))),
  'm:eqArr': equationArray,
  'm:acc': (n, ctx) => accent(prop(n, 'm:accPr', 'm:chr') ?? '\u0302', part(n, 'm:e', ctx)),
  'm:bar': (n, ctx) => {
    const base = part(n, 'm:e', ctx);
    return prop(n, 'm:barPr', 'm:pos') === 'top' ? `\\overline{${base}}` : `\\underline{${base}}`;
  },
  'm:groupChr': (n, ctx) => {
    const chr = prop(n, 'm:groupChrPr', 'm:chr') ?? '⏟';
    return groupingCharacter(chr, part(n, 'm:e', ctx), prop(n, 'm:groupChrPr', 'm:pos') === 'top' ? 'top' : 'bot');
  },
  'm:borderBox': (n, ctx) => `\\boxed{${part(n, 'm:e', ctx)}}`,
  'm:phant': (n, ctx) => {
    const shown = prop(n, 'm:phantPr', 'm:show');
    const base = part(n, 'm:e', ctx);
    return shown !== undefined && isOff(shown) ? `\\phantom{${base}}` : base;
  },
  'm:func': (n, ctx) => {
    const name = child(n, 'm:fName');
    const fn = name ? convert(name, { ...deeper(ctx), functionName: true }).trim() : '';
    const arg = part(n, 'm:e', ctx);
    return join([fn, arg === '' ? '' : `{${arg}}`]);
  },
  'm:limLow': (n, ctx) => limit(n, ctx, 'under'),
  'm:limUpp': (n, ctx) => limit(n, ctx, 'over'),
  'mc:AlternateContent': (n, ctx) => {
    const choice = child(n, 'mc:Choice') ?? n.children.find((c) => c.name !== 'mc:Fallback');
    return choice ? content(choice, ctx) : '';
  },
  // Tracked changes inside an equation: deletions are gone, insertions are content.
  'w:del': () => '',
  'w:moveFrom': () => '',
};

/** Elements that carry no content of their own. */
function ignored(name: string): boolean {
  return name.endsWith('Pr') || name === '#text' || name === 'm:ctrlPr' || name === 'mc:Fallback' || name === 'w:bookmarkStart' || name === 'w:bookmarkEnd' || name === 'w:proofErr';
}

function convert(node: XmlNode, ctx: Context): string {
  if (ctx.depth > MAX_DEPTH) return mathText(textOf(node));
  const converter = CONVERTERS[node.name];
  if (converter) return converter(node, ctx);
  if (ignored(node.name)) return '';
  return content(node, ctx);
}

/** The children of a node, converted and joined (the default for containers and unknown elements). */
function content(node: XmlNode, ctx: Context): string {
  const next = deeper(ctx);
  const parts: string[] = [];
  const list = node.children;
  for (let i = 0; i < list.length; i++) {
    const c = list[i]!;
    if (c.name !== 'm:r' || deleted(c)) {
      parts.push(convert(c, next));
      continue;
    }
    // Word splits text into runs anywhere ("group " | "wit" | "h "): runs of one style are read as one.
    const key = runStyleKey(c);
    let j = i;
    while (j + 1 < list.length && list[j + 1]!.name === 'm:r' && !deleted(list[j + 1]!) && runStyleKey(list[j + 1]!) === key && !child(child(list[j + 1]!, 'm:rPr'), 'm:aln')) j++;
    parts.push(run(j === i ? c : mergedRun(list.slice(i, j + 1)), next));
    i = j;
  }
  return join(parts);
}

/** What decides how a run is written: its m:rPr (normal text, style, script, alignment point). */
function runStyleKey(r: XmlNode): string {
  const props = child(r, 'm:rPr');
  if (!props) return '';
  return props.children.map((p) => `${p.name}=${p.attributes['m:val'] ?? ''}`).join(';');
}

function deleted(r: XmlNode): boolean {
  const wordProps = child(r, 'w:rPr');
  return child(wordProps, 'w:del') !== undefined || child(wordProps, 'w:moveFrom') !== undefined;
}

function mergedRun(runs: readonly XmlNode[]): XmlNode {
  let text = '';
  for (const r of runs) for (const c of r.children) if (c.name === 'm:t' || c.name === 'w:t') text += c.text;
  const props = child(runs[0]!, 'm:rPr');
  const t: XmlNode = { name: 'm:t', attributes: {}, children: [], text };
  return { name: 'm:r', attributes: {}, children: props ? [props, t] : [t], text: '' };
}

function deeper(ctx: Context): Context {
  return { ...ctx, depth: ctx.depth + 1 };
}

/** The converted content of the named child (`m:e`, `m:sub`...), trimmed; empty when absent. */
function part(node: XmlNode, name: string, ctx: Context): string {
  const c = child(node, name);
  // Only a base (m:e) inside a function name is still part of the name (sin² is m:sSup in m:fName).
  return c ? content(c, { ...deeper(ctx), functionName: name === 'm:e' && ctx.functionName, align: false }).trim() : '';
}

/** `m:val` of a property: `prop(nary, 'm:naryPr', 'm:chr')`. */
function prop(node: XmlNode, pr: string, name: string): string | undefined {
  const el = child(child(node, pr), name);
  return el ? (el.attributes['m:val'] ?? el.attributes['val'] ?? '') : undefined;
}

/** An on/off property: present and not switched off. */
function flag(node: XmlNode, pr: string, name: string): boolean {
  const value = prop(node, pr, name);
  return value !== undefined && !isOff(value);
}

function isOff(value: string): boolean {
  return value === '0' || value === 'off' || value === 'false';
}

/** All text in m:t / w:t elements under the node, in order (iterative: safe at any depth). */
function textOf(node: XmlNode): string {
  let out = '';
  const stack: XmlNode[] = [node];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.name === 'm:t' || n.name === 'w:t') {
      out += n.text;
      continue;
    }
    if (n.name.endsWith('Pr') || n.name === 'mc:Fallback' || n.name === 'w:del') continue;
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
  return out;
}

/** When every child (properties aside) is a plain run: their text (a function name, an operator's name). */
function plainRunText(node: XmlNode | undefined): string | undefined {
  if (!node) return undefined;
  let text = '';
  for (const c of node.children) {
    if (ignored(c.name)) continue;
    if (c.name !== 'm:r' && c.name !== 'w:r') return undefined;
    text += textOf(c);
  }
  return text;
}

const SCRIPT_STYLES: Record<string, MathStyle> = {
  'double-struck': 'mathbb',
  script: 'mathcal',
  fraktur: 'mathfrak',
  'sans-serif': 'mathsf',
  monospace: 'mathtt',
};

function run(node: XmlNode, ctx: Context): string {
  if (deleted(node)) return '';
  const props = child(node, 'm:rPr');
  let text = '';
  for (const c of node.children) if (c.name === 'm:t' || c.name === 'w:t') text += c.text;
  const alignPoint = ctx.align && child(props, 'm:aln') !== undefined ? '&' : '';
  if (text === '') return alignPoint;
  const normal = child(props, 'm:nor');
  if (normal && !isOff(normal.attributes['m:val'] ?? '1')) return join([alignPoint, textRun(text)]);
  if (ctx.functionName && /^[A-Za-z]+$/.test(text.trim())) return join([alignPoint, functionName(text)]);
  const scr = child(props, 'm:scr')?.attributes['m:val'];
  const sty = child(props, 'm:sty')?.attributes['m:val'];
  const style: MathStyle = (scr && SCRIPT_STYLES[scr]) || (sty === 'b' ? 'mathbf' : sty === 'bi' ? 'boldsymbol' : '');
  return join([alignPoint, mathText(text, style)]);
}

function naryObject(node: XmlNode, ctx: Context): string {
  const chr = prop(node, 'm:naryPr', 'm:chr') ?? '∫';
  const limLoc = prop(node, 'm:naryPr', 'm:limLoc');
  const sub = flag(node, 'm:naryPr', 'm:subHide') ? '' : part(node, 'm:sub', ctx);
  const sup = flag(node, 'm:naryPr', 'm:supHide') ? '' : part(node, 'm:sup', ctx);
  return nary(chr, sub, sup, part(node, 'm:e', ctx), limLoc === 'undOvr' || limLoc === 'subSup' ? limLoc : undefined);
}

function delimiterObject(node: XmlNode, ctx: Context): string {
  const open = prop(node, 'm:dPr', 'm:begChr') ?? '(';
  const close = prop(node, 'm:dPr', 'm:endChr') ?? ')';
  const separator = prop(node, 'm:dPr', 'm:sepChr') ?? '|';
  const grow = prop(node, 'm:dPr', 'm:grow');
  const pieces = children(node, 'm:e').map((e) => content(e, { ...deeper(ctx), functionName: false, align: false }).trim());
  return fenced(open, close, pieces, separator, grow === undefined || !isOff(grow));
}

function equationArray(node: XmlNode, ctx: Context): string {
  const rows = children(node, 'm:e');
  if (rows.length === 1) return content(rows[0]!, { ...deeper(ctx), align: false }).trim();
  const converted = rows.map((row) => content(row, { ...deeper(ctx), align: true }).trim());
  const aligned = converted.some((row) => row.includes('&'));
  return environment(aligned ? 'aligned' : 'gathered', converted.map((row) => [row]));
}

/** m:limLow / m:limUpp: a limit under a function name (`\lim_{n}`), a label on a brace, else \underset / \overset. */
function limit(node: XmlNode, ctx: Context, position: 'under' | 'over'): string {
  const lim = part(node, 'm:lim', { ...ctx, functionName: false });
  const baseNode = child(node, 'm:e');
  const name = plainRunText(baseNode);
  if (name !== undefined && /^[A-Za-z]+$/.test(name.trim()) && (ctx.functionName || isFunctionName(name))) {
    return functionWithLimit(name, lim, position);
  }
  const base = baseNode ? content(baseNode, { ...deeper(ctx), functionName: false, align: false }).trim() : '';
  if (lim === '') return base;
  const brace = isBraceCommand(base);
  if (brace === 'under' && position === 'under') return `${base}_{${lim}}`;
  if (brace === 'over' && position === 'over') return `${base}^{${lim}}`;
  return position === 'under' ? `\\underset{${lim}}{${base}}` : `\\overset{${lim}}{${base}}`;
}
