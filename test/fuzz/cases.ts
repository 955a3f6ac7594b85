/**
 * The fuzz schedule: case `index` of a run seeded `seed` is a pure function of those two numbers
 * (and the seed files), so a reproducer is (seed, index) as well as its bytes. Targets take turns
 * (every parser format, every chunker), so a short run still covers all of them; what is done to
 * the input is drawn from the case's own PRNG.
 */
import { byteMutation, isZip, mutatePdfStream, mutateZipEntry, noise, splice, truncate, wrongMagic, type Mutation } from './mutate.js';
import { mixSeed, Prng } from './prng.js';
import { behindMagic, loadSeeds, MAGIC, magicsFor, SERVICE_FORMATS, seedsByFormat, type Seed } from './seeds.js';
import { sampleText } from './strings.js';
import type { FuzzTask } from './target.js';
import { STRATEGIES } from '../chunkers/invariants.js';

/** Chunker targets: the invariant specs plus qwen. */
export const CHUNKER_SPECS = [...Object.keys(STRATEGIES), 'qwen'];

export interface Target {
  /** `parse:docx`, `chunk:sentence`... */
  id: string;
  kind: 'parse' | 'chunk';
  /** Format (parse) or strategy spec (chunk). */
  name: string;
}

export interface Case {
  index: number;
  target: string;
  task: FuzzTask;
  /** Where the input came from and what was done to it. */
  origin: string;
  steps: string[];
}

export interface ScheduleOptions {
  seed: number;
  /** Only these targets: `docx`, `parse:docx`, `chunk:token`, `parse` (all parsers), `chunk` (all chunkers). */
  only?: readonly string[];
  /** Seeds larger than this are left out (a format keeps its smallest seed). */
  maxSeedBytes?: number;
  /** Longest chunker text, in UTF-16 units. */
  maxChars: number;
  /** OCR mode of parse inputs ('off' keeps a short run short: images are then decoded, not read). */
  ocr: 'auto' | 'off';
}

const STRATEGY_NAMES = ['structure', 'sentence', 'token', 'recursive', 'chisel', 'qwen'];
const TOKEN_SIZES = [1, 2, 4, 8, 16, 32, 48, 128, 512];
const CHAR_SIZES = [1, 3, 10, 40, 60, 200, 1000];

export class Schedule {
  readonly targets: Target[];
  private readonly seeds: Map<string, Seed[]>;
  private readonly all: Seed[];

  constructor(readonly options: ScheduleOptions) {
    const bySize = (list: Seed[]) => {
      if (options.maxSeedBytes === undefined) return list;
      const small = list.filter((s) => s.bytes.length <= options.maxSeedBytes!);
      return small.length ? small : [list.reduce((a, b) => (a.bytes.length <= b.bytes.length ? a : b))];
    };
    this.seeds = new Map([...seedsByFormat()].filter(([format]) => !SERVICE_FORMATS.has(format)).map(([format, list]) => [format, bySize(list)]));
    this.all = [...this.seeds.values()].flat();
    const targets: Target[] = [
      ...[...this.seeds.keys()].map((name) => ({ id: `parse:${name}`, kind: 'parse' as const, name })),
      ...CHUNKER_SPECS.map((name) => ({ id: `chunk:${name.replace(/ /g, '-')}`, kind: 'chunk' as const, name })),
    ];
    const only = options.only;
    this.targets = only?.length ? targets.filter((t) => only.some((o) => o === t.id || o === t.name || o === t.id.slice(t.kind.length + 1) || o === t.kind)) : targets;
    if (this.targets.length === 0) {
      throw new Error(`no fuzz target matches ${only!.join(', ')}; targets: ${targets.map((t) => t.id).join(', ')}`);
    }
  }

  seedCount(format: string): number {
    return this.seeds.get(format)?.length ?? 0;
  }

  case(index: number): Case {
    const target = this.targets[index % this.targets.length]!;
    const rng = Prng.forCase(this.options.seed, index);
    if (target.kind === 'chunk') {
      const spec = target.name;
      const unit = spec === 'chisel' || spec === 'recursive chars' ? CHAR_SIZES : TOKEN_SIZES;
      const size = spec === 'qwen' ? rng.pick([1, 8, 40, 500]) : rng.pick(unit);
      const text = sampleText(mixSeed(this.options.seed, index, 0x7e47), this.options.maxChars);
      return { index, target: target.id, task: { kind: 'chunk', text, spec, size }, origin: 'generated text (fast-check)', steps: [`${text.length} chars, size ${size}`] };
    }
    const format = target.name;
    const seed = rng.pick(this.seeds.get(format)!);
    const { bytes, steps } = this.mutate(seed, format, rng);
    const name = rng.chance(0.9) ? seed.name : rng.pick(['input.bin', 'input', `input.${rng.pick(['txt', 'pdf', 'docx', 'html', 'json', 'zip', 'md'])}`]);
    return {
      index,
      target: target.id,
      task: { kind: 'parse', name, bytes, strategy: rng.pick(STRATEGY_NAMES), ocr: this.options.ocr },
      origin: seed.origin,
      steps: name === seed.name ? steps : [...steps, `named ${name}`],
    };
  }

  private mutate(seed: Seed, format: string, rng: Prng): Mutation {
    const kind = rng.weighted<string>([
      ['bytes', 4],
      ['truncate', 2],
      ['splice', 1.5],
      ['wrong-magic', 0.75],
      ['noise', 1.5],
      ['inner', isZip(seed.bytes) || format === 'pdf' ? 3 : 0],
      ['stack', 1],
    ]);
    const once = (input: Uint8Array, what: string): Mutation => {
      switch (what) {
        case 'truncate':
          return truncate(input, rng.range(1, 15));
        case 'splice': {
          const same = this.seeds.get(format)!;
          const donor = rng.chance(0.6) ? rng.pick(same) : rng.pick(this.all);
          return splice(input, donor.bytes, rng, donor.origin);
        }
        case 'wrong-magic': {
          const magic = rng.pick(Object.keys(MAGIC).filter((m) => !magicsFor(format).includes(m)));
          return wrongMagic(input, MAGIC[magic]!, magic, rng);
        }
        case 'noise': {
          const magics = magicsFor(format);
          if (magics.length === 0) return byteMutation(input, rng);
          const magic = rng.pick(magics);
          const payload = noise(rng);
          return { bytes: behindMagic(magic, payload), steps: [`${magic} signature + ${payload.length} byte(s) of noise`] };
        }
        case 'inner': {
          const m = isZip(input) ? mutateZipEntry(input, rng) : mutatePdfStream(input, rng);
          return m ?? byteMutation(input, rng);
        }
        default:
          return byteMutation(input, rng);
      }
    };
    if (kind !== 'stack') return once(seed.bytes, kind);
    const first = once(seed.bytes, rng.pick(['inner', 'splice', 'bytes']));
    const second = once(first.bytes, rng.pick(['bytes', 'truncate', 'bytes']));
    return { bytes: second.bytes, steps: [...first.steps, ...second.steps] };
  }
}

export { loadSeeds };
