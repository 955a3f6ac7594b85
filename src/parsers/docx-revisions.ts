/**
 * Tracked changes in WordprocessingML. The final text (the default) is the document as it reads with
 * every change accepted: insertions (`w:ins`) and moved-to text (`w:moveTo`) are in, deletions
 * (`w:del`, whose runs hold `w:delText`) and moved-from text (`w:moveFrom`) are out, and so are rows
 * deleted as a whole (`w:trPr/w:del`). With revisions shown, both sides are kept and marked where
 * they are: `{+inserted+}` and `{-deleted-}` (a move is a deletion at its old place and an insertion
 * at its new one). Marks on paragraph marks and rows (`w:pPr/w:rPr/w:ins`, `w:trPr/w:del`) carry no
 * text and add nothing.
 */

/** Subtrees skipped for the final text: deleted and moved-away content, deleted field codes. */
export const REVISION_SKIPPED: readonly string[] = ['w:del', 'w:moveFrom', 'w:delText', 'w:delInstrText'];
/** Skipped with revisions shown: only deleted field codes (never text). */
export const REVISION_SKIPPED_SHOWN: readonly string[] = ['w:delInstrText'];

const OPENING: Readonly<Record<string, string>> = { 'w:ins': '{+', 'w:moveTo': '{+', 'w:del': '{-', 'w:moveFrom': '{-' };
const CLOSING: Readonly<Record<string, string>> = { '{+': '+}', '{-': '-}' };

/** Marks inserted and deleted runs in a paragraph's text parts as the walker meets them. */
export class RevisionMarks {
  /** Every open revision element, marked (with the parts it marks) or not (on a paragraph mark, a row). */
  private readonly stack: { parts: string[] | undefined; at: number; opening: string }[] = [];

  /** Whether `name` is a revision container (`w:ins`, `w:del`, `w:moveTo`, `w:moveFrom`). */
  handles(name: string): boolean {
    return Object.hasOwn(OPENING, name);
  }

  /** A revision element opens; with `parts` (the paragraph's text so far) its text is marked. */
  open(name: string, parts: string[] | undefined): void {
    const opening = OPENING[name]!;
    if (parts) parts.push(opening);
    this.stack.push({ parts, at: parts?.length ?? 0, opening });
  }

  /** The innermost revision element closes: its mark is closed, or taken back when nothing came inside. */
  close(): void {
    const top = this.stack.pop();
    if (!top?.parts) return;
    if (top.parts.length === top.at) top.parts.pop();
    else top.parts.push(CLOSING[top.opening]!);
  }
}
