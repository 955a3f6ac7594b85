/**
 * Writing LaTeX: the pieces the OMML and MathML converters share. Pure functions over strings:
 * characters to math-mode LaTeX (a command where LaTeX has one, else the Unicode character), literal
 * text, joining pieces without gluing a command to the letter after it, braces where a script base
 * needs them, scripts, fractions, delimiters, n-ary operators, accents and function names.
 */

/** Unicode -> math-mode LaTeX, where LaTeX (amsmath, amssymb, esint for the surface integrals) has a command. */
const SYMBOLS: ReadonlyMap<string, string> = new Map<string, string>([
  // Greek (unicode-math's assignment: ϵ is \epsilon, ε \varepsilon; ϕ is \phi, φ \varphi)
  ['α', '\\alpha'], ['β', '\\beta'], ['γ', '\\gamma'], ['δ', '\\delta'], ['ε', '\\varepsilon'], ['ϵ', '\\epsilon'],
  ['ζ', '\\zeta'], ['η', '\\eta'], ['θ', '\\theta'], ['ϑ', '\\vartheta'], ['ι', '\\iota'], ['κ', '\\kappa'],
  ['ϰ', '\\varkappa'], ['λ', '\\lambda'], ['μ', '\\mu'], ['µ', '\\mu'], ['ν', '\\nu'], ['ξ', '\\xi'], ['ο', 'o'],
  ['π', '\\pi'], ['ϖ', '\\varpi'], ['ρ', '\\rho'], ['ϱ', '\\varrho'], ['σ', '\\sigma'], ['ς', '\\varsigma'],
  ['τ', '\\tau'], ['υ', '\\upsilon'], ['ϕ', '\\phi'], ['φ', '\\varphi'], ['χ', '\\chi'], ['ψ', '\\psi'], ['ω', '\\omega'],
  ['Α', 'A'], ['Β', 'B'], ['Γ', '\\Gamma'], ['Δ', '\\Delta'], ['Ε', 'E'], ['Ζ', 'Z'], ['Η', 'H'], ['Θ', '\\Theta'],
  ['ϴ', '\\Theta'], ['Ι', 'I'], ['Κ', 'K'], ['Λ', '\\Lambda'], ['Μ', 'M'], ['Ν', 'N'], ['Ξ', '\\Xi'], ['Ο', 'O'],
  ['Π', '\\Pi'], ['Ρ', 'P'], ['Σ', '\\Sigma'], ['Τ', 'T'], ['Υ', '\\Upsilon'], ['ϒ', '\\Upsilon'], ['Φ', '\\Phi'],
  ['Χ', 'X'], ['Ψ', '\\Psi'], ['Ω', '\\Omega'], ['Ϝ', '\\digamma'], ['ϝ', '\\digamma'],
  // Letter-like
  ['ℎ', 'h'], ['ℏ', '\\hbar'], ['ℓ', '\\ell'], ['℘', '\\wp'], ['ℑ', '\\Im'], ['ℜ', '\\Re'], ['ℵ', '\\aleph'],
  ['ℶ', '\\beth'], ['ℷ', '\\gimel'], ['ı', '\\imath'], ['ȷ', '\\jmath'], ['∂', '\\partial'], ['∇', '\\nabla'],
  ['∞', '\\infty'], ['∅', '\\emptyset'], ['ℝ', '\\mathbb{R}'], ['ℕ', '\\mathbb{N}'], ['ℤ', '\\mathbb{Z}'],
  ['ℚ', '\\mathbb{Q}'], ['ℂ', '\\mathbb{C}'], ['ℙ', '\\mathbb{P}'], ['ℍ', '\\mathbb{H}'], ['ℒ', '\\mathcal{L}'],
  ['ℋ', '\\mathcal{H}'], ['ℐ', '\\mathcal{I}'], ['ℛ', '\\mathcal{R}'], ['ℬ', '\\mathcal{B}'], ['ℰ', '\\mathcal{E}'],
  ['ℱ', '\\mathcal{F}'], ['ℳ', '\\mathcal{M}'], ['ℭ', '\\mathfrak{C}'], ['ℌ', '\\mathfrak{H}'], ['ℨ', '\\mathfrak{Z}'],
  // Binary operators
  ['±', '\\pm'], ['∓', '\\mp'], ['×', '\\times'], ['÷', '\\div'], ['⋅', '\\cdot'], ['·', '\\cdot'], ['∘', '\\circ'],
  ['∙', '\\bullet'], ['•', '\\bullet'], ['∗', '\\ast'], ['⋆', '\\star'], ['⊕', '\\oplus'], ['⊖', '\\ominus'],
  ['⊗', '\\otimes'], ['⊘', '\\oslash'], ['⊙', '\\odot'], ['∧', '\\wedge'], ['∨', '\\vee'], ['∩', '\\cap'],
  ['∪', '\\cup'], ['∖', '\\setminus'], ['⊎', '\\uplus'], ['⊓', '\\sqcap'], ['⊔', '\\sqcup'], ['†', '\\dagger'],
  ['‡', '\\ddagger'], ['⋄', '\\diamond'], ['≀', '\\wr'], ['⊲', '\\lhd'], ['⊳', '\\rhd'], ['−', '-'], ['∕', '/'],
  // Relations
  ['≤', '\\leq'], ['≥', '\\geq'], ['≦', '\\leqq'], ['≧', '\\geqq'], ['⩽', '\\leqslant'], ['⩾', '\\geqslant'],
  ['≠', '\\neq'], ['≈', '\\approx'], ['≡', '\\equiv'], ['≢', '\\not\\equiv'], ['∼', '\\sim'], ['≃', '\\simeq'],
  ['≅', '\\cong'], ['≐', '\\doteq'], ['≜', '\\triangleq'], ['∝', '\\propto'], ['≪', '\\ll'], ['≫', '\\gg'],
  ['≺', '\\prec'], ['≻', '\\succ'], ['⪯', '\\preceq'], ['⪰', '\\succeq'], ['≍', '\\asymp'], ['∈', '\\in'],
  ['∉', '\\notin'], ['∋', '\\ni'], ['⊂', '\\subset'], ['⊃', '\\supset'], ['⊆', '\\subseteq'], ['⊇', '\\supseteq'],
  ['⊊', '\\subsetneq'], ['⊋', '\\supsetneq'], ['⊄', '\\not\\subset'], ['⊏', '\\sqsubset'], ['⊐', '\\sqsupset'],
  ['⊑', '\\sqsubseteq'], ['⊒', '\\sqsupseteq'], ['⊥', '\\perp'], ['∥', '\\parallel'], ['∦', '\\nparallel'],
  ['∣', '\\mid'], ['∤', '\\nmid'], ['⊢', '\\vdash'], ['⊣', '\\dashv'], ['⊨', '\\models'], ['≮', '\\nless'],
  ['≯', '\\ngtr'], ['≰', '\\nleq'], ['≱', '\\ngeq'], ['≲', '\\lesssim'], ['≳', '\\gtrsim'], ['⋈', '\\bowtie'],
  ['∶', ':'], ['≔', ':='],
  // Arrows
  ['→', '\\rightarrow'], ['←', '\\leftarrow'], ['↔', '\\leftrightarrow'], ['⇒', '\\Rightarrow'], ['⇐', '\\Leftarrow'],
  ['⇔', '\\Leftrightarrow'], ['↑', '\\uparrow'], ['↓', '\\downarrow'], ['↕', '\\updownarrow'], ['⇑', '\\Uparrow'],
  ['⇓', '\\Downarrow'], ['⇕', '\\Updownarrow'], ['↦', '\\mapsto'], ['⟼', '\\longmapsto'], ['⟶', '\\longrightarrow'],
  ['⟵', '\\longleftarrow'], ['⟷', '\\longleftrightarrow'], ['⟹', '\\Longrightarrow'], ['⟸', '\\Longleftarrow'],
  ['⟺', '\\Longleftrightarrow'], ['↗', '\\nearrow'], ['↘', '\\searrow'], ['↖', '\\nwarrow'], ['↙', '\\swarrow'],
  ['↪', '\\hookrightarrow'], ['↩', '\\hookleftarrow'], ['⇀', '\\rightharpoonup'], ['⇁', '\\rightharpoondown'],
  ['↼', '\\leftharpoonup'], ['↽', '\\leftharpoondown'], ['⇌', '\\rightleftharpoons'], ['⇋', '\\leftrightharpoons'],
  ['↠', '\\twoheadrightarrow'], ['↣', '\\rightarrowtail'], ['⇝', '\\rightsquigarrow'], ['↺', '\\circlearrowleft'],
  ['↻', '\\circlearrowright'],
  // Logic, sets, misc
  ['∀', '\\forall'], ['∃', '\\exists'], ['∄', '\\nexists'], ['¬', '\\neg'], ['∠', '\\angle'], ['∡', '\\measuredangle'],
  ['…', '\\ldots'], ['⋯', '\\cdots'], ['⋮', '\\vdots'], ['⋱', '\\ddots'], ['′', "'"], ['″', "''"], ['‴', "'''"],
  ['⊤', '\\top'], ['△', '\\triangle'], ['▵', '\\triangle'], ['□', '\\square'], ['◊', '\\lozenge'], ['♯', '\\sharp'],
  ['♭', '\\flat'], ['♮', '\\natural'], ['★', '\\bigstar'], ['√', '\\surd'], ['∴', '\\therefore'], ['∵', '\\because'],
  ['∎', '\\blacksquare'], ['⟨', '\\langle'], ['⟩', '\\rangle'], ['〈', '\\langle'], ['〉', '\\rangle'], ['⌈', '\\lceil'],
  ['⌉', '\\rceil'], ['⌊', '\\lfloor'], ['⌋', '\\rfloor'], ['‖', '\\|'], ['°', '^{\\circ}'], ['∁', '\\complement'],
  ['ð', '\\eth'], ['§', '\\S'], ['¶', '\\P'], ['©', '\\copyright'], ['£', '\\pounds'], ['⊺', '^{\\top}'],
  // Big operators met outside an n-ary object
  ['∑', '\\sum'], ['∏', '\\prod'], ['∐', '\\coprod'], ['∫', '\\int'], ['∬', '\\iint'], ['∭', '\\iiint'],
  ['⨌', '\\iiiint'], ['∮', '\\oint'], ['∯', '\\oiint'], ['∰', '\\oiiint'], ['⋀', '\\bigwedge'], ['⋁', '\\bigvee'],
  ['⋂', '\\bigcap'], ['⋃', '\\bigcup'], ['⨀', '\\bigodot'], ['⨁', '\\bigoplus'], ['⨂', '\\bigotimes'],
  ['⨄', '\\biguplus'], ['⨆', '\\bigsqcup'],
  // ASCII that means something to TeX
  ['{', '\\{'], ['}', '\\}'], ['#', '\\#'], ['$', '\\$'], ['%', '\\%'], ['&', '\\&'], ['_', '\\_'], ['~', '\\sim'],
  ['^', '\\hat{}'], ['\\', '\\backslash'],
  // Invisible operators (function application, invisible times, separator, plus): nothing to write
  ['\u2061', ''], ['\u2062', ''], ['\u2063', ''], ['\u2064', ''], ['\u200b', ''],
]);

