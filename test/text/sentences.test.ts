import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { isGraphemeBoundary } from '../../src/text/graphemes.js';
import { splitSentences } from '../../src/text/sentences.js';
import { corpus, hasShared, sharedSkipReason } from '../helpers.js';

/** The sentences of `text`, as strings. */
function sentences(text: string): string[] {
  return splitSentences(text).map((s) => text.slice(s.start, s.end));
}

/** Spans cover [from, to) exactly, in order, none empty. */
function expectCoverage(text: string, from = 0, to = text.length): void {
  const spans = splitSentences(text, from, to);
  if (from >= to) {
    expect(spans).toEqual([]);
    return;
  }
  expect(spans[0]!.start).toBe(from);
  expect(spans[spans.length - 1]!.end).toBe(to);
  for (let i = 0; i < spans.length; i++) {
    expect(spans[i]!.end).toBeGreaterThan(spans[i]!.start);
    if (i > 0) expect(spans[i]!.start).toBe(spans[i - 1]!.end);
  }
}

describe('English', () => {
  test.each([
    ['Mr. Smith went to Washington. He arrived at 5 p.m. and left.', ['Mr. Smith went to Washington. ', 'He arrived at 5 p.m. and left.']],
    ['Mrs. Jones and Dr. Brown met Prof. Green on St. Mark street. They talked.', ['Mrs. Jones and Dr. Brown met Prof. Green on St. Mark street. ', 'They talked.']],
    ['Fruit, e.g. Apples, and i.e. Pears are fine. Next one.', ['Fruit, e.g. Apples, and i.e. Pears are fine. ', 'Next one.']],
    ['The U.S. Army and the U.K. Navy met. Then they parted.', ['The U.S. Army and the U.K. Navy met. ', 'Then they parted.']],
    ['It is Apple vs. Microsoft. Who wins?', ['It is Apple vs. Microsoft. ', 'Who wins?']],
    ['Bring pens, paper, etc. We start at 9 a.m. Tomorrow.', ['Bring pens, paper, etc. We start at 9 a.m. Tomorrow.']],
    ['Pi is 3.14 today. Version 1.2.3 ships soon.', ['Pi is 3.14 today. ', 'Version 1.2.3 ships soon.']],
    ['See Fig. 3 and No. 5 Main Street. Done.', ['See Fig. 3 and No. 5 Main Street. ', 'Done.']],
    ['John F. Kennedy spoke. The crowd cheered.', ['John F. Kennedy spoke. ', 'The crowd cheered.']],
    ['Wait... what? I was... thinking. Yes!', ['Wait... what? ', 'I was... thinking. ', 'Yes!']],
    ['He paused… then went on. Fine.', ['He paused… then went on. ', 'Fine.']],
    ['Visit www.Example.com/Path today. Mail john.Doe@example.com. Next.', ['Visit www.Example.com/Path today. ', 'Mail john.Doe@example.com. ', 'Next.']],
    ['He said "Stop." Then he ran.', ['He said "Stop." ', 'Then he ran.']],
    ['(This is inside.) And this is not.', ['(This is inside.) ', 'And this is not.']],
    ['It was the best.[11] It was the worst.[12]', ['It was the best.[11] ', 'It was the worst.[12]']],
  ])('%s', (text, expected) => {
    expect(sentences(text)).toEqual(expected);
  });

  test('a numbered-list marker at a line start does not end a sentence', () => {
    expect(sentences('Steps:\n1. Open the box.\n2. Take it out.\n10. Done')).toEqual(['Steps:\n', '1. Open the box.\n', '2. Take it out.\n', '10. Done']);
    // Not at a line start, "1." is a sentence end like any other.
    expect(sentences('He came in at rank 1. Then he left.')).toEqual(['He came in at rank 1. ', 'Then he left.']);
  });

  test('blank lines and line breaks end sentences; a lower-case continuation line is a soft wrap', () => {
    expect(sentences('First paragraph has no period\n\nSecond one\nThird line')).toEqual(['First paragraph has no period\n\n', 'Second one\n', 'Third line']);
    expect(sentences('This sentence is wrapped\nacross two lines. Next.')).toEqual(['This sentence is wrapped\nacross two lines. ', 'Next.']);
    expect(sentences('CRLF line one\r\nCRLF line two\r\n')).toEqual(['CRLF line one\r\n', 'CRLF line two\r\n']);
  });

  test('whitespace after a sentence belongs to it; leading whitespace to the first', () => {
    expect(sentences('  \n\nHello world.  \n\n  Next para.\n')).toEqual(['  \n\nHello world.  \n\n  ', 'Next para.\n']);
  });
});

