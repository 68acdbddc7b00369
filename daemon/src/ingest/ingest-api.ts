import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { Store } from '../store/types.js';
import { literalTargetRefusal } from './address-guard.js';
import { ApiError, fieldError, sendApiError, sendJson, validationError } from './api-error.js';
import { jsonCallbackSchema, resolveJsonCallback, resolveUploadCallback } from './callback-config.js';
import { listJobDeliveries } from './delivery-queries.js';
import { mediaType, queryEnum, queryInt, readJson, requestScope, single } from './http-io.js';
import type { IngestSettings } from './ingest-settings.js';
import type { CreatedJob, IdempotencyClaim, JobStore, NewFile, NewJob } from './job-store.js';
import { datasetRead, jobRead } from './records.js';
import type { UploadFiles } from './upload-files.js';
import { receiveUploadForm } from './upload-form.js';
import { API_JOB_KINDS, DELIVERY_STATUSES, JOB_KINDS, JOB_STATUSES, type CallbackConfig, type Scope } from './types.js';

const JSON_LIMIT = 1024 * 1024;
const MAX_PAGE = 500;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const datasetCreateSchema = z.strictObject({ name: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters') });

const jobCreateSchema = z
  .strictObject({
    dataset_id: z.uuid('must be a UUID').transform((v) => v.toLowerCase()),
    job_kind: z.enum(API_JOB_KINDS, `must be one of ${API_JOB_KINDS.join(', ')} (PARSE_AND_INGEST jobs come from POST /api/v1/datasets/{ds}/files:async)`),
    table_id: z.uuid('must be a UUID').transform((v) => v.toLowerCase()).nullish(),
    callback: jsonCallbackSchema,
  })
  .superRefine((body, ctx) => {
    if (body.job_kind === 'REPARSE' && !body.table_id) ctx.addIssue({ code: 'custom', path: ['table_id'], message: 'is required for REPARSE' });
  });

export interface IngestApiOptions {
  store: Store;
  jobs: JobStore;
  settings: IngestSettings;
  /** Where uploads are written (`<data dir>/uploads`). */
  uploads: UploadFiles;
}

type Route = (req: IncomingMessage, res: ServerResponse, scope: Scope, params: string[], url: URL) => Promise<void>;

/** The public ingest API (`/api/v1/...`) as a services-listener handler. */
export function ingestApi({ store, jobs, settings, uploads }: IngestApiOptions) {
  const routes: Array<{ method: string; pattern: RegExp; route: Route }> = [
    { method: 'POST', pattern: /^\/api\/v1\/datasets$/, route: createDataset },
    { method: 'GET', pattern: /^\/api\/v1\/datasets\/([^/:]+)$/, route: getDataset },
    { method: 'POST', pattern: /^\/api\/v1\/datasets\/([^/:]+)\/files:async$/, route: uploadFile },
    { method: 'POST', pattern: /^\/api\/v1\/ingest-jobs$/, route: createJob },
    { method: 'GET', pattern: /^\/api\/v1\/ingest-jobs$/, route: listJobs },
    { method: 'GET', pattern: /^\/api\/v1\/ingest-jobs\/([^/:]+)$/, route: getJob },
    { method: 'POST', pattern: /^\/api\/v1\/ingest-jobs\/([^/:]+):cancel$/, route: cancelJob },
    { method: 'GET', pattern: /^\/api\/v1\/ingest-jobs\/([^/:]+)\/callbacks$/, route: listCallbacks },
  ];

  async function createDataset(req: IncomingMessage, res: ServerResponse, scope: Scope): Promise<void> {
    const parsed = datasetCreateSchema.safeParse(await readJson(req, JSON_LIMIT));
    if (!parsed.success) throw validationError(parsed.error);
    const dataset = await jobs.createDataset(scope, parsed.data.name);
    sendJson(res, 201, dataset, { Location: `/api/v1/datasets/${dataset.dataset_id}` });
  }

  async function getDataset(_req: IncomingMessage, res: ServerResponse, scope: Scope, [id]: string[]): Promise<void> {
    sendJson(res, 200, datasetRead(await jobs.dataset(scope, pathId(id, 'dataset'))));
  }

  async function uploadFile(req: IncomingMessage, res: ServerResponse, scope: Scope, [id]: string[]): Promise<void> {
    const datasetId = pathId(id, 'dataset');
    if (mediaType(req) !== 'multipart/form-data') throw new ApiError('unsupported_media_type', 'send the upload as multipart/form-data with a `file` field');
    await jobs.dataset(scope, datasetId);
    const form = await receiveUploadForm(req, uploads, settings.uploadMaxBytes);
    let created: CreatedJob;
    try {
      const { file } = form;
      if (!file) throw fieldError('file', 'is required: a file part named `file`');
      const callback = resolveUploadCallback(
        { url: form.text('callback_url'), secret: form.text('callback_secret'), headers: form.text('callback_headers') },
        { url: single(req, 'x-service-callback-url'), secret: single(req, 'x-service-callback-secret'), headers: single(req, 'x-service-callback-headers') },
        settings.defaultCallback,
      );
      checkTarget(callback, form.text('callback_url') ? 'callback_url' : 'X-Service-Callback-Url');
      const newFile: NewFile = { filename: file.filename || 'upload', contentType: file.contentType, upload: file.upload };
      const newJob: NewJob = {
        datasetId,
        jobKind: 'PARSE_AND_INGEST',
        tableId: null,
        fileId: null,
        request: { actor: actor(req), source: 'upload', file: { name: file.filename, size: file.upload.size, content_type: file.contentType } },
        callback,
      };
      created = await createOnce(req, scope, newJob, { route: 'upload', datasetId, file: [newFile.filename, newFile.contentType, file.upload.sha256], callback }, newFile);
    } finally {
      // Before the answer: a client that sees it never sees a repeat's copy of the file.
      await form.discard();
    }
    sendCreated(res, created);
  }

  /** The new job; with an Idempotency-Key, a repeat of the same request gets the first job back. */
  async function createOnce(req: IncomingMessage, scope: Scope, job: NewJob, request: unknown, file?: NewFile): Promise<CreatedJob> {
    const claim = idempotencyClaim(req, request);
    return claim ? jobs.createJobOnce(scope, claim, job, file) : { job: await jobs.createJob(scope, job, file), replayed: false };
  }

  function sendCreated(res: ServerResponse, { job, replayed }: CreatedJob): void {
    sendJson(res, 202, job, { Location: `/api/v1/ingest-jobs/${job.ingest_job_id}`, ...(replayed ? { 'Idempotent-Replayed': 'true' } : {}) });
  }

  async function createJob(req: IncomingMessage, res: ServerResponse, scope: Scope): Promise<void> {
    const parsed = jobCreateSchema.safeParse(await readJson(req, JSON_LIMIT));
    if (!parsed.success) throw validationError(parsed.error);
    const body = parsed.data;
    const callback = resolveJsonCallback(body.callback, settings.defaultCallback);
    checkTarget(body.callback ? callback : null, 'callback.url');
    const job: NewJob = {
      datasetId: body.dataset_id,
      jobKind: body.job_kind,
      tableId: body.table_id ?? null,
      fileId: null,
      request: { actor: actor(req), source: 'api', job_kind: body.job_kind, table_id: body.table_id ?? null },
      callback,
    };
    sendCreated(res, await createOnce(req, scope, job, { route: 'job', body }));
  }

  async function listJobs(_req: IncomingMessage, res: ServerResponse, scope: Scope, _p: string[], url: URL): Promise<void> {
    const datasetId = url.searchParams.get('dataset_id') || undefined;
    if (datasetId !== undefined && !UUID.test(datasetId)) throw fieldError('dataset_id', 'must be a UUID');
    const page = await jobs.listJobs(
      scope,
      { status: queryEnum(url, 'status', JOB_STATUSES), jobKind: queryEnum(url, 'job_kind', JOB_KINDS), datasetId },
      queryInt(url, 'limit', 50, 1, MAX_PAGE),
      queryInt(url, 'offset', 0, 0, Number.MAX_SAFE_INTEGER),
    );
    sendJson(res, 200, page);
  }

  async function getJob(_req: IncomingMessage, res: ServerResponse, scope: Scope, [id]: string[]): Promise<void> {
    sendJson(res, 200, jobRead(await jobs.job(scope, pathId(id, 'ingest job'))));
  }

  async function cancelJob(req: IncomingMessage, res: ServerResponse, scope: Scope, [id]: string[]): Promise<void> {
    sendJson(res, 200, await jobs.cancel(scope, pathId(id, 'ingest job'), actor(req)));
  }

  async function listCallbacks(_req: IncomingMessage, res: ServerResponse, scope: Scope, [id]: string[], url: URL): Promise<void> {
    const job = await jobs.job(scope, pathId(id, 'ingest job'));
    const page = await listJobDeliveries(store, job.ingest_job_id, queryEnum(url, 'status', DELIVERY_STATUSES), queryInt(url, 'limit', 50, 1, MAX_PAGE), queryInt(url, 'offset', 0, 0, Number.MAX_SAFE_INTEGER));
    sendJson(res, 200, page);
  }

  function checkTarget(callback: CallbackConfig | null, field: string): void {
    if (!callback) return;
    const refusal = literalTargetRefusal(new URL(callback.url), settings.allowHosts);
    if (refusal) throw fieldError(field, `refused target: ${refusal}`);
  }

  return async function ingestApiHandler(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    try {
      const pathname = decodeURIComponentSafe(url.pathname);
      const matching = routes.filter((r) => r.pattern.test(pathname));
      if (matching.length === 0) throw new ApiError('not_found', `no ingest endpoint at ${url.pathname}`);
      const found = matching.find((r) => r.method === req.method);
      if (!found) {
        res.setHeader('Allow', matching.map((r) => r.method).join(', '));
        throw new ApiError('method_not_allowed', `${req.method ?? '?'} is not allowed on ${url.pathname}; use ${matching.map((r) => r.method).join(' or ')}`);
      }
      const scope = requestScope(req);
      const params = found.pattern.exec(pathname)!.slice(1);
      await found.route(req, res, scope, params, url);
    } catch (error) {
      if (error instanceof ApiError) {
        if (!req.complete) res.setHeader('Connection', 'close');
        sendApiError(res, error);
        return;
      }
      throw error;
    }
  };
}

/** An id in the path; anything that is not a UUID cannot exist, so it is a 404. */
function pathId(id: string | undefined, what: string): string {
  if (!id || !UUID.test(id)) throw new ApiError('not_found', `${what} ${id ?? ''} not found`);
  return id.toLowerCase();
}

function actor(req: IncomingMessage): string | null {
  return single(req, 'x-actor-id') ?? null;
}

function decodeURIComponentSafe(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** Idempotency-Key: 1 to 255 visible ASCII characters. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The request's Idempotency-Key with a digest of what it asks for; null without the header. */
function idempotencyClaim(req: IncomingMessage, request: unknown): IdempotencyClaim | null {
  const key = single(req, 'idempotency-key');
  if (key === undefined) return null;
  if (!IDEMPOTENCY_KEY.test(key)) throw new ApiError('validation_failed', 'Idempotency-Key: must be 1 to 255 visible ASCII characters (a UUID is a good key)', [{ field: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }]);
  return { key, fingerprint: createHash('sha256').update(JSON.stringify(request)).digest('hex') };
}