/** N-ary operators: the command, and whether LaTeX sets its limits beside it (integrals) rather than under and over. */
const NARY: ReadonlyMap<string, { command: string; integral: boolean }> = new Map(
  (
    [
      ['∑', '\\sum', false], ['∏', '\\prod', false], ['∐', '\\coprod', false], ['⋀', '\\bigwedge', false],
      ['⋁', '\\bigvee', false], ['⋂', '\\bigcap', false], ['⋃', '\\bigcup', false], ['⨀', '\\bigodot', false],
      ['⨁', '\\bigoplus', false], ['⨂', '\\bigotimes', false], ['⨄', '\\biguplus', false], ['⨆', '\\bigsqcup', false],
      ['∫', '\\int', true], ['∬', '\\iint', true], ['∭', '\\iiint', true], ['⨌', '\\iiiint', true], ['∮', '\\oint', true],
      ['∯', '\\oiint', true], ['∰', '\\oiiint', true], ['∱', '\\intclockwise', true], ['∲', '\\varointclockwise', true],
      ['∳', '\\ointctrclockwise', true],
    ] as const
  ).map(([ch, command, integral]) => [ch, { command, integral }]),
);

/** Functions LaTeX has a command for; the second set takes its limits under it in display (\lim_{n\to\infty}). */
const FUNCTIONS = new Set([
  'sin', 'cos', 'tan', 'cot', 'sec', 'csc', 'arcsin', 'arccos', 'arctan', 'sinh', 'cosh', 'tanh', 'coth', 'exp', 'log',
  'ln', 'lg', 'arg', 'deg', 'dim', 'hom', 'ker', 'lim', 'liminf', 'limsup', 'max', 'min', 'sup', 'inf', 'det', 'gcd', 'Pr',
]);
const LIMIT_FUNCTIONS = new Set(['lim', 'liminf', 'limsup', 'max', 'min', 'sup', 'inf', 'det', 'gcd', 'Pr']);

