import type { FastifyInstance } from 'fastify';
import type { ServeContext } from './server.js';

/**
 * A slot in the server for a feature that lives elsewhere: the inspector page at `/`, MCP at
 * `/mcp`. `register` runs inside its own Fastify plugin under `prefix` with the server's context
 * (library, jobs, settings). Its routes pass the server's auth hook: declare them with `route()`
 * (src/serve/route.ts) to give each a scope (`none`, `read`, `write`) and an OpenAPI entry; a
 * plain Fastify route needs a read key. Errors thrown in it get the server's error body.
 */
export interface ServePlugin {
  /** Unique; a later plugin with the same name replaces an earlier one. */
  name: string;
  /** URL prefix, e.g. `/` or `/mcp`. */
  prefix: string;
  register(app: FastifyInstance, context: ServeContext): Promise<void> | void;
}

const registry = new Map<string, ServePlugin>();

/** Adds a plugin to every server started after this call (`serve()`, `groundwork serve`). */
export function registerServePlugin(plugin: ServePlugin): void {
  registry.set(plugin.name, plugin);
}

export function servePlugins(): ServePlugin[] {
  return [...registry.values()];
}
