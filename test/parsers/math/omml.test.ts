import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ommlParagraph, ommlToLatex } from '../../../src/parsers/math/omml.js';
import { parseXmlTree } from '../../../src/parsers/xml.js';
import { DEFAULT_PARSE_LIMITS, withParseLimits } from '../../../src/limits.js';

/** OMML constructs one by one, each a small fixture written the way Word writes it. */

const NS = 'xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math" xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

function latex(body: string): string {
  return ommlToLatex(parseXmlTree(`<m:oMath ${NS}>${body}</m:oMath>`));
}

/** A run; `props` is the inside of m:rPr. */
function r(text: string, props = ''): string {
  return `<m:r>${props ? `<m:rPr>${props}</m:rPr>` : ''}<w:rPr><w:rFonts w:ascii="Cambria Math" w:hAnsi="Cambria Math"/></w:rPr><m:t xml:space="preserve">${text}</m:t></m:r>`;
}

const e = (inner: string) => `<m:e>${inner}</m:e>`;
const CTRL = '<m:ctrlPr><w:rPr><w:rFonts w:ascii="Cambria Math" w:hAnsi="Cambria Math"/><w:i/></w:rPr></m:ctrlPr>';

describe('OMML to LaTeX: runs and symbols', () => {
  test('letters, digits and operators; Greek and relations become commands, a space separates a command from a letter', () => {
    expect(latex(r('A=π') + `<m:sSup><m:sSupPr>${CTRL}</m:sSupPr>${e(r('r'))}<m:sup>${r('2')}</m:sup></m:sSup>`)).toBe('A=\\pi r^{2}');
    expect(latex(r('α≤β→∞, x∈ℝ, a≠b±c'))).toBe('\\alpha\\leq\\beta\\rightarrow\\infty,x\\in\\mathbb{R},a\\neq b\\pm c');
  });

  test('a symbol without a LaTeX command stays the Unicode character', () => {
    expect(latex(r('x⊹y'))).toBe('x⊹y');
  });

  test('TeX special characters are escaped', () => {
    expect(latex(r('50%&amp;#{}_$'))).toBe('50\\%\\&\\#\\{\\}\\_\\$');
  });

  test('math italic letters (U+1D434...) are plain letters; double-struck and bold ones keep their style', () => {
    expect(latex(r('𝑥+𝑦=𝑧'))).toBe('x+y=z');
    expect(latex(r('𝔸𝐯'))).toBe('\\mathbb{A}\\mathbf{v}');
  });

  test('a run split anywhere reads as one: words keep their spaces (\\ ), two or more spaces are \\quad', () => {
    expect(latex(r('group ') + r('wit') + r('h ') + r('braces'))).toBe('group\\ with\\ braces');
    expect(latex(r('f(x),    g(x)'))).toBe('f(x),\\quad g(x)');
    expect(latex(r(' = A × B '))).toBe('=A\\times B');
  });

  test('normal-text runs (m:nor) are \\text{}; script and style properties select a font', () => {
    expect(latex(r('if ', '<m:nor/>') + r('x>0'))).toBe('\\text{if }x>0');
    expect(latex(r('R', '<m:scr m:val="double-struck"/><m:sty m:val="p"/>'))).toBe('\\mathbb{R}');
    expect(latex(r('F', '<m:scr m:val="script"/>'))).toBe('\\mathcal{F}');
    expect(latex(r('v', '<m:sty m:val="b"/>'))).toBe('\\mathbf{v}');
  });

  test('CJK text in a math run is set as \\text{}', () => {
    expect(latex(r('速度=v'))).toBe('\\text{速度}=v');
  });

  test('deleted runs (tracked changes) are left out, inserted ones kept', () => {
    expect(latex(`${r('a+')}<m:r><w:rPr><w:del w:id="1" w:author="A"/></w:rPr><m:t>b</m:t></m:r><w:ins w:id="2">${r('c')}</w:ins>`)).toBe('a+c');
  });
});

