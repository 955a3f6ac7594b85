/**
 * Stream names of an OLE2 / Compound File Binary container (legacy .doc/.xls/.ppt, and the wrapper
 * of password-protected OOXML). Only the directory is read: header -> FAT (through the DIFAT) ->
 * directory sector chain -> 128-byte entries whose first 64 bytes are the UTF-16LE name.
 */

export const CFB_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1] as const;

const END_OF_CHAIN = 0xfffffffe;
const FREE_SECT = 0xffffffff;
const MAX_SECTORS_WALKED = 1 << 16;

export function isCfbMagic(b: Uint8Array): boolean {
  if (b.length < 512) return false;
  for (let i = 0; i < CFB_MAGIC.length; i++) if (b[i] !== CFB_MAGIC[i]) return false;
  return true;
}

/** The names of all directory entries, or [] when the directory cannot be read. */
export function cfbEntryNames(b: Uint8Array): string[] {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const shift = view.getUint16(0x1e, true);
  if (shift !== 9 && shift !== 12) return [];
  const sectorSize = 1 << shift;
  const sectorOffset = (sector: number): number => (sector + 1) * sectorSize;
  const fat = readFat(b, view, sectorSize, sectorOffset);
  const names: string[] = [];
  const seen = new Set<number>();
  for (let sector = view.getUint32(0x30, true); sector !== END_OF_CHAIN && sector !== FREE_SECT; sector = fat[sector] ?? END_OF_CHAIN) {
    if (seen.has(sector) || seen.size > MAX_SECTORS_WALKED) break;
    seen.add(sector);
    const base = sectorOffset(sector);
    if (base + sectorSize > b.length) break;
    for (let entry = base; entry < base + sectorSize; entry += 128) {
      const nameBytes = view.getUint16(entry + 0x40, true);
      if (nameBytes < 2 || nameBytes > 64) continue;
      names.push(Buffer.from(b.buffer, b.byteOffset + entry, nameBytes - 2).toString('utf16le'));
    }
  }
  return names;
}

/** The FAT: sector -> next sector, gathered from the 109 header DIFAT slots and the DIFAT chain. */
function readFat(b: Uint8Array, view: DataView, sectorSize: number, sectorOffset: (s: number) => number): Uint32Array {
  const fatSectors: number[] = [];
  for (let i = 0; i < 109; i++) {
    const s = view.getUint32(0x4c + i * 4, true);
    if (s === FREE_SECT || s === END_OF_CHAIN) break;
    fatSectors.push(s);
  }
  const perSector = sectorSize / 4;
  let difat = view.getUint32(0x44, true);
  for (let hops = 0; difat !== END_OF_CHAIN && difat !== FREE_SECT && hops < MAX_SECTORS_WALKED; hops++) {
    const base = sectorOffset(difat);
    if (base + sectorSize > b.length) break;
    for (let i = 0; i < perSector - 1; i++) {
      const s = view.getUint32(base + i * 4, true);
      if (s !== FREE_SECT) fatSectors.push(s);
    }
    difat = view.getUint32(base + (perSector - 1) * 4, true);
  }
  const fat = new Uint32Array(fatSectors.length * perSector);
  fatSectors.forEach((s, k) => {
    const base = sectorOffset(s);
    if (base + sectorSize > b.length) return;
    for (let i = 0; i < perSector; i++) fat[k * perSector + i] = view.getUint32(base + i * 4, true);
  });
  return fat;
}