/** Delimiters \left and \right accept, by character (an empty string is the invisible one). */
const DELIMITERS: ReadonlyMap<string, string> = new Map([
  ['', '.'], ['(', '('], [')', ')'], ['[', '['], [']', ']'], ['{', '\\{'], ['}', '\\}'], ['|', '|'], ['‖', '\\|'],
  ['∥', '\\|'], ['⟨', '\\langle'], ['⟩', '\\rangle'], ['〈', '\\langle'], ['〉', '\\rangle'], ['⌈', '\\lceil'],
  ['⌉', '\\rceil'], ['⌊', '\\lfloor'], ['⌋', '\\rfloor'], ['/', '/'], ['\\', '\\backslash'], ['↑', '\\uparrow'],
  ['↓', '\\downarrow'], ['⟦', '\\llbracket'], ['⟧', '\\rrbracket'],
]);

/** Accents over one symbol (the wide form for longer bases), by the combining or spacing character that names them. */
const ACCENTS: ReadonlyMap<string, [narrow: string, wide: string]> = new Map([
  ['\u0300', ['\\grave', '\\grave']], ['`', ['\\grave', '\\grave']], ['\u0301', ['\\acute', '\\acute']], ['´', ['\\acute', '\\acute']],
  ['\u0302', ['\\hat', '\\widehat']], ['^', ['\\hat', '\\widehat']], ['ˆ', ['\\hat', '\\widehat']],
  ['\u0303', ['\\tilde', '\\widetilde']], ['~', ['\\tilde', '\\widetilde']], ['˜', ['\\tilde', '\\widetilde']],
  ['\u0304', ['\\bar', '\\overline']], ['¯', ['\\bar', '\\overline']], ['\u0305', ['\\overline', '\\overline']],
  ['‾', ['\\overline', '\\overline']], ['\u0306', ['\\breve', '\\breve']], ['˘', ['\\breve', '\\breve']],
  ['\u0307', ['\\dot', '\\dot']], ['˙', ['\\dot', '\\dot']], ['\u0308', ['\\ddot', '\\ddot']], ['¨', ['\\ddot', '\\ddot']],
  ['\u030c', ['\\check', '\\check']], ['ˇ', ['\\check', '\\check']], ['\u030a', ['\\mathring', '\\mathring']],
  ['˚', ['\\mathring', '\\mathring']], ['\u20d7', ['\\vec', '\\overrightarrow']], ['→', ['\\vec', '\\overrightarrow']],
  ['\u20d6', ['\\overleftarrow', '\\overleftarrow']], ['←', ['\\overleftarrow', '\\overleftarrow']],
  ['\u20e1', ['\\overleftrightarrow', '\\overleftrightarrow']], ['↔', ['\\overleftrightarrow', '\\overleftrightarrow']],
  ['\u20db', ['\\dddot', '\\dddot']], ['\u20dc', ['\\ddddot', '\\ddddot']],
]);

