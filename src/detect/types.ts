import type { Format } from '../document/types.js';

export interface Detection {
  format: Format;
  mime: string;
  /** For text formats: the detected encoding (a TextDecoder label) and the decoded text. */
  encoding?: string;
  text?: string;
  /** Why this format was chosen: 'magic', 'zip-entries', 'sniff', 'extension'. */
  by: 'magic' | 'zip-entries' | 'sniff' | 'extension' | 'forced';
}
