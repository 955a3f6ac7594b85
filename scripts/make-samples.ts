/**
 * Writes the bundled samples that are not UTF-8: a GBK Chinese notice, a UTF-16LE (with BOM) bilingual
 * note and a windows-1252 French recipe. Their text lives here, so the bytes are reproducible:
 *   node --import tsx scripts/make-samples.ts          (rewrite samples/)
 *   node --import tsx scripts/make-samples.ts --check  (exit 1 if samples/ differs)
 * Node's TextEncoder only writes UTF-8, so the GBK encoder below is built by inverting Node's own
 * GBK decoder, windows-1252 from its WHATWG table, and every output is decoded again to prove the
 * round trip.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface EncodedSample {
  file: string;
  /** A WHATWG encoding label (what TextDecoder accepts). */
  encoding: 'gbk' | 'utf-16le' | 'windows-1252';
  text: string;
}

export const SAMPLES_DIR = fileURLToPath(new URL('../samples/', import.meta.url));

// Windows tools write these with CRLF line ends; the samples keep that so the parsers meet it.
const crlf = (text: string): string => text.replace(/\n/g, '\r\n');

const NOTICE_GBK = crlf(`阳光花园小区业主公约（节选）

为维护小区的公共秩序和居住环境，保障全体业主的合法权益，根据有关法律法规，经业主大会讨论通过，制定本公约。

第一章 总则

第一条 本公约适用于阳光花园小区全体业主及物业使用人。业主出租房屋的，应当将本公约告知承租人。

第二条 业主享有使用小区公共设施、监督物业服务企业工作的权利，同时应当遵守本公约，按时交纳物业服务费。

第二章 房屋使用与装修

第三条 业主装修房屋前，应当到物业服务中心办理登记手续，并交纳装修保证金二千元。装修结束并经检查未损坏公共部位的，保证金全额退还。

第四条 装修施工时间为每日上午八时至十二时、下午二时至六时；法定节假日不得进行产生噪声的施工。

第五条 禁止拆改房屋承重墙、梁、柱；禁止在阳台上搭建任何构筑物。

第三章 公共秩序

第六条 机动车应当停放在指定车位，不得占用消防通道。电动自行车一律在集中充电点充电，严禁将电池带入楼道或室内充电！

第七条 饲养宠物的业主应当为宠物办理登记，出门时牵绳，并及时清理宠物粪便。

第八条 生活垃圾应当分类投放到指定的垃圾桶内：可回收物、有害垃圾、厨余垃圾和其他垃圾。

第四章 附则

第九条 本公约自业主大会通过之日起生效。对本公约的修改，须经业主大会表决通过。

阳光花园小区业主大会
`);

const MINUTES_UTF16 = crlf(`Meeting notes / 会议纪要: Maple Street Tool Library, volunteer meeting

Present: Dana, Wei, Priya, Tomás (chair). Apologies: Olu.

1. Repair café
The first repair café will run on the last Saturday of the month. Wei has booked the community hall
from 13:00 to 17:00. We need at least two people who can solder.
维修咖啡馆定于本月最后一个星期六下午举办，地点在社区活动中心。需要至少两名会焊接的志愿者。

2. Lost tools
Three items are more than a month overdue: a hedge trimmer, a tile cutter and a set of sash clamps.
Priya will phone the members this week. No fines: we only want the tools back.
有三件工具逾期超过一个月，Priya 本周负责电话联系借用人。

3. Opening hours in summer
Proposal: open on Wednesday evenings (18:00–20:00) from June to August. Agreed, if four volunteers
sign up for the rota by the end of May.
夏季（六月至八月）周三晚上增加开放时间，前提是五月底前有四名志愿者报名值班。

Next meeting: first Thursday of next month, 19:30, in the back room.
`);

const RECIPE_1252 = crlf(`Tarte aux pommes de grand-mère

Pour 6 personnes. Préparation : 30 minutes. Cuisson : 40 minutes. Coût : environ 6 € pour toute la tarte.

Ingrédients
- 250 g de farine, 125 g de beurre demi-sel bien froid, 1 œuf, 1 pincée de sel
- 5 pommes « reinette » ou « boskoop », un peu acides de préférence
- 60 g de sucre, 1 sachet de sucre vanillé, 2 cuillerées de compote (facultatif)

Préparation de la pâte
Mélanger la farine et le sel, puis ajouter le beurre coupé en dés. Sabler du bout des doigts jusqu’à obtenir une texture de sable grossier. Ajouter l’œuf et, si nécessaire, une ou deux cuillerées d’eau froide. Former une boule sans trop la travailler ; la laisser reposer 30 minutes au réfrigérateur.

Montage et cuisson
Préchauffer le four à 200 °C. Étaler la pâte, en garnir un moule beurré et piquer le fond à la fourchette. Étaler la compote, puis disposer les pommes coupées en fines lamelles, en rosace. Saupoudrer de sucre et de sucre vanillé.
Enfourner pour 40 minutes : les bords des pommes doivent être dorés, presque caramélisés.

Le conseil de grand-mère
« Une tarte se mange tiède, jamais brûlante. » Servie avec une crème fraîche épaisse, c’est encore meilleur.
`);