/** Grouping characters (braces, brackets, parentheses, arrows) above or below a base. */
const GROUPING: ReadonlyMap<string, { over: string; under: string }> = new Map([
  ['⏞', { over: '\\overbrace', under: '\\overbrace' }], ['⏟', { over: '\\underbrace', under: '\\underbrace' }],
  ['⏜', { over: '\\overparen', under: '\\overparen' }], ['⏝', { over: '\\underparen', under: '\\underparen' }],
  ['⎴', { over: '\\overbracket', under: '\\overbracket' }], ['⎵', { over: '\\underbracket', under: '\\underbracket' }],
  ['→', { over: '\\overrightarrow', under: '\\underrightarrow' }], ['←', { over: '\\overleftarrow', under: '\\underleftarrow' }],
  ['↔', { over: '\\overleftrightarrow', under: '\\underleftrightarrow' }], ['¯', { over: '\\overline', under: '\\underline' }],
  ['_', { over: '\\overline', under: '\\underline' }],
]);

/** Mathematical Alphanumeric Symbols (U+1D400-1D7FF): the style of each 26+26-letter alphabet, by its first code point. */
const LATIN_ALPHABETS: readonly [number, string][] = [
  [0x1d400, 'mathbf'], [0x1d434, ''], [0x1d468, 'boldsymbol'], [0x1d49c, 'mathcal'], [0x1d4d0, 'mathcal'],
  [0x1d504, 'mathfrak'], [0x1d538, 'mathbb'], [0x1d56c, 'mathfrak'], [0x1d5a0, 'mathsf'], [0x1d5d4, 'mathsf'],
  [0x1d608, 'mathsf'], [0x1d63c, 'mathsf'], [0x1d670, 'mathtt'],
];
const DIGIT_ALPHABETS: readonly [number, string][] = [[0x1d7ce, 'mathbf'], [0x1d7d8, 'mathbb'], [0x1d7e2, 'mathsf'], [0x1d7ec, 'mathsf'], [0x1d7f6, 'mathtt']];
/** Greek alphabets of that block (bold, italic, bold italic, sans bold, sans bold italic), 58 symbols each. */
const GREEK_ALPHABETS: readonly [number, string][] = [[0x1d6a8, 'boldsymbol'], [0x1d6e2, ''], [0x1d71c, 'boldsymbol'], [0x1d756, 'boldsymbol'], [0x1d790, 'boldsymbol']];
const GREEK_ORDER = 'ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡϴΣΤΥΦΧΨΩ∇αβγδεζηθικλμνξοπρςστυφχψω∂ϵϑϰϕϱϖ';

