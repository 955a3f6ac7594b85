import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

/**
 * What a process loads at start-up: the static imports of an entry module, followed through src/
 * (as TypeScript emits them: imports used only as types are gone), with the packages they reach.
 * Every module a process loads stays in its memory, so the modules a command or worker may never
 * use are imported dynamically where they are used (docs/robustness.md, "Per process, measured").
 */
const ROOT = resolve(import.meta.dirname, '..');
const STATIC = /^\s*(?:import|export)\s(?:[^'"]*?\sfrom\s*)?['"]([^'"]+)['"]/gm;

const transpiled = new Map<string, string[]>();

function runtimeImports(file: string): string[] {
  let imports = transpiled.get(file);
  if (!imports) {
    const source = readFileSync(file, 'utf8');
    const { outputText } = ts.transpileModule(source, { fileName: file, compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
    imports = [...outputText.matchAll(STATIC)].map((m) => m[1]!);
    transpiled.set(file, imports);
  }
  return imports;
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

function staticGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    for (const specifier of runtimeImports(join(ROOT, file))) {
      if (specifier.startsWith('.')) {
        const target = relative(ROOT, resolve(dirname(join(ROOT, file)), specifier.replace(/\.js$/, '.ts')));
        expect(existsSync(join(ROOT, target)), `${file} imports ${specifier}`).toBe(true);
        visit(target);
      } else if (!specifier.startsWith('node:')) {
        packages.add(packageName(specifier));
      }
    }
  };
  visit(entry);
  return { files, packages };
}

/** Packages of code only some files or commands need: parsers' dependencies, PDF and OCR, servers, models. */
const HEAVY = [
  'linkedom', '@mozilla/readability', 'saxes', 'marked', 'postal-mime', 'jschardet',
  '@embedpdf/pdfium', 'jpeg-js', 'pngjs', 'utif2', 'tesseract.js',
  'fastify', '@fastify/cors', '@fastify/multipart', '@modelcontextprotocol/sdk',
  '@huggingface/transformers', 'onnxruntime-node', 'pg', 'pg-boss', 'playwright',
];

/** The parser modules themselves (everything in src/parsers/ but the registry and what it needs). */
const PARSER_INFRA = new Set(['src/parsers/registry.ts', 'src/parsers/catalog.ts', 'src/parsers/types.ts']);

describe('start-up imports', () => {
  test('the parser registry loads no parser: each is a dynamic import of its catalog entry', () => {
    const { files, packages } = staticGraph('src/parsers/registry.ts');
    expect([...files].filter((f) => f.startsWith('src/parsers/') && !PARSER_INFRA.has(f))).toEqual([]);
    expect([...packages]).toEqual([]);
  });

  test.each([
    ['src/cli/run.ts', 'every groundwork command, before it is chosen'],
    ['src/cli/ingest-command.ts', 'groundwork ingest'],
    ['src/library/ingest-process.ts', 'every ingest worker process'],
    ['src/library/library.ts', 'the Library'],
    ['src/parse.ts', 'parse()'],
    ['src/serve/server.ts', 'groundwork serve'],
    ['src/mcp/server.ts', 'groundwork mcp'],
  ])('%s (%s) imports no parser and none of the heavy packages at start-up', (entry) => {
    const { files, packages } = staticGraph(entry);
    expect([...files].filter((f) => f.startsWith('src/parsers/') && !PARSER_INFRA.has(f) && !f.endsWith('review-options.ts'))).toEqual([]);
    const allowed = entry === 'src/serve/server.ts' ? ['fastify', '@fastify/cors', '@fastify/multipart', '@modelcontextprotocol/sdk'] : entry === 'src/mcp/server.ts' ? ['@modelcontextprotocol/sdk'] : [];
    expect([...packages].filter((p) => HEAVY.includes(p) && !allowed.includes(p))).toEqual([]);
  });
});