export const ENCODED_SAMPLES: readonly EncodedSample[] = [
  { file: 'residents-agreement-gbk.txt', encoding: 'gbk', text: NOTICE_GBK },
  { file: 'meeting-notes-utf16le.txt', encoding: 'utf-16le', text: MINUTES_UTF16 },
  { file: 'apple-tart-windows-1252.txt', encoding: 'windows-1252', text: RECIPE_1252 },
];

let gbkTable: Map<string, number> | undefined;
let cp1252Table: Map<string, number> | undefined;

/** Character -> two-byte GBK code, from every lead/trail pair Node's decoder knows. */
function gbkEncodings(): Map<string, number> {
  if (gbkTable) return gbkTable;
  const decoder = new TextDecoder('gbk', { fatal: true });
  const table = new Map<string, number>();
  const pair = new Uint8Array(2);
  for (let lead = 0x81; lead <= 0xfe; lead++) {
    for (let trail = 0x40; trail <= 0xfe; trail++) {
      if (trail === 0x7f) continue;
      pair[0] = lead;
      pair[1] = trail;
      let ch: string;
      try {
        ch = decoder.decode(pair);
      } catch {
        continue;
      }
      if (ch.length === 1 && !table.has(ch)) table.set(ch, (lead << 8) | trail);
    }
  }
  return (gbkTable = table);
}

/**
 * windows-1252 bytes 0x80-0x9F (WHATWG index-windows-1252); every other byte is its own code point.
 * Written out because Node 20's TextDecoder('windows-1252') decodes these bytes as Latin-1 controls.
 */
const CP1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

function cp1252Char(byte: number): string {
  return String.fromCharCode(byte >= 0x80 && byte <= 0x9f ? CP1252_HIGH[byte - 0x80]! : byte);
}

function cp1252Encodings(): Map<string, number> {
  if (cp1252Table) return cp1252Table;
  const table = new Map<string, number>();
  for (let byte = 0; byte <= 0xff; byte++) table.set(cp1252Char(byte), byte);
  return (cp1252Table = table);
}

/** Decodes with the WHATWG tables (windows-1252 by hand, see CP1252_HIGH). */
export function decodeSample(bytes: Uint8Array, encoding: EncodedSample['encoding']): string {
  if (encoding !== 'windows-1252') return new TextDecoder(encoding).decode(bytes);
  let text = '';
  for (const byte of bytes) text += cp1252Char(byte);
  return text;
}

function unencodable(ch: string, encoding: string): never {
  throw new Error(`'${ch}' (U+${ch.codePointAt(0)!.toString(16).toUpperCase()}) has no ${encoding} encoding`);
}

export function encodeSample(sample: EncodedSample): Uint8Array {
  const out: number[] = [];
  if (sample.encoding === 'utf-16le') {
    out.push(0xff, 0xfe);
    for (let i = 0; i < sample.text.length; i++) {
      const unit = sample.text.charCodeAt(i);
      out.push(unit & 0xff, unit >> 8);
    }
  } else if (sample.encoding === 'gbk') {
    const table = gbkEncodings();
    for (const ch of sample.text) {
      const code = ch.charCodeAt(0);
      if (code < 0x80) out.push(code);
      else {
        const pair = table.get(ch) ?? unencodable(ch, 'GBK');
        out.push(pair >> 8, pair & 0xff);
      }
    }
  } else {
    const table = cp1252Encodings();
    for (const ch of sample.text) out.push(table.get(ch) ?? unencodable(ch, 'windows-1252'));
  }
  const bytes = Uint8Array.from(out);
  // The BOM is not part of the text: TextDecoder strips it by default.
  const decoded = decodeSample(bytes, sample.encoding);
  if (decoded !== sample.text) throw new Error(`${sample.file}: ${sample.encoding} round trip failed`);
  return bytes;
}

function main(argv: readonly string[]): number {
  const check = argv.includes('--check');
  let stale = 0;
  for (const sample of ENCODED_SAMPLES) {
    const path = `${SAMPLES_DIR}${sample.file}`;
    const bytes = encodeSample(sample);
    if (check) {
      let current: Uint8Array | undefined;
      try {
        current = readFileSync(path);
      } catch {
        current = undefined;
      }
      const same = current !== undefined && Buffer.compare(Buffer.from(current), Buffer.from(bytes)) === 0;
      if (!same) stale++;
      console.log(`${same ? 'ok   ' : 'STALE'} samples/${sample.file}`);
    } else {
      writeFileSync(path, bytes);
      console.log(`wrote samples/${sample.file} (${sample.encoding}, ${bytes.length} bytes)`);
    }
  }
  return stale > 0 ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = main(process.argv.slice(2));