/** The plain letter, digit or Greek symbol and its style for a Mathematical Alphanumeric Symbol. */
function alphanumeric(cp: number): { char: string; style: string } | undefined {
  if (cp < 0x1d400 || cp > 0x1d7ff) return undefined;
  if (cp >= 0x1d7ce) {
    for (let i = DIGIT_ALPHABETS.length - 1; i >= 0; i--) {
      const [first, style] = DIGIT_ALPHABETS[i]!;
      if (cp >= first) return cp - first < 10 ? { char: String.fromCharCode(48 + cp - first), style } : undefined;
    }
  }
  if (cp >= 0x1d6a8) {
    for (let i = GREEK_ALPHABETS.length - 1; i >= 0; i--) {
      const [first, style] = GREEK_ALPHABETS[i]!;
      if (cp >= first && cp - first < GREEK_ORDER.length) return { char: GREEK_ORDER[cp - first]!, style };
    }
    return undefined;
  }
  for (let i = LATIN_ALPHABETS.length - 1; i >= 0; i--) {
    const [first, style] = LATIN_ALPHABETS[i]!;
    if (cp >= first) {
      const k = cp - first;
      return k < 52 ? { char: String.fromCharCode(k < 26 ? 65 + k : 97 + k - 26), style } : undefined;
    }
  }
  return undefined;
}

