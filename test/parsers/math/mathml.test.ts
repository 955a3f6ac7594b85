import { describe, expect, test } from 'vitest';
import { mathmlToLatex } from '../../../src/parsers/math/mathml.js';
import { parseXmlTree } from '../../../src/parsers/xml.js';

/** Presentation MathML constructs one by one, written as LibreOffice Math writes them. */

function latex(body: string, root = 'math'): string {
  return mathmlToLatex(parseXmlTree(`<${root} xmlns${root.includes(':') ? ':math' : ''}="http://www.w3.org/1998/Math/MathML" display="block"><semantics><mrow>${body}</mrow><annotation encoding="StarMath 5.0">ignored</annotation></semantics></${root}>`));
}

const mi = (t: string) => `<mi>${t}</mi>`;
const mn = (t: string) => `<mn>${t}</mn>`;
const mo = (t: string, attrs = 'stretchy="false"') => `<mo ${attrs}>${t}</mo>`;

describe('MathML to LaTeX: tokens', () => {
  test('identifiers, numbers and operators; Greek and relations become commands; StarMath annotations are ignored', () => {
    expect(latex(mi('A') + mo('=') + mi('π') + `<msup>${mi('r')}${mn('2')}</msup>`)).toBe('A=\\pi r^{2}');
    expect(latex(mi('α') + mo('≤') + mi('β'))).toBe('\\alpha\\leq\\beta');
  });

  test('multi-letter identifiers: known functions as commands, other words upright', () => {
    expect(latex(mi('sin') + mo('\u2061') + mi('x'))).toBe('\\sin x');
    expect(latex(mi('speed'))).toBe('\\mathrm{speed}');
  });

  test('mathvariant: normal sets a letter upright, double-struck and bold select fonts', () => {
    expect(latex('<mi mathvariant="normal">d</mi>' + mi('x'))).toBe('\\mathrm{d}x');
    expect(latex('<mi mathvariant="double-struck">R</mi>')).toBe('\\mathbb{R}');
    expect(latex('<mi mathvariant="bold">v</mi>')).toBe('\\mathbf{v}');
  });

  test('text and spaces', () => {
    expect(latex(mi('x') + '<mspace width="1em"/>' + '<mtext>for all</mtext>')).toBe('x\\ \\text{for all}');
  });

  test('TeX special characters are escaped', () => {
    expect(latex(mn('50') + mo('%') + mo('{') + mo('}'))).toBe('50\\%\\{\\}');
  });
});

