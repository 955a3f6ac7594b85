import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A small mixed folder written for the tests (English and Chinese, several text formats). */
export function makeFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-lib-'));
  mkdirSync(join(dir, 'notes'));
  mkdirSync(join(dir, '.hidden'));
  writeFileSync(
    join(dir, 'guide.md'),
    '# Installation guide\n\n## Prerequisites\n\nYou need Node.js 20 and a C compiler for better-sqlite3.\n\n' +
      '## Steps\n\n1. Clone the repository.\n2. Run npm ci.\n3. Run the tests.\n\n| tool | version |\n| --- | --- |\n| node | 20 |\n| npm | 11 |\n',
  );
  writeFileSync(
    join(dir, 'manual-zh.md'),
    '# 合同总则\n\n## 第三章 履约\n\n### 3.2 前提条件\n\n履约须满足三个前提条件：双方签字、预付款到账、设备验收合格。\n\n### 3.3 违约责任\n\n任何一方违约，应当赔偿对方的全部损失。\n',
  );
  writeFileSync(join(dir, 'notes', 'meeting.txt'), 'Meeting notes.\n\nThe budget for the quarterly review was approved by the board.\n\nNext meeting: Monday.\n');
  writeFileSync(join(dir, 'notes', 'copy-of-meeting.txt'), 'Meeting notes.\n\nThe budget for the quarterly review was approved by the board.\n\nNext meeting: Monday.\n');
  writeFileSync(join(dir, 'data.csv'), 'city,population\nShanghai,24870895\nBeijing,21893095\n');
  writeFileSync(join(dir, 'empty.txt'), '');
  writeFileSync(join(dir, '.hidden', 'secret.txt'), 'must not be ingested');
  return dir;
}