describe('Chinese and Japanese', () => {
  test.each([
    ['你好。我很好！你呢？', ['你好。', '我很好！', '你呢？']],
    ['道者，令民与上同意也；天者，阴阳也；地者，远近也。', ['道者，令民与上同意也；', '天者，阴阳也；', '地者，远近也。']],
    ['他说：“你好。”然后走了。', ['他说：“你好。”', '然后走了。']],
    ['他说：“你好。”“我很好。”她笑了。', ['他说：“你好。”', '“我很好。”', '她笑了。']],
    ['《三国演义》很好看！【注】见上文。', ['《三国演义》很好看！', '【注】见上文。']],
    ['我想了想……决定留下。', ['我想了想……', '决定留下。']],
    ['他沉默了⋯⋯”她说。', ['他沉默了⋯⋯”', '她说。']],
    ['结束了……。新的开始。', ['结束了……。', '新的开始。']],
    ['价格是3.5元。数量（约）10个！好', ['价格是3.5元。', '数量（约）10个！', '好']],
    ['今日は晴れです。明日は雨でしょう。', ['今日は晴れです。', '明日は雨でしょう。']],
    ['「こんにちは。」次の文です。', ['「こんにちは。」', '次の文です。']],
    ['ＡＩ很强！！真的吗？？是的．', ['ＡＩ很强！！', '真的吗？？', '是的．']],
  ])('%s', (text, expected) => {
    expect(sentences(text)).toEqual(expected);
  });

  test('mixed Chinese and English', () => {
    expect(sentences('我们使用 Node.js 开发。It works well. 效果很好！')).toEqual(['我们使用 Node.js 开发。', 'It works well. ', '效果很好！']);
    expect(sentences('Dr. 王说：“GPT-4 很强。”Mr. Li agreed.')).toEqual(['Dr. 王说：“GPT-4 很强。”', 'Mr. Li agreed.']);
  });

  test('hard-wrapped Chinese/Japanese lines are joined; indented lines start paragraphs', () => {
    expect(sentences('一人の下人が、羅生門の下で雨やみを待っ\nていた。次だ。')).toEqual(['一人の下人が、羅生門の下で雨やみを待っ\nていた。', '次だ。']);
    expect(sentences('第一行没有句号\n　第二段开始。')).toEqual(['第一行没有句号\n　', '第二段开始。']);
  });
});

describe('long runs', () => {
  test('a paragraph far longer than one segmenter window is split exactly as its sentences', () => {
    const sentence = 'The quick brown fox jumps over the lazy dog near the U.S. border at 5 p.m. on a Tuesday. ';
    const text = sentence.repeat(200).trimEnd();
    const parts = sentences(text);
    expect(parts).toHaveLength(200);
    for (const part of parts) expect(part.trimEnd()).toBe(sentence.trimEnd());
  });

  test('a run with no sentence end longer than a window stays one sentence', () => {
    const text = 'word '.repeat(2000) + 'end.';
    expect(sentences(text)).toEqual([text]);
    const chinese = '汉字'.repeat(3000);
    expect(sentences(chinese)).toEqual([chinese]);
  });

  test('windows never cut a surrogate pair', () => {
    const text = `${'😀'.repeat(1500)}。${'😀'.repeat(1500)}。`;
    for (const s of splitSentences(text)) expect(isGraphemeBoundary(text, s.start)).toBe(true);
    expect(sentences(text)).toEqual([`${'😀'.repeat(1500)}。`, `${'😀'.repeat(1500)}。`]);
  });
});