/** Letters and digits a style command may wrap (\mathbb{R}); symbols and commands stay outside it. */
const STYLABLE = /^[A-Za-z0-9]$/;
const CJK = /[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/;

/** Font styles a run can ask for (OMML m:scr/m:sty, MathML mathvariant), as the LaTeX command that sets them. */
export type MathStyle = '' | 'mathbf' | 'boldsymbol' | 'mathcal' | 'mathfrak' | 'mathbb' | 'mathsf' | 'mathtt' | 'mathrm';

/**
 * A run of characters in math mode. Each character becomes its command or itself; styled letters
 * (Mathematical Alphanumeric Symbols, or `style`) are wrapped (`\mathbb{R}`); one space between two
 * letters or digits is a visible space (`\ `), two or more are `\quad`, other spaces are dropped (TeX
 * spaces math itself); CJK text is wrapped in \text{}.
 */
export function mathText(text: string, style: MathStyle = ''): string {
  const parts: string[] = [];
  let styled = '';
  let styledWith: string | undefined;
  let cjk = '';
  const flushStyled = (): void => {
    if (styledWith !== undefined && styled) parts.push(styledWith ? `\\${styledWith}{${styled}}` : styled);
    styled = '';
    styledWith = undefined;
  };
  const flushCjk = (): void => {
    if (cjk) parts.push(`\\text{${cjk}}`);
    cjk = '';
  };
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === ' ' || ch === '\u00a0' || ch === '\t' || ch === '\n' || ch === '\r') {
      let j = i;
      while (j + 1 < chars.length && /^[ \u00a0\t\n\r]$/.test(chars[j + 1]!)) j++;
      const before = chars[i - 1];
      const after = chars[j + 1];
      flushStyled();
      if (cjk && after !== undefined && CJK.test(after)) {
        cjk += ' ';
      } else {
        flushCjk();
        if (j > i) parts.push('\\quad ');
        else if (before !== undefined && after !== undefined && isWordChar(before) && isWordChar(after)) parts.push('\\ ');
      }
      i = j;
      continue;
    }
    if (CJK.test(ch)) {
      flushStyled();
      cjk += escapeText(ch);
      continue;
    }
    flushCjk();
    const alpha = alphanumeric(ch.codePointAt(0)!);
    const plain = alpha?.char ?? ch;
    const charStyle = alpha ? alpha.style || style : style;
    const symbol = SYMBOLS.get(plain);
    if (STYLABLE.test(plain) || (charStyle && symbol === undefined && !/\s/.test(plain))) {
      if (styledWith !== charStyle) {
        flushStyled();
        styledWith = charStyle;
      }
      styled += plain;
      continue;
    }
    flushStyled();
    // A styled Greek letter or symbol command keeps its style (\boldsymbol{\alpha}).
    parts.push(symbol !== undefined && charStyle && /^\\[A-Za-z]+$/.test(symbol) ? `\\${charStyle}{${symbol}}` : (symbol ?? plain));
  }
  flushStyled();
  flushCjk();
  return join(parts);
}

function isWordChar(ch: string): boolean {
  return /^[\p{L}\p{N}]$/u.test(ch) || alphanumeric(ch.codePointAt(0)!) !== undefined;
}

/** Literal text (`\text{...}`), its TeX characters escaped; empty for empty text. */
export function textRun(text: string): string {
  return text === '' ? '' : `\\text{${escapeText(text)}}`;
}

const TEXT_ESCAPES: Record<string, string> = {
  '\\': '\\textbackslash{}', '{': '\\{', '}': '\\}', $: '\\$', '&': '\\&', '#': '\\#', '%': '\\%', _: '\\_',
  '^': '\\textasciicircum{}', '~': '\\textasciitilde{}',
};

