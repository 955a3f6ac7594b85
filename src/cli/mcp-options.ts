import { McpServerOptionsSchema, type McpServerOptionsInput } from '../mcp/context.js';
import { integerValue, stringValue, stringValues, UsageError, type OptionSpecs, type ParsedArgs } from './args.js';

/** The MCP server's flags, for `groundwork mcp` and for `/mcp` under `groundwork serve`. */
export const MCP_FLAG_SPECS = {
  describe: { type: 'string' },
  'allow-ingest': { type: 'string', multiple: true },
  'max-upload-bytes': { type: 'string' },
} as const satisfies OptionSpecs;

const option = (name: keyof typeof McpServerOptionsSchema.shape) => McpServerOptionsSchema.shape[name].description ?? '';

export const MCP_FLAGS_HELP = `  --describe TEXT       ${option('describe')}
  --allow-ingest DIR    ${option('allowIngest')}; repeatable
  --max-upload-bytes N  ${option('maxUploadBytes')} (default 64 MiB)`;

/** The flags as MCP server options (validated by McpServerOptionsSchema where the server is made). */
export function mcpOptionsFrom(args: ParsedArgs): McpServerOptionsInput {
  const options: McpServerOptionsInput = {};
  const describe = stringValue(args, 'describe');
  if (describe !== undefined) {
    if (describe.trim() === '') throw new UsageError('--describe needs a text, e.g. --describe "our supplier contracts"');
    options.describe = describe;
  }
  const roots = stringValues(args, 'allow-ingest');
  if (roots.some((r) => r.trim() === '')) throw new UsageError('--allow-ingest needs a folder');
  if (roots.length > 0) options.allowIngest = roots;
  const maxUpload = integerValue(args, 'max-upload-bytes', 1);
  if (maxUpload !== undefined) options.maxUploadBytes = maxUpload;
  return options;
}
