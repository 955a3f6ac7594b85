/** `groundwork serve`: the HTTP API over a library (docs/serve.md). */
export { serve, buildServer, type ServeOptions, type ServeHandle, type ServeContext } from './server.js';
export { ServeOptionsSchema, parseServeSettings, type ServeSettings, type ServeSettingsInput } from './options.js';
export { registerServePlugin, servePlugins, type ServePlugin } from './plugins.js';
export { route, openApiDocument, type RouteSpec, type RouteResponse, type Scope } from './route.js';
export { STATUS_OF, HTTP_ONLY_CODES, HttpError, ErrorBodySchema, errorResponse, type HttpErrorCode } from './errors.js';
export { loadKeys, parseKeys, newKey, hashKey, isLoopback, KEY_SCOPES, type ApiKey, type KeyScope, type Caller } from './auth.js';
export { JobRunner, type FileOutcome, type IngestJobInput, type JobFile } from './jobs/runner.js';
export { SearchRequestSchema } from './routes/search.js';
export { DifyRequestSchema, DifyResponseSchema } from './routes/dify.js';
