import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from '../../src/parse.js';
import { ENCODED_SAMPLES, encodeSample } from '../../scripts/make-samples.js';
import { SAMPLES } from './cli.js';

/** The bundled samples: reproducible bytes, and each one parses to the format and text it was written as. */

const EXPECTED: Record<string, { format: string; phrases: string[] }> = {
  'tool-library-handbook.md': { format: 'markdown', phrases: ['## Lending rules', '| Power tools | drills, jigsaw, sander | 7 days | 20 |', '```ini'] },
  'heater-manual-zh.md': { format: 'markdown', phrases: ['# 第一章 安全注意事项', '## 第二节 使用安全', '| 显示 E1 | 温度传感器故障 | 请联系售后服务中心 |'] },
  'river-sensor-notes.html': { format: 'html', phrases: ['The logging loop', '| Below the culvert | 13.1 | 16.0 | no data |'] },
  'seed-library-catalogue.csv': { format: 'csv', phrases: ['| S003 | Coriander | 香菜 |', 'Overwinters outdoors, "the earliest beans of the year"'] },
  'faq.jsonl': { format: 'jsonl', phrases: ['We do not charge late fees', '每位会员一次最多可借五件工具。'] },
  'residents-agreement-gbk.txt': { format: 'text', phrases: ['第六条 机动车应当停放在指定车位', '严禁将电池带入楼道或室内充电！'] },
  'meeting-notes-utf16le.txt': { format: 'text', phrases: ['Present: Dana, Wei, Priya, Tomás (chair).', '维修咖啡馆定于本月最后一个星期六下午举办'] },
  'apple-tart-windows-1252.txt': { format: 'text', phrases: ['Coût : environ 6 € pour toute la tarte.', '1 œuf', 'jusqu’à obtenir', '« Une tarte se mange tiède, jamais brûlante. »'] },
};

describe('bundled samples', () => {
  test('the list above covers every file in samples/', () => {
    expect(readdirSync(SAMPLES).filter((f) => !f.startsWith('.')).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  test('the legacy-encoded samples are exactly what scripts/make-samples.ts writes', () => {
    for (const sample of ENCODED_SAMPLES) {
      const onDisk = readFileSync(join(SAMPLES, sample.file));
      expect(Buffer.compare(onDisk, Buffer.from(encodeSample(sample))), `${sample.file}: run node --import tsx scripts/make-samples.ts`).toBe(0);
    }
  });

  test.each(Object.entries(EXPECTED))('%s parses as %s with its text intact', async (file, { format, phrases }) => {
    const doc = await parse(join(SAMPLES, file));
    expect(doc.format).toBe(format);
    expect(doc.canonical).not.toContain('\uFFFD');
    for (const phrase of phrases) expect(doc.canonical).toContain(phrase);
  });
});