describe('OMML to LaTeX: structures', () => {
  test('fractions: bar, no bar (binomial), skewed, linear', () => {
    const f = (type: string) => `<m:f><m:fPr>${type ? `<m:type m:val="${type}"/>` : ''}${CTRL}</m:fPr><m:num>${r('a')}</m:num><m:den>${r('b+c')}</m:den></m:f>`;
    expect(latex(f(''))).toBe('\\frac{a}{b+c}');
    expect(latex(f('noBar'))).toBe('\\genfrac{}{}{0pt}{}{a}{b+c}');
    expect(latex(f('skw'))).toBe('{}^{a}/_{b+c}');
    expect(latex(f('lin'))).toBe('a/{b+c}');
  });

  test('subscript, superscript, both, and scripts before the base; a compound base is braced', () => {
    expect(latex(`<m:sSub>${e(r('a'))}<m:sub>${r('n')}</m:sub></m:sSub>`)).toBe('a_{n}');
    expect(latex(`<m:sSubSup>${e(r('N'))}<m:sub>${r('s')}</m:sub><m:sup>${r('H')}</m:sup></m:sSubSup>`)).toBe('N_{s}^{H}');
    expect(latex(`<m:sPre><m:sub>${r('1')}</m:sub><m:sup>${r('2')}</m:sup>${e(r('X'))}</m:sPre>`)).toBe('{}_{1}^{2}X');
    expect(latex(`<m:sSup>${e(r('x+y'))}<m:sup>${r('2')}</m:sup></m:sSup>`)).toBe('{x+y}^{2}');
    expect(latex(`<m:sSup>${e(`<m:d>${e(r('x+a'))}</m:d>`)}<m:sup>${r('n')}</m:sup></m:sSup>`)).toBe('\\left(x+a\\right)^{n}');
    expect(latex(`<m:sSup>${e(r('e'))}<m:sup>${r('-')}<m:sSup>${e(r('x'))}<m:sup>${r('2')}</m:sup></m:sSup></m:sup></m:sSup>`)).toBe('e^{-x^{2}}');
  });

  test('radicals, with a degree and with the degree hidden', () => {
    expect(latex(`<m:rad><m:radPr><m:degHide m:val="1"/></m:radPr><m:deg/>${e(r('x'))}</m:rad>`)).toBe('\\sqrt{x}');
    expect(latex(`<m:rad><m:radPr/><m:deg>${r('3')}</m:deg>${e(r('x+1'))}</m:rad>`)).toBe('\\sqrt[3]{x+1}');
  });

  test('n-ary operators: sum with limits, integral default, product, limits placement against TeX habit, hidden limits', () => {
    const n = (pr: string, sub: string, sup: string, body: string) => `<m:nary><m:naryPr>${pr}</m:naryPr><m:sub>${sub}</m:sub><m:sup>${sup}</m:sup>${e(body)}</m:nary>`;
    expect(latex(n('<m:chr m:val="∑"/>', r('n=1'), r('∞'), r('a')))).toBe('\\sum_{n=1}^{\\infty}a');
    // No m:chr: an integral.
    expect(latex(n('', r('0'), r('1'), r('f(x)dx')))).toBe('\\int_{0}^{1}f(x)dx');
    expect(latex(n('<m:chr m:val="∏"/><m:limLoc m:val="undOvr"/>', r('k=1'), r('n'), `<m:sSub>${e(r('A'))}<m:sub>${r('k')}</m:sub></m:sSub>`))).toBe('\\prod_{k=1}^{n}A_{k}');
    expect(latex(n('<m:chr m:val="∑"/><m:limLoc m:val="subSup"/>', r('i'), '', r('x')))).toBe('\\sum\\nolimits_{i}x');
    expect(latex(n('<m:chr m:val="∮"/><m:limLoc m:val="undOvr"/>', r('C'), '', r('f')))).toBe('\\oint\\limits_{C}f');
    expect(latex(n('<m:chr m:val="∬"/><m:subHide m:val="1"/><m:supHide m:val="1"/>', '', '', r('f')))).toBe('\\iint f');
    expect(latex(n('<m:chr m:val="⋃"/>', r('n'), '', r('X')))).toBe('\\bigcup_{n}X');
  });

  test('delimiters: default parentheses, other characters, separators, a missing side, no growth', () => {
    const d = (pr: string, ...pieces: string[]) => `<m:d><m:dPr>${pr}${CTRL}</m:dPr>${pieces.map((p) => e(p)).join('')}</m:d>`;
    expect(latex(d('', r('x')))).toBe('\\left(x\\right)');
    expect(latex(d('<m:begChr m:val="["/><m:endChr m:val="]"/>', r('0,1')))).toBe('\\left[0,1\\right]');
    expect(latex(d('<m:begChr m:val="{"/><m:endChr m:val="}"/>', r('max')))).toBe('\\left\\{max\\right\\}');
    expect(latex(d('<m:begChr m:val="⟨"/><m:endChr m:val="⟩"/>', r('a'), r('b')))).toBe('\\left\\langle a\\middle|b\\right\\rangle');
    expect(latex(d('<m:sepChr m:val=","/>', r('a'), r('b')))).toBe('\\left(a,b\\right)');
    expect(latex(d('<m:begChr m:val="{"/><m:endChr m:val=""/>', r('x')))).toBe('\\left\\{x\\right.');
    expect(latex(d('<m:begChr m:val="|"/><m:endChr m:val="|"/><m:grow m:val="0"/>', r('x')))).toBe('|x|');
  });

  test('matrices and equation arrays (one row is the row itself; alignment points make an aligned environment)', () => {
    const row = (...cells: string[]) => `<m:mr>${cells.map((c) => e(r(c))).join('')}</m:mr>`;
    expect(latex(`<m:m><m:mPr/>${row('1', '0')}${row('0', '1')}</m:m>`)).toBe('\\begin{matrix}1 & 0 \\\\ 0 & 1\\end{matrix}');
    expect(latex(`<m:eqArr>${e(r('a=b'))}</m:eqArr>`)).toBe('a=b');
    expect(latex(`<m:eqArr>${e(r('x') + r('=1', '<m:aln/>'))}${e(r('y') + r('=2', '<m:aln/>'))}</m:eqArr>`)).toBe('\\begin{aligned}x&=1 \\\\ y&=2\\end{aligned}');
    expect(latex(`<m:eqArr>${e(r('x=1'))}${e(r('y=2'))}</m:eqArr>`)).toBe('\\begin{gathered}x=1 \\\\ y=2\\end{gathered}');
  });

  test('accents (default hat, wide forms over longer bases) and bars (bottom by default)', () => {
    expect(latex(`<m:acc><m:accPr>${CTRL}</m:accPr>${e(r('x'))}</m:acc>`)).toBe('\\hat{x}');
    expect(latex(`<m:acc><m:accPr><m:chr m:val="⃗"/></m:accPr>${e(r('v'))}</m:acc>`)).toBe('\\vec{v}');
    expect(latex(`<m:acc><m:accPr><m:chr m:val="̃"/></m:accPr>${e(r('xy'))}</m:acc>`)).toBe('\\widetilde{xy}');
    expect(latex(`<m:acc><m:accPr><m:chr m:val="̇"/></m:accPr>${e(r('q'))}</m:acc>`)).toBe('\\dot{q}');
    expect(latex(`<m:acc><m:accPr><m:chr m:val="♠"/></m:accPr>${e(r('q'))}</m:acc>`)).toBe('\\overset{♠}{q}');
    expect(latex(`<m:bar><m:barPr><m:pos m:val="top"/></m:barPr>${e(r('z'))}</m:bar>`)).toBe('\\overline{z}');
    expect(latex(`<m:bar><m:barPr/>${e(r('z'))}</m:bar>`)).toBe('\\underline{z}');
  });

  test('grouping characters: underbrace by default, overbrace, labels from limLow/limUpp become scripts', () => {
    const under = `<m:groupChr><m:groupChrPr>${CTRL}</m:groupChrPr>${e(r('a+b'))}</m:groupChr>`;
    const over = `<m:groupChr><m:groupChrPr><m:chr m:val="⏞"/><m:pos m:val="top"/><m:vertJc m:val="bot"/></m:groupChrPr>${e(r('a+b'))}</m:groupChr>`;
    expect(latex(under)).toBe('\\underbrace{a+b}');
    expect(latex(over)).toBe('\\overbrace{a+b}');
    expect(latex(`<m:limLow>${e(under)}<m:lim>${r('n terms')}</m:lim></m:limLow>`)).toBe('\\underbrace{a+b}_{n\\ terms}');
    expect(latex(`<m:limUpp>${e(over)}<m:lim>${r('k')}</m:lim></m:limUpp>`)).toBe('\\overbrace{a+b}^{k}');
    expect(latex(`<m:limUpp>${e(r('=', '<m:sty m:val="p"/>'))}<m:lim>${r('def')}</m:lim></m:limUpp>`)).toBe('\\overset{def}{=}');
    expect(latex(`<m:limLow>${e(r('→'))}<m:lim>${r('x')}</m:lim></m:limLow>`)).toBe('\\underset{x}{\\rightarrow}');
  });

  test('functions: names TeX knows, others as \\operatorname, limits under lim/max, the argument braced', () => {
    const fn = (name: string, arg: string) => `<m:func><m:funcPr/><m:fName>${name}</m:fName>${e(arg)}</m:func>`;
    const plain = (t: string) => r(t, '<m:sty m:val="p"/>');
    expect(latex(fn(plain('sin'), r('x')))).toBe('\\sin{x}');
    expect(latex(fn(plain('cos'), `<m:f>${'<m:num>' + r('nπx') + '</m:num><m:den>' + r('L') + '</m:den>'}</m:f>`))).toBe('\\cos{\\frac{n\\pi x}{L}}');
    expect(latex(fn(plain('sgn'), r('x')))).toBe('\\operatorname{sgn}{x}');
    expect(latex(fn(`<m:limLow>${e(plain('lim'))}<m:lim>${r('n→∞')}</m:lim></m:limLow>`, r('a')))).toBe('\\lim_{n\\rightarrow\\infty}{a}');
    expect(latex(fn(`<m:limLow>${e(plain('argmax'))}<m:lim>${r('θ')}</m:lim></m:limLow>`, r('L')))).toBe('\\operatorname*{argmax}_{\\theta}{L}');
    expect(latex(fn(`<m:sSup>${e(plain('sin'))}<m:sup>${r('2')}</m:sup></m:sSup>`, r('x')))).toBe('\\sin^{2}{x}');
  });

  test('boxes: box is its content, border box \\boxed, a hidden phantom \\phantom', () => {
    expect(latex(`<m:box><m:boxPr><m:diff m:val="1"/></m:boxPr>${e(r('dx'))}</m:box>`)).toBe('dx');
    expect(latex(`<m:borderBox><m:borderBoxPr/>${e(r('E=mc'))}</m:borderBox>`)).toBe('\\boxed{E=mc}');
    expect(latex(`<m:phant><m:phantPr><m:show m:val="0"/></m:phantPr>${e(r('x'))}</m:phant>`)).toBe('\\phantom{x}');
  });

  test('an unknown element degrades to the text inside it, never to nothing', () => {
    expect(latex(`${r('a+')}<m:futureThing><m:futureThingPr/><m:e>${r('b')}</m:e></m:futureThing>`)).toBe('a+b');
  });

  test('mc:AlternateContent reads the Choice, not the Fallback', () => {
    expect(latex(`<mc:AlternateContent xmlns:mc="x"><mc:Choice Requires="a">${r('x')}</mc:Choice><mc:Fallback>${r('y')}</mc:Fallback></mc:AlternateContent>`)).toBe('x');
  });

  test('pathological nesting falls back to the text, without overflowing the stack', () => {
    const depth = 5000;
    const xml = '<m:d><m:e>'.repeat(depth) + r('z') + '</m:e></m:d>'.repeat(depth);
    // The XML reader refuses it at the default nesting limit; raised, the converter must cope.
    expect(() => latex(xml)).toThrow(expect.objectContaining({ code: 'LIMIT_EXCEEDED' }));
    const out = withParseLimits({ ...DEFAULT_PARSE_LIMITS, maxNesting: 3 * depth }, () => latex(xml));
    expect(out).toContain('z');
    expect(out.length).toBeLessThan(depth * 20);
  });

  test('a display paragraph gives one LaTeX string per equation', () => {
    const para = parseXmlTree(`<m:oMathPara ${NS}><m:oMathParaPr><m:jc m:val="center"/></m:oMathParaPr><m:oMath>${r('a=1')}</m:oMath><m:oMath>${r('b=2')}</m:oMath><m:oMath/></m:oMathPara>`);
    expect(ommlParagraph(para)).toEqual(['a=1', 'b=2']);
  });
});

