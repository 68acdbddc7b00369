import { join } from 'node:path';
import type { Area, DaemonContext } from '../core/area.js';
import type { Component } from '../core/component.js';
import { CallbackWorker } from './callback-worker.js';
import { DeliveryEvents } from './delivery-events.js';
import { IngestWorker } from './ingest-worker.js';
import { RetentionWorker } from './retention-worker.js';
import { INGEST_SERVICE } from './control-router.js';
import { IngestControl } from './control-service.js';
import { ingestApi } from './ingest-api.js';
import { readIngestSettings, type IngestSettings } from './ingest-settings.js';
import { JobStore, type IngestNotifier } from './job-store.js';
import { UPLOADS_DIR_NAME, UploadFiles } from './upload-files.js';

/** Settings errors surface as a component that fails to start, naming the variable. */
function settingsOrFailure(ctx: DaemonContext): IngestSettings | null {
  try {
    return readIngestSettings(ctx.env);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!ctx.host.statuses().some((s) => s.name === 'ingest-settings')) {
      const failing: Component = { name: 'ingest-settings', start: async () => Promise.reject(new Error(message)), stop: async () => {} };
      ctx.host.register(failing);
    }
    return null;
  }
}

function notifier(ctx: DaemonContext): IngestNotifier {
  return {
    jobChanged: (job) => ctx.events.publish({ type: 'job.state', message: `job ${job.ingest_job_id} ${job.job_kind} ${job.status}` }),
    deliveryQueued: (id, job) => ctx.events.publish({ type: 'delivery.state', message: `delivery ${id} of job ${job.ingest_job_id} PENDING` }),
  };
}

/** The operator services (jobs.*, deliveries.*), attached once in any mode that runs an ingest role. */
function attachControl(ctx: DaemonContext, settings: IngestSettings): void {
  if (ctx.control.find(INGEST_SERVICE)) return;
  const control = new IngestControl(
    ctx.store,
    () => new JobStore(ctx.store(), Date.now, notifier(ctx)),
    (message, details) => ctx.events.publish({ type: 'delivery.state', message, ...(details ? { details } : {}) }),
    Date.now,
    settings.retrySchedule,
  );
  ctx.control.provide(INGEST_SERVICE, control);
}

/** `<data dir>/uploads`; the API's process sweeps what a crashed upload left when it starts. */
function uploadFiles(ctx: DaemonContext, sweepAtStart = false): UploadFiles {
  const dir = join(ctx.settings.dataDir, UPLOADS_DIR_NAME);
  if (!sweepAtStart) return new UploadFiles(dir);
  const files = new UploadFiles(dir, { store: ctx.store, logger: ctx.logger.child({ component: 'uploads' }) });
  ctx.host.register(files);
  return files;
}

export const INGEST_API_AREA: Area = {
  name: 'ingest-api',
  modes: ['all', 'gateway'],
  install(ctx) {
    const settings = settingsOrFailure(ctx);
    if (!settings) return;
    attachControl(ctx, settings);
    const uploads = uploadFiles(ctx, true);
    let handler: ReturnType<typeof ingestApi> | null = null;
    ctx.services.mount('ingest', (p) => p.startsWith('/api/v1/'), (req, res, url) => {
      handler ??= ingestApi({ store: ctx.store(), jobs: new JobStore(ctx.store(), Date.now, notifier(ctx)), settings, uploads });
      return handler(req, res, url);
    });
  },
};

export const CALLBACK_WORKER_AREA: Area = {
  name: 'callback-worker',
  modes: ['all', 'callback-worker'],
  install(ctx) {
    const settings = settingsOrFailure(ctx);
    if (!settings) return;
    attachControl(ctx, settings);
    const deliveryEvents = new DeliveryEvents((event) => ctx.events.publish(event));
    ctx.host.register(
      new CallbackWorker({
        store: ctx.store,
        logger: ctx.logger.child({ component: 'callback-worker' }),
        pollIntervalMs: settings.pollIntervalMs,
        batchSize: settings.batchSize,
        requestTimeoutMs: settings.requestTimeoutMs,
        allowHosts: settings.allowHosts,
        caFile: settings.caFile,
        stopGraceMs: Math.min(settings.requestTimeoutMs, ctx.settings.shutdownTimeoutMs / 2),
        retrySchedule: settings.retrySchedule,
        onDelivery: (row, result) => deliveryEvents.recorded(row, result),
      }),
    );
  },
};

export const INGEST_WORKER_AREA: Area = {
  name: 'ingest-worker',
  modes: ['all', 'ingest-worker'],
  install(ctx) {
    const settings = settingsOrFailure(ctx);
    if (!settings) return;
    attachControl(ctx, settings);
    const notify = notifier(ctx);
    ctx.host.register(
      new IngestWorker({
        store: ctx.store,
        uploads: uploadFiles(ctx),
        logger: ctx.logger.child({ component: 'ingest-worker' }),
        pollIntervalMs: settings.ingestPollIntervalMs,
        leaseMs: settings.ingestLeaseMs,
        stopGraceMs: ctx.settings.shutdownTimeoutMs / 2,
        onFinished: ({ job, deliveryId }) => {
          notify.jobChanged(job);
          if (deliveryId) notify.deliveryQueued(deliveryId, job);
        },
        onStarted: (row) => ctx.events.publish({ type: 'job.state', message: `job ${row.ingest_job_id} ${row.job_kind} RUNNING` }),
      }),
    );
  },
};

export const RETENTION_WORKER_AREA: Area = {
  name: 'retention-worker',
  modes: ['all', 'retention-worker'],
  install(ctx) {
    const settings = settingsOrFailure(ctx);
    if (!settings) return;
    attachControl(ctx, settings);
    ctx.host.register(
      new RetentionWorker({
        store: ctx.store,
        uploads: uploadFiles(ctx),
        logger: ctx.logger.child({ component: 'retention-worker' }),
        retentionDays: settings.retentionDays,
        intervalMs: settings.retentionIntervalMs,
      }),
    );
  },
};

export const INGEST_AREAS: readonly Area[] = [INGEST_API_AREA, INGEST_WORKER_AREA, CALLBACK_WORKER_AREA, RETENTION_WORKER_AREA];
