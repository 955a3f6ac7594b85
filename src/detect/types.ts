import type { Format } from '../document/types.js';

export interface Detection {
  format: Format;
  mime: string;
  /** For text formats: the detected encoding (a TextDecoder label) and the decoded text, LF-normalised. */
  encoding?: string;
  text?: string;
  /**
   * Why this format was chosen: 'magic' (signature bytes), 'zip-entries' / 'cfb-entries' (the
   * container's entry names), 'sniff' (the decoded text's shape), 'extension', or 'forced' (options.format).
   */
  by: 'magic' | 'zip-entries' | 'cfb-entries' | 'sniff' | 'extension' | 'forced';
  /** The content is password-protected (e.g. OOXML wrapped in an encrypted CFB container): parse() throws ENCRYPTED. */
  encrypted?: boolean;
}