describe('OMML to LaTeX: well-formed on any nesting of constructs (property)', () => {
  const leaf = fc.stringMatching(/^[a-z0-9+=() ]{1,4}$/).map((t) => ({ xml: r(t), text: t }));
  type Gen = { xml: string; text: string };
  const wrap = (tag: string, ...parts: [string, Gen][]): Gen => ({
    xml: `<m:${tag}>${parts.map(([name, g]) => `<m:${name}>${g.xml}</m:${name}>`).join('')}</m:${tag}>`,
    text: parts.map(([, g]) => g.text).join(''),
  });
  const tree: fc.Arbitrary<Gen> = fc.letrec<{ node: Gen }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.tuple(tie('node'), tie('node')).map(([a, b]) => wrap('f', ['num', a], ['den', b])),
      fc.tuple(tie('node'), tie('node')).map(([a, b]) => wrap('sSup', ['e', a], ['sup', b])),
      fc.tuple(tie('node'), tie('node'), tie('node')).map(([a, b, c]) => wrap('sSubSup', ['e', a], ['sub', b], ['sup', c])),
      fc.tuple(tie('node'), tie('node')).map(([a, b]) => wrap('rad', ['deg', a], ['e', b])),
      fc.tuple(tie('node'), tie('node')).map(([a, b]) => ({ ...wrap('nary', ['sub', a], ['e', b]), xml: wrap('nary', ['sub', a], ['e', b]).xml.replace('<m:nary>', '<m:nary><m:naryPr><m:chr m:val="∑"/></m:naryPr>') })),
      fc.tuple(tie('node'), tie('node')).map(([a, b]) => wrap('d', ['e', a], ['e', b])),
      tie('node').map((a) => wrap('acc', ['e', a])),
      tie('node').map((a) => wrap('groupChr', ['e', a])),
      fc.tuple(tie('node'), tie('node')).map(([a, b]) => wrap('limLow', ['e', a], ['lim', b])),
      fc.tuple(tie('node'), tie('node')).map(([a, b]) => ({ xml: `<m:func><m:fName>${r('sin', '<m:sty m:val="p"/>')}</m:fName><m:e>${a.xml}</m:e></m:func>${b.xml}`, text: `sin${a.text}${b.text}` })),
      fc.tuple(tie('node'), tie('node')).map(([a, b]) => ({ xml: `<m:m><m:mr><m:e>${a.xml}</m:e><m:e>${b.xml}</m:e></m:mr></m:m>`, text: a.text + b.text })),
      fc.tuple(tie('node'), tie('node')).map(([a, b]) => ({ xml: `<m:eqArr><m:e>${a.xml}</m:e><m:e>${b.xml}</m:e></m:eqArr>`, text: a.text + b.text })),
    ),
  })).node;

  const balanced = (latex: string): boolean => {
    let depth = 0;
    for (let i = 0; i < latex.length; i++) {
      if (latex[i] === '\\') i++;
      else if (latex[i] === '{') depth++;
      else if (latex[i] === '}' && --depth < 0) return false;
    }
    return depth === 0;
  };
  const count = (latex: string, re: RegExp) => (latex.match(re) ?? []).length;

  test('balanced braces, \\left/\\right and environments, and every letter and digit of the input', () => {
    fc.assert(
      fc.property(tree, (g) => {
        const out = latex(g.xml);
        expect(balanced(out)).toBe(true);
        expect(count(out, /\\left(?![a-z])/g)).toBe(count(out, /\\right(?![a-z])/g));
        expect(count(out, /\\begin\{/g)).toBe(count(out, /\\end\{/g));
        // Nothing lost: every letter and digit of the runs is in the output (\underset puts the limit first, so not in order).
        const have = new Map<string, number>();
        for (const ch of out) have.set(ch, (have.get(ch) ?? 0) + 1);
        for (const ch of g.text.replace(/[^a-z0-9]/g, '')) {
          expect(have.get(ch) ?? 0).toBeGreaterThan(0);
          have.set(ch, have.get(ch)! - 1);
        }
      }),
      { seed: 42, numRuns: 300 },
    );
  });
});