function escapeText(text: string): string {
  return text.replace(/[\\{}$&#%_^~]/g, (c) => TEXT_ESCAPES[c]!);
}

const ENDS_WITH_WORD_COMMAND = /\\[A-Za-z]+$/;
const STARTS_WITH_LETTER = /^[A-Za-z0-9]/;

/**
 * Concatenates LaTeX pieces: a space goes between a control word and a letter or digit after it
 * (`\pi r`, not `\pir`; `\times 23` for reading); empty pieces vanish.
 */
export function join(parts: readonly string[]): string {
  let out = '';
  for (const part of parts) {
    if (part === '') continue;
    if (ENDS_WITH_WORD_COMMAND.test(out) && STARTS_WITH_LETTER.test(part)) out += ' ';
    out += part;
  }
  return out;
}

/**
 * True when `latex` is one unit a script can attach to without braces: one character, one
 * command (with at most one braced argument: \hat{x}, \mathbb{R}), a braced group, or one
 * \left...\right pair.
 */
export function isAtom(latex: string): boolean {
  if (latex === '') return true;
  if (Array.from(latex).length === 1) return true;
  if (/^\\(?:[A-Za-z]+|[^A-Za-z])$/.test(latex)) return true;
  if (latex.startsWith('{')) return matchingBrace(latex, 0) === latex.length - 1;
  const command = /^\\[A-Za-z]+\*?/.exec(latex);
  if (command) {
    const name = command[0];
    if (name === '\\left') return rightEnd(latex) === latex.length;
    let p = name.length;
    if (latex[p] === '[') {
      const close = latex.indexOf(']', p);
      if (close < 0) return false;
      p = close + 1;
    }
    if (latex[p] !== '{') return false;
    const close = matchingBrace(latex, p);
    return close === latex.length - 1;
  }
  return false;
}

/** Index of the `}` closing the `{` at `open` (escaped braces skipped), or -1. */
function matchingBrace(latex: string, open: number): number {
  let depth = 0;
  for (let i = open; i < latex.length; i++) {
    const c = latex[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** For a string starting with \left: the index just after the delimiter of its matching \right, or -1. */
function rightEnd(latex: string): number {
  let depth = 0;
  const re = /\\(left|right)(?![A-Za-z])/g;
  for (let m = re.exec(latex); m; m = re.exec(latex)) {
    depth += m[1] === 'left' ? 1 : -1;
    if (depth === 0) {
      const rest = latex.slice(re.lastIndex);
      const delim = /^(?:\\[A-Za-z]+|\\.|.)/su.exec(rest);
      return re.lastIndex + (delim ? delim[0].length : 0);
    }
  }
  return -1;
}

/** `latex` wrapped in braces unless it is an atom. */
export function group(latex: string): string {
  return isAtom(latex) ? latex : `{${latex}}`;
}

/** `base_{sub}^{sup}`; empty scripts are left out, a compound base is braced. */
export function scripts(base: string, sub: string, sup: string): string {
  if (sub === '' && sup === '') return base;
  return `${group(base)}${sub !== '' ? `_{${sub}}` : ''}${sup !== '' ? `^{${sup}}` : ''}`;
}

/** Scripts before the base: `{}_{sub}^{sup}base`. */
export function prescripts(base: string, sub: string, sup: string): string {
  if (sub === '' && sup === '') return base;
  return join([`{}${sub !== '' ? `_{${sub}}` : ''}${sup !== '' ? `^{${sup}}` : ''}`, base]);
}

export type FractionType = 'bar' | 'noBar' | 'skw' | 'lin';

export function fraction(num: string, den: string, type: FractionType = 'bar'): string {
  switch (type) {
    case 'noBar':
      return `\\genfrac{}{}{0pt}{}{${num}}{${den}}`;
    case 'skw':
      return `{}^{${num}}/_{${den}}`;
    case 'lin':
      return `${group(num)}/${group(den)}`;
    default:
      return `\\frac{${num}}{${den}}`;
  }
}

export function radical(base: string, degree: string): string {
  return degree === '' ? `\\sqrt{${base}}` : `\\sqrt[${degree}]{${base}}`;
}

/** The \left/\right form of a delimiter character, or undefined when TeX has none for it. */
export function delimiter(ch: string): string | undefined {
  return DELIMITERS.get(ch);
}

/**
 * Content between two delimiters, the pieces separated by `separator`: `\left(a,b\right)`. A
 * delimiter TeX cannot stretch is written as its character; a separator that is a delimiter
 * (`|`) grows with them (`\middle|`).
 */
export function fenced(open: string, close: string, pieces: readonly string[], separator: string, grow = true): string {
  const left = delimiter(open);
  const right = delimiter(close);
  const stretch = grow && left !== undefined && right !== undefined;
  const sep = separator === '' ? '' : stretch && delimiter(separator) !== undefined && separator !== '/' ? `\\middle${delimiter(separator)}` : mathText(separator);
  const inner: string[] = [];
  pieces.forEach((piece, i) => {
    if (i > 0) inner.push(sep);
    inner.push(piece);
  });
  if (stretch) return join([`\\left${left}`, ...inner, `\\right${right}`]);
  return join([mathText(open), ...inner, mathText(close)]);
}

/**
 * An n-ary operator with its limits and body. `limLoc` is where the document puts the limits:
 * `\limits`/`\nolimits` are written only where that differs from TeX's own habit for the operator
 * (sums under and over, integrals beside).
 */
export function nary(chr: string, sub: string, sup: string, body: string, limLoc?: 'undOvr' | 'subSup'): string {
  const known = NARY.get(chr);
  const command = known?.command ?? (chr === '' ? '' : `\\mathop{${mathText(chr)}}`);
  let op = command;
  const hasLimits = sub !== '' || sup !== '';
  if (known && hasLimits && limLoc === 'undOvr' && known.integral) op += '\\limits';
  else if (known && hasLimits && limLoc === 'subSup' && !known.integral) op += '\\nolimits';
  const limits = `${sub !== '' ? `_{${sub}}` : ''}${sup !== '' ? `^{${sup}}` : ''}`;
  return join([op + limits, body]);
}

export function isNaryOperator(ch: string): boolean {
  return NARY.has(ch);
}

/** An accent over `base`; an unknown accent character is set over it (\overset). */
export function accent(chr: string, base: string): string {
  const known = ACCENTS.get(chr);
  if (!known) return `\\overset{${mathText(chr)}}{${base}}`;
  const single = Array.from(base).length === 1 || /^\\[A-Za-z]+$/.test(base);
  return `${single ? known[0] : known[1]}{${base}}`;
}

/** A grouping character (brace, bracket, arrow) above or below `base`. */
export function groupingCharacter(chr: string, base: string, position: 'top' | 'bot'): string {
  const known = GROUPING.get(chr);
  if (known) return `${position === 'top' ? known.over : known.under}{${base}}`;
  return position === 'top' ? `\\overset{${mathText(chr)}}{${base}}` : `\\underset{${mathText(chr)}}{${base}}`;
}

/** True for the brace-like grouping commands, which take a label as a plain script (`\underbrace{x}_{n}`). */
export function isBraceCommand(latex: string): 'over' | 'under' | undefined {
  if (/^\\(?:overbrace|overbracket|overparen)\{/.test(latex) && isAtom(latex)) return 'over';
  if (/^\\(?:underbrace|underbracket|underparen)\{/.test(latex) && isAtom(latex)) return 'under';
  return undefined;
}

/** The LaTeX of a function name: `\sin` where TeX has it, else `\operatorname{name}` (starred when limits go under it). */
export function functionName(name: string, limitsUnder = false): string {
  const trimmed = name.trim();
  if (FUNCTIONS.has(trimmed)) return `\\${trimmed}`;
  if (/^[A-Za-z]+$/.test(trimmed)) return `\\operatorname${limitsUnder ? '*' : ''}{${trimmed}}`;
  return mathText(trimmed);
}

export function isFunctionName(name: string): boolean {
  return FUNCTIONS.has(name.trim());
}

/** A limit under (or over) a named function: `\lim_{n}`, `\sin\limits_{x}`, `\operatorname*{argmax}_{x}`. */
export function functionWithLimit(name: string, limit: string, position: 'under' | 'over'): string {
  const trimmed = name.trim();
  const script = `${position === 'under' ? '_' : '^'}{${limit}}`;
  if (LIMIT_FUNCTIONS.has(trimmed)) return `\\${trimmed}${script}`;
  if (FUNCTIONS.has(trimmed)) return `\\${trimmed}\\limits${script}`;
  return `\\operatorname*{${trimmed}}${script}`;
}

/** Rows of cells as a matrix environment (`matrix`, or `aligned`/`gathered` for equation arrays). */
export function environment(name: string, rows: readonly (readonly string[])[]): string {
  return `\\begin{${name}}${rows.map((cells) => cells.join(' & ')).join(' \\\\ ')}\\end{${name}}`;
}

/** The symbol table's entry for one character (exported for the converters' operator checks). */
export function symbol(ch: string): string | undefined {
  return SYMBOLS.get(ch);
}
