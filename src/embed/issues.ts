import type { z } from 'zod';
import { GroundworkError } from '../errors.js';

/** zod issues as one sentence: `url: must be an http:// or https:// URL; batchSize: too small...`. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], nameOf: (path: readonly PropertyKey[]) => string = (p) => p.map(String).join('.')): string {
  return issues
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') return `unknown setting(s) ${issue.keys.map((k) => nameOf([...issue.path, k])).join(', ')}`;
      const name = nameOf(issue.path);
      return `${name === '' ? '' : `${name}: `}${issue.message}`;
    })
    .join('; ');
}

/** Parses `value` with `schema`, or throws INVALID_OPTIONS starting with `what`. */
export function parseSettings<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new GroundworkError('INVALID_OPTIONS', `${what}: ${describeIssues(result.error.issues)}`);
  return result.data;
}
