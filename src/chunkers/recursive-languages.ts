/**
 * The language presets of LangChain.js `RecursiveCharacterTextSplitter.fromLanguage`
 * (`@langchain/textsplitters` 1.0.2). A preset only replaces the separator list; every other option
 * keeps its own value. The lists are checked entry by entry against the installed package in
 * test/chunkers/recursive.test.ts, duplicates included (rust lists "\nconst " twice).
 */

export const RECURSIVE_LANGUAGES = [
  'cpp',
  'go',
  'java',
  'js',
  'php',
  'proto',
  'python',
  'rst',
  'ruby',
  'rust',
  'scala',
  'swift',
  'markdown',
  'latex',
  'html',
  'sol',
] as const;

export type RecursiveLanguage = (typeof RECURSIVE_LANGUAGES)[number];

/** LangChain's general-purpose list, also the tail of every code preset. */
export const DEFAULT_SEPARATORS: readonly string[] = Object.freeze(['\n\n', '\n', ' ', '']);

/** Code presets: one "\n<keyword> " entry per keyword, most structural first, then the default list. */
const CODE_KEYWORDS: Record<string, readonly string[]> = {
  cpp: ['class', 'void', 'int', 'float', 'double', 'if', 'for', 'while', 'switch', 'case'],
  go: ['func', 'var', 'const', 'type', 'if', 'for', 'switch', 'case'],
  java: ['class', 'public', 'protected', 'private', 'static', 'if', 'for', 'while', 'switch', 'case'],
  js: ['function', 'const', 'let', 'var', 'class', 'if', 'for', 'while', 'switch', 'case', 'default'],
  php: ['function', 'class', 'if', 'foreach', 'while', 'do', 'switch', 'case'],
  proto: ['message', 'service', 'enum', 'option', 'import', 'syntax'],
  // "\tdef" is a tab-indented method definition.
  python: ['class', 'def', '\tdef'],
  ruby: ['def', 'class', 'if', 'unless', 'while', 'for', 'do', 'begin', 'rescue'],
  rust: ['fn', 'const', 'let', 'if', 'while', 'for', 'loop', 'match', 'const'],
  scala: ['class', 'object', 'def', 'val', 'var', 'if', 'for', 'while', 'match', 'case'],
  swift: ['func', 'class', 'struct', 'enum', 'if', 'for', 'while', 'do', 'switch', 'case'],
  sol: [
    'pragma',
    'using',
    'contract',
    'interface',
    'library',
    'constructor',
    'type',
    'function',
    'event',
    'modifier',
    'error',
    'struct',
    'enum',
    'if',
    'for',
    'while',
    'do while',
    'assembly',
  ],
};

/** Presets that are not keyword lists. */
const OTHER_PRESETS: Record<string, readonly string[]> = {
  rst: ['\n===\n', '\n---\n', '\n***\n', '\n.. ', ...DEFAULT_SEPARATORS],
  // No "\n# " entry, and the fence entry has no leading newline: both as in LangChain.
  markdown: [
    '\n## ',
    '\n### ',
    '\n#### ',
    '\n##### ',
    '\n###### ',
    '```\n\n',
    '\n\n***\n\n',
    '\n\n---\n\n',
    '\n\n___\n\n',
    ...DEFAULT_SEPARATORS,
  ],
  latex: [
    ...['chapter', 'section', 'subsection', 'subsubsection'].map((command) => `\n\\${command}{`),
    ...['enumerate', 'itemize', 'description', 'list', 'quote', 'quotation', 'verse', 'verbatim', 'align'].map(
      (env) => `\n\\begin{${env}}`,
    ),
    '$$',
    '$',
    ...DEFAULT_SEPARATORS,
  ],
  // Opening tags only, and no newline entries: HTML is split on tags, then spaces, then code units.
  html: [
    ...[
      'body', 'div', 'p', 'br', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'span', 'table', 'tr', 'td', 'th',
      'ul', 'ol', 'header', 'footer', 'nav', 'head', 'style', 'script', 'meta', 'title',
    ].map((tag) => `<${tag}>`),
    ' ',
    '',
  ],
};

const PRESETS: ReadonlyMap<RecursiveLanguage, readonly string[]> = new Map(
  RECURSIVE_LANGUAGES.map((language) => {
    const keywords = CODE_KEYWORDS[language];
    const list = keywords ? [...keywords.map((k) => `\n${k} `), ...DEFAULT_SEPARATORS] : OTHER_PRESETS[language]!;
    return [language, Object.freeze(list)] as const;
  }),
);

export function isRecursiveLanguage(value: unknown): value is RecursiveLanguage {
  return typeof value === 'string' && PRESETS.has(value as RecursiveLanguage);
}

/** The separator list of a preset, as `getSeparatorsForLanguage` returns it. */
export function separatorsForLanguage(language: RecursiveLanguage): readonly string[] {
  return PRESETS.get(language)!;
}
