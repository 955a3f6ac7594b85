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
  private readonly open_: { name: string; parts: string[]; at: number }[] = [];

  /** Whether `name` is a revision container (`w:ins`, `w:del`, `w:moveTo`, `w:moveFrom`). */
  handles(name: string): boolean {
    return Object.hasOwn(OPENING, name);
  }

  /** Starts a marked stretch in `parts` (the paragraph's text so far). */
  open(name: string, parts: string[]): void {
    parts.push(OPENING[name]!);
    this.open_.push({ name, parts, at: parts.length });
  }

  /** Ends the innermost marked stretch if it is this element's; an empty one leaves no mark. False when it was not marked. */
  close(name: string): boolean {
    const top = this.open_[this.open_.length - 1];
    if (!top || top.name !== name) return false;
    this.open_.pop();
    if (top.parts.length === top.at) top.parts.pop();
    else top.parts.push(CLOSING[OPENING[name]!]!);
    return true;
  }
}
