import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { GroundworkError } from '../errors.js';

/**
 * An evaluation set in the layout of ../shared/eval (README there): `corpus/<doc>` files and
 * `questions.jsonl` records whose spans are UTF-16 offsets into the raw file text.
 */

export interface EvalDocument {
  /** File name in `corpus/`, as questions name it. */
  name: string;
  /** The file read as UTF-8 with no newline translation: offsets refer to this string. */
  text: string;
}

export interface EvalQuestion {
  id: string;
  question: string;
  doc: string;
  answer: string;
  spans: [number, number][];
}

export interface EvalDataset {
  name: string;
  dir: string;
  documents: EvalDocument[];
  questions: EvalQuestion[];
}

/** A folder is a dataset when it holds `questions.jsonl` and a `corpus/` folder. */
export function isDatasetDir(dir: string): boolean {
  return existsSync(join(dir, 'questions.jsonl')) && existsSync(join(dir, 'corpus')) && statSync(join(dir, 'corpus')).isDirectory();
}

export function loadDataset(dir: string): EvalDataset {
  const root = resolve(dir);
  if (!isDatasetDir(root)) {
    throw new GroundworkError('IO', 'not an evaluation dataset: expected questions.jsonl and a corpus/ folder', { file: root });
  }
  const corpusDir = join(root, 'corpus');
  const documents = readdirSync(corpusDir)
    .filter((name) => !name.startsWith('.') && statSync(join(corpusDir, name)).isFile())
    .sort()
    .map((name) => ({ name, text: readFileSync(join(corpusDir, name), 'utf8') }));
  const names = new Map(documents.map((d) => [d.name, d]));
  const questions = parseQuestions(readFileSync(join(root, 'questions.jsonl'), 'utf8'), join(root, 'questions.jsonl'));
  for (const q of questions) {
    const doc = names.get(q.doc);
    if (!doc) throw new GroundworkError('CORRUPT', `question ${q.id} names a document that is not in corpus/: ${q.doc}`, { file: root });
    for (const [s, e] of q.spans) {
      if (!(Number.isInteger(s) && Number.isInteger(e) && 0 <= s && s < e && e <= doc.text.length)) {
        throw new GroundworkError('CORRUPT', `question ${q.id}: span [${s}, ${e}] is outside ${q.doc}`, { file: root });
      }
    }
  }
  return { name: basename(root), dir: root, documents, questions };
}

function parseQuestions(text: string, file: string): EvalQuestion[] {
  const out: EvalQuestion[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch (cause) {
      throw new GroundworkError('CORRUPT', `line ${i + 1} is not JSON`, { file, cause });
    }
    const spans = record.spans;
    if (typeof record.id !== 'string' || typeof record.question !== 'string' || typeof record.doc !== 'string' || !Array.isArray(spans) || spans.length === 0) {
      throw new GroundworkError('CORRUPT', `line ${i + 1}: a question needs id, question, doc and spans`, { file });
    }
    out.push({
      id: record.id,
      question: record.question,
      doc: record.doc,
      answer: typeof record.answer === 'string' ? record.answer : '',
      spans: (spans as unknown[]).map((span) => {
        if (!Array.isArray(span) || span.length !== 2) throw new GroundworkError('CORRUPT', `line ${i + 1}: a span is [start, end]`, { file });
        return [Number(span[0]), Number(span[1])] as [number, number];
      }),
    });
  }
  return out;
}

/**
 * `limit` questions chosen by the seed (smallest sha256(seed:id)), kept in file order: the same
 * seed and limit always pick the same questions, in any language that has sha256.
 */
export function sampleQuestions(questions: readonly EvalQuestion[], limit: number | undefined, seed: string): EvalQuestion[] {
  if (limit === undefined || limit >= questions.length) return [...questions];
  const keyed = questions.map((q, index) => ({ index, key: createHash('sha256').update(`${seed}:${q.id}`).digest('hex') }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.index - b.index));
  const chosen = keyed.slice(0, limit).map((k) => k.index).sort((a, b) => a - b);
  return chosen.map((i) => questions[i]!);
}
