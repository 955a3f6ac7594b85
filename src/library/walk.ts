import { opendir, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import picomatch from 'picomatch';

export interface WalkedFile {
  path: string;
  /** Where the bytes are when not at `path` (Library.addCopies). */
  from?: string;
  size: number;
  mtimeMs: number;
}

export interface WalkOptions {
  /** Absolute folders never entered (the library's own folder). */
  skipDirs?: string[];
  include?: string[];
  exclude?: string[];
}

/**
 * Streams the files under `roots` (files are yielded as they are; folders recursively, in name
 * order), skipping hidden entries and `skipDirs`. Nothing is collected, so memory stays flat
 * whatever the folder size. Globs match the path relative to the root it was found under
 * (or the file name for files given directly).
 */
export async function* walkFiles(roots: string[], options: WalkOptions = {}): AsyncGenerator<WalkedFile | { path: string; error: Error }> {
  const skip = new Set((options.skipDirs ?? []).map((d) => resolve(d)));
  const include = options.include?.length ? picomatch(options.include, { dot: true }) : undefined;
  const exclude = options.exclude?.length ? picomatch(options.exclude, { dot: true }) : undefined;
  const wanted = (rel: string) => (!include || include(rel)) && !(exclude && exclude(rel));

  for (const root of roots) {
    const abs = resolve(root);
    let info;
    try {
      info = await stat(abs);
    } catch (error) {
      yield { path: abs, error: error as Error };
      continue;
    }
    if (info.isFile()) {
      if (wanted(abs.split(sep).pop()!)) yield { path: abs, size: info.size, mtimeMs: info.mtimeMs };
      continue;
    }
    yield* walkDir(abs, '', skip, wanted);
  }
}

async function* walkDir(dir: string, rel: string, skip: Set<string>, wanted: (rel: string) => boolean): AsyncGenerator<WalkedFile | { path: string; error: Error }> {
  if (skip.has(dir)) return;
  let names: { name: string; dir: boolean; file: boolean }[];
  try {
    names = [];
    for await (const entry of await opendir(dir)) {
      if (entry.name.startsWith('.')) continue;
      names.push({ name: entry.name, dir: entry.isDirectory(), file: entry.isFile() });
    }
  } catch (error) {
    yield { path: dir, error: error as Error };
    return;
  }
  // One folder's names at a time (not the tree): sorted so runs are reproducible.
  names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of names) {
    const path = join(dir, entry.name);
    const relPath = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.dir) {
      yield* walkDir(path, relPath, skip, wanted);
    } else if (entry.file && wanted(relPath)) {
      try {
        const info = await stat(path);
        yield { path, size: info.size, mtimeMs: info.mtimeMs };
      } catch (error) {
        yield { path, error: error as Error };
      }
    }
  }
}