describe('MathML to LaTeX: structures', () => {
  test('fractions: with a bar, without one (linethickness 0), bevelled', () => {
    expect(latex(`<mfrac>${mi('a')}<mrow>${mi('b')}${mo('+')}${mi('c')}</mrow></mfrac>`)).toBe('\\frac{a}{b+c}');
    expect(latex(`<mfrac linethickness="0">${mi('n')}${mi('k')}</mfrac>`)).toBe('\\genfrac{}{}{0pt}{}{n}{k}');
    expect(latex(`<mfrac bevelled="true">${mn('1')}${mn('2')}</mfrac>`)).toBe('{}^{1}/_{2}');
  });

  test('scripts: sub, sup, both, a compound base braced, prescripts (mmultiscripts)', () => {
    expect(latex(`<msub>${mi('a')}${mi('n')}</msub>`)).toBe('a_{n}');
    expect(latex(`<msubsup>${mi('N')}${mi('s')}${mi('H')}</msubsup>`)).toBe('N_{s}^{H}');
    expect(latex(`<msup><mrow>${mi('x')}${mo('+')}${mi('y')}</mrow>${mn('2')}</msup>`)).toBe('{x+y}^{2}');
    expect(latex(`<mmultiscripts>${mi('X')}${mi('a')}<none/><mprescripts/>${mn('1')}${mn('2')}</mmultiscripts>`)).toBe('{}_{1}^{2}X_{a}');
  });

  test('radicals: square root and n-th root', () => {
    expect(latex(`<msqrt>${mi('x')}</msqrt>`)).toBe('\\sqrt{x}');
    expect(latex(`<mroot><mrow>${mi('x')}${mo('+')}${mn('1')}</mrow>${mn('3')}</mroot>`)).toBe('\\sqrt[3]{x+1}');
  });

  test('large operators: limits under and over, scripts beside an integral, the body after them', () => {
    const sum = `<munderover>${mo('∑')}<mrow>${mi('i')}${mo('=')}${mn('1')}</mrow>${mi('n')}</munderover><msub>${mi('x')}${mi('i')}</msub>`;
    expect(latex(sum)).toBe('\\sum_{i=1}^{n}x_{i}');
    expect(latex(`<msubsup>${mo('∫')}${mn('0')}${mn('1')}</msubsup>${mi('f')}`)).toBe('\\int_{0}^{1}f');
    expect(latex(`<munderover>${mo('∫')}${mn('0')}${mn('1')}</munderover>${mi('f')}`)).toBe('\\int\\limits_{0}^{1}f');
  });

  test('functions with limits under them (munder with lim)', () => {
    expect(latex(`<munder>${mi('lim')}<mrow>${mi('n')}${mo('→')}${mo('∞')}</mrow></munder>${mi('a')}`)).toBe('\\lim_{n\\rightarrow\\infty}a');
    expect(latex(`<munder>${mi('argmax')}${mi('θ')}</munder>${mi('L')}`)).toBe('\\operatorname*{argmax}_{\\theta}L');
  });

  test('accents, bars and braces over and under', () => {
    expect(latex(`<mover accent="true">${mi('x')}${mo('^')}</mover>`)).toBe('\\hat{x}');
    expect(latex(`<mover accent="true">${mi('v')}${mo('→')}</mover>`)).toBe('\\vec{v}');
    expect(latex(`<mover accent="true"><mrow>${mi('a')}${mi('b')}</mrow>${mo('¯')}</mover>`)).toBe('\\overline{ab}');
    expect(latex(`<munder>${mi('z')}${mo('_')}</munder>`)).toBe('\\underline{z}');
    expect(latex(`<munder><munder><mrow>${mi('a')}${mo('+')}${mi('b')}</mrow>${mo('⏟')}</munder><mtext>n terms</mtext></munder>`)).toBe('\\underbrace{a+b}_{\\text{n terms}}');
    expect(latex(`<mover><mover><mrow>${mi('a')}${mo('+')}${mi('b')}</mrow>${mo('⏞')}</mover>${mi('k')}</mover>`)).toBe('\\overbrace{a+b}^{k}');
    expect(latex(`<mover>${mo('=')}<mtext>def</mtext></mover>`)).toBe('\\overset{\\text{def}}{=}');
  });

  test('delimiters: fence operators become \\left...\\right, mfenced with separators', () => {
    expect(latex(`${mo('(', 'fence="true" form="prefix" stretchy="true"')}${mi('x')}${mo('+')}${mi('a')}${mo(')', 'fence="true" form="postfix" stretchy="true"')}`)).toBe('\\left(x+a\\right)');
    expect(latex(`<mrow>${mo('{', 'fence="true" stretchy="true"')}${mi('x')}${mo('', 'fence="true" stretchy="true"')}</mrow>`)).toBe('\\left\\{x\\right.');
    expect(latex(`<mfenced open="[" close="]">${mn('0')}${mn('1')}</mfenced>`)).toBe('\\left[0,1\\right]');
    expect(latex(`<mfenced separators=";,">${mi('a')}${mi('b')}${mi('c')}</mfenced>`)).toBe('\\left(a;b,c\\right)');
    expect(latex(`${mo('(', 'stretchy="false"')}${mi('x')}${mo(')', 'stretchy="false"')}`)).toBe('(x)');
  });

  test('tables are matrices', () => {
    const row = (...cells: string[]) => `<mtr>${cells.map((c) => `<mtd>${mn(c)}</mtd>`).join('')}</mtr>`;
    expect(latex(`<mtable>${row('1', '0')}${row('0', '1')}</mtable>`)).toBe('\\begin{matrix}1 & 0 \\\\ 0 & 1\\end{matrix}');
  });

  test('menclose: boxes, strikes, top and bottom lines; phantoms', () => {
    expect(latex(`<menclose notation="box">${mi('x')}</menclose>`)).toBe('\\boxed{x}');
    expect(latex(`<menclose notation="updiagonalstrike">${mi('x')}</menclose>`)).toBe('\\cancel{x}');
    expect(latex(`<menclose notation="top">${mi('x')}</menclose>`)).toBe('\\overline{x}');
    expect(latex(`<mphantom>${mi('x')}</mphantom>`)).toBe('\\phantom{x}');
  });

  test('a TeX annotation is taken as written', () => {
    const tree = parseXmlTree('<math xmlns="http://www.w3.org/1998/Math/MathML"><semantics><mi>x</mi><annotation encoding="application/x-tex">\\mathcal{X}_0</annotation></semantics></math>');
    expect(mathmlToLatex(tree)).toBe('\\mathcal{X}_0');
  });

  test('prefixed names (math:mi) read the same', () => {
    const tree = parseXmlTree('<math:math xmlns:math="http://www.w3.org/1998/Math/MathML"><math:msup><math:mi>e</math:mi><math:mi>x</math:mi></math:msup></math:math>');
    expect(mathmlToLatex(tree)).toBe('e^{x}');
  });

  test('an unknown element degrades to the text inside it', () => {
    expect(latex(`${mi('a')}${mo('+')}<mfuture><mi>b</mi></mfuture>`)).toBe('a+b');
  });
});
