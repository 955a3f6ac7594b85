import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { JobRecord } from '../../store/types.js';
import { HttpError } from '../errors.js';
import { uploadHint } from '../hints.js';
import { isTerminal, type FileOutcome, type IngestJobInput, type JobRunner } from '../jobs/runner.js';
import { route } from '../route.js';
import { IdParams, JobSchema } from '../schemas.js';
import type { ServeContext } from '../server.js';

export type JobJson = z.output<typeof JobSchema>;

/** A job as the API shows it: files with their outcomes, progress, the report, links. */
export function jobJson(job: JobRecord, runner: JobRunner): JobJson {
  const input = job.input as unknown as IngestJobInput;
  const result = job.result as { files?: FileOutcome[]; report?: Record<string, unknown> } | null;
  const files = (result?.files ?? (input.files ?? []).map((f) => ({ name: f.name, bytes: f.bytes, docId: f.docId, outcome: 'pending' as const })) as FileOutcome[])
    // A rejected file says what to do about it (derived, not stored: the wording may improve).
    .map((f) => (f.outcome === 'rejected' ? { ...f, hint: uploadHint(f.code) } : f));
  const p = job.progress as JobJson['progress'];
  return {
    id: job.id,
    kind: job.kind,
    state: job.state,
    files,
    progress: p ? { filesDone: p.filesDone, filesTotal: p.filesTotal, bytesDone: p.bytesDone, bytesTotal: p.bytesTotal } : null,
    report: result?.report ?? null,
    error: job.error,
    cancelRequested: runner.isCancelRequested(job.id),
    attempts: job.attempts,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
    links: { self: `/v1/jobs/${job.id}`, events: `/v1/jobs/${job.id}/events` },
  };
}

const KEEPALIVE_MS = 15_000;

/** Jobs: state, events (SSE), cancel. */
export function jobRoutes(ctx: ServeContext) {
  return async (app: FastifyInstance) => {
    const get = async (id: string): Promise<JobRecord> => {
      const job = await ctx.library.job(id);
      if (!job) throw new HttpError('NOT_FOUND', `no job ${id}`);
      return job;
    };

    route(app, {
      method: 'GET', url: '/', operationId: 'listJobs', summary: 'Jobs, newest first', tags: ['jobs'], scope: 'read',
      query: z.object({
        state: z.enum(['queued', 'running', 'done', 'failed', 'cancelled']).optional(),
        limit: z.coerce.number().int().min(1).max(1000).default(100),
      }).strict(),
      responses: { 200: { description: 'jobs', schema: z.object({ jobs: z.array(JobSchema) }) } },
      handler: async ({ query }) => ({
        jobs: (await ctx.library.jobs({ ...(query.state && { states: [query.state] }), limit: query.limit })).map((j) => jobJson(j, ctx.jobs)),
      }),
    });

    route(app, {
      method: 'GET', url: '/:id', operationId: 'getJob', summary: 'A job: state, progress, per-file outcomes, report', tags: ['jobs'], scope: 'read',
      params: IdParams,
      responses: { 200: { description: 'the job', schema: JobSchema }, 404: { description: 'no such job (NOT_FOUND)' } },
      handler: async ({ params }) => jobJson(await get(params.id), ctx.jobs),
    });

    route(app, {
      method: 'DELETE', url: '/:id', operationId: 'cancelJob', tags: ['jobs'], scope: 'write',
      summary: 'Cancel a job: a queued one at once (200); a running one when its files are done, undoing what it added (202)',
      params: IdParams,
      responses: {
        200: { description: 'cancelled, or already finished (its state says which)', schema: JobSchema },
        202: { description: 'running: it ends cancelled when its current files are done', schema: JobSchema },
        404: { description: 'no such job (NOT_FOUND)' },
      },
      handler: async ({ params }, _request, reply) => {
        const job = await ctx.jobs.cancel(params.id);
        if (!job) throw new HttpError('NOT_FOUND', `no job ${params.id}`);
        reply.status(job.state === 'running' ? 202 : 200);
        return jobJson(job, ctx.jobs);
      },
    });

    route(app, {
      method: 'GET', url: '/:id/events', operationId: 'jobEvents', tags: ['jobs'], scope: 'read', streaming: true,
      summary: 'Server-Sent Events: `progress` (the job, on every change), then one of `done`, `failed`, `cancelled`; the stream then ends',
      params: IdParams,
      responses: {
        200: { description: 'an event stream; each event\'s data is the job as JSON', contentType: 'text/event-stream', schema: z.string() },
        404: { description: 'no such job (NOT_FOUND)' },
      },
      handler: async ({ params }, request, reply) => {
        const first = await get(params.id);
        const res = reply.raw;
        reply.hijack();
        res.writeHead(200, {
          ...(reply.getHeaders() as Record<string, string>),
          'Content-Type': 'text/event-stream; charset=utf-8',
          'Cache-Control': 'no-cache, no-transform',
          Connection: 'keep-alive',
          'X-Accel-Buffering': 'no',
        });
        ctx.streams.add(res);
        let ended = false;
        const send = (job: JobRecord) => {
          if (ended) return;
          const event = isTerminal(job.state) ? (job.state === 'done' ? 'done' : job.state) : 'progress';
          res.write(`event: ${event}\nid: ${job.updatedAt}\ndata: ${JSON.stringify(jobJson(job, ctx.jobs))}\n\n`);
          if (isTerminal(job.state)) end();
        };
        const keepalive = setInterval(() => res.write(': keep-alive\n\n'), KEEPALIVE_MS);
        const unsubscribe = ctx.jobs.subscribe(params.id, send);
        const end = () => {
          if (ended) return;
          ended = true;
          clearInterval(keepalive);
          unsubscribe();
          ctx.streams.delete(res);
          res.end();
        };
        request.raw.on('close', end);
        // Subscribed before re-reading, so no change falls between the read and the subscription.
        send((await ctx.library.job(params.id)) ?? first);
      },
    });
  };
}
