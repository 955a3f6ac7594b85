import { z } from 'zod';
import { invalidOption } from '../errors.js';

/**
 * What parsers do with a document's review layer: comments (DOCX comments, XLSX notes and threaded
 * comments, PPTX comments, ODF annotations) and tracked changes (DOCX `w:ins`/`w:del`/moves, ODF
 * `text:tracked-changes`). Defined once here: `ParseOptions` takes its types from this schema,
 * `parse()` validates with it, and the CLI derives its `--comments`/`--revisions` flags, their
 * checks and their help from it.
 */

export const reviewOptionsSchema = z.object({
  comments: z
    .enum(['include', 'exclude'])
    .default('include')
    .describe('review comments (DOCX, XLSX, PPTX, ODF) after what they annotate, or left out'),
  revisions: z
    .enum(['final', 'show'])
    .default('final')
    .describe('tracked changes: the final text, or both sides marked {+inserted+} {-deleted-}'),
});

export type ReviewOptions = z.infer<typeof reviewOptionsSchema>;
export type CommentsMode = ReviewOptions['comments'];
export type RevisionsMode = ReviewOptions['revisions'];

/** The review fields of parse options, validated, with defaults filled in; INVALID_OPTIONS when a value is not allowed. */
export function resolveReviewOptions(options: { comments?: unknown; revisions?: unknown }): ReviewOptions {
  const result = reviewOptionsSchema.safeParse({ comments: options.comments, revisions: options.revisions });
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const name = String(issue.path[0] ?? 'options');
  return invalidOption(`${name} must be ${reviewFlagChoices(name as keyof ReviewOptions).join(' or ')}, got ${JSON.stringify((options as Record<string, unknown>)[name])}`);
}

/** The allowed values of one review option, in the schema's order. */
export function reviewFlagChoices(name: keyof ReviewOptions): string[] {
  return [...reviewOptionsSchema.shape[name].unwrap().options];
}

/** Help for the review flags: `  --comments include|exclude`, then what it does and its default, indented. */
export function reviewFlagsHelp(indent = 24): string {
  return (Object.keys(reviewOptionsSchema.shape) as (keyof ReviewOptions)[])
    .map((name) => {
      const field = reviewOptionsSchema.shape[name];
      const flag = `  --${name} ${reviewFlagChoices(name).join('|')}`;
      return `${flag}\n${' '.repeat(indent)}${field.description ?? ''} (default: ${String(field.def.defaultValue)})`;
    })
    .join('\n');
}