describe('ranges and edge cases', () => {
  test('from/to: offsets are absolute and cover the range', () => {
    const text = 'Skip this. Take this one. And this! Not this.';
    const from = text.indexOf('Take');
    const to = text.indexOf('Not');
    const spans = splitSentences(text, from, to);
    expect(spans.map((s) => text.slice(s.start, s.end))).toEqual(['Take this one. ', 'And this! ']);
    expectCoverage(text, from, to);
  });

  test('empty and whitespace-only ranges', () => {
    expect(splitSentences('')).toEqual([]);
    expect(splitSentences('abc', 2, 2)).toEqual([]);
    expect(splitSentences('  \n\t ')).toEqual([{ start: 0, end: 5 }]);
  });

  const fragments = [
    'Hello', ' ', 'world', '.', '. ', '! ', '? ', '\n', '\n\n', 'Mr. ', 'e.g. ', 'U.S. ', '3.14', '1. ', 'x',
    '你好', '。', '！', '？', '；', '……', '”', '“', '」', '「', '（', '）', '😀', '👨‍👩‍👧', 'e\u0301', '🇫🇷', '\r\n', '…', '[1]', 'www.A.com',
  ];
  test('property: spans cover any text exactly, start on grapheme boundaries, and later spans start at non-whitespace', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...fragments), { maxLength: 60 }), fc.nat(), fc.nat(), (parts, x, y) => {
        const text = parts.join('');
        expectCoverage(text);
        const spans = splitSentences(text);
        for (let i = 1; i < spans.length; i++) {
          expect(/\s/.test(text[spans[i]!.start]!)).toBe(false);
          expect(isGraphemeBoundary(text, spans[i]!.start)).toBe(true);
        }
        const from = text.length ? x % text.length : 0;
        const to = from + (text.length - from ? y % (text.length - from + 1) : 0);
        expectCoverage(text, from, to);
      }),
      { numRuns: 500, seed: 7 },
    );
  });
});

describe.skipIf(!hasShared)('corpus paragraphs', () => {
  if (!hasShared) console.warn(sharedSkipReason);
  const read = (path: string) => readFileSync(corpus(path), 'utf8');

  test('Sun Tzu (Chinese): every sentence ends with Chinese end punctuation or at a paragraph end', () => {
    const text = read('txt/sunzi-bingfa-simplified-gbk.txt.expected.txt');
    expectCoverage(text);
    const body = text.slice(text.indexOf('始计第一'));
    const parts = sentences(body);
    expect(parts.length).toBeGreaterThan(300);
    for (const part of parts) {
      const trimmed = part.trimEnd();
      const endsParagraph = part.endsWith('\n') || part === parts[parts.length - 1];
      if (!endsParagraph) expect(trimmed).toMatch(/[。！？；…][”’」』）]*$/u);
    }
    expect(parts).toContain('孙子曰：兵者，国之大事，死生之地，存亡之道，不可不察也。\n\n');
  });

  test('Rashomon (Japanese, hard-wrapped): sentences end with 。 and keep their wrapped lines', () => {
    const text = read('txt/rashomon-shift-jis.txt.expected.txt');
    expectCoverage(text);
    const parts = sentences(text);
    expect(parts).toContain('ただ、所々丹塗の剥げた、大きな円柱に、きりぎ\nりすが一匹とまっている。');
    const inBody = parts.filter((p) => p.includes('、'));
    const ended = inBody.filter((p) => /[。」]\s*$/u.test(p));
    expect(ended.length / inBody.length).toBeGreaterThan(0.9);
  });

  test('Wikipedia-style Markdown (English): abbreviations and citations stay inside sentences', () => {
    const text = read('md/wiki.md');
    expectCoverage(text);
    const parts = sentences(text);
    expect(parts.some((p) => p.includes('U.S. and 70 percent of computers worldwide.[11]'))).toBe(true);
    for (const part of parts) expect(part.trimEnd()).not.toMatch(/\b(?:U\.S|Mr|Dr|e\.g)\.$/);
  });

  test('every text file of the corpus round-trips', () => {
    for (const path of ['txt/chatgpt-prompt-guide_zh.txt', 'txt/candide-windows-1252.txt.expected.txt', 'txt/UDHR_first_article_all.txt', 'txt/unsu-joh-eun-nal-euc-kr.txt.expected.txt', 'txt/sunzi-bingfa-traditional-big5.txt.expected.txt']) {
      expectCoverage(read(path));
    }
  });
});
