import { afterEach, describe, expect, it } from 'vitest';
import { Logger } from './logger.js';
import { ServicesListener } from './services-listener.js';

const lines: string[] = [];
const logger = new Logger({ format: 'json', sink: { write: (l) => lines.push(l) } });

describe('ServicesListener', () => {
  let listener: ServicesListener;
  afterEach(async () => listener?.stop());

  it('routes each path to the first service that claims it and 404s the rest', async () => {
    listener = new ServicesListener({ host: '127.0.0.1', port: 0 }, logger);
    listener.mount('infosessions', (p) => p.startsWith('/v2/resources/'), async (_req, res, url) => {
      res.end(`sessions ${url.searchParams.get('key')}`);
    });
    listener.mount('ingest', (p) => p.startsWith('/api/v1/'), async (_req, res) => {
      res.end('ingest');
    });
    await listener.start();
    expect(await (await fetch(`${listener.url}/v2/resources/infosessions.json?key=k1`)).text()).toBe('sessions k1');
    expect(await (await fetch(`${listener.url}/api/v1/ingest-jobs`)).text()).toBe('ingest');
    const missing = await fetch(`${listener.url}/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: 'not_found', message: 'no service at /nope' } });
  });

  it('answers its internal health path before any mount, even a catch-all', async () => {
    listener = new ServicesListener({ host: '127.0.0.1', port: 0 }, logger);
    listener.mount('all', () => true, async (_req, res) => {
      res.end('mounted');
    });
    await listener.start();
    const health = await fetch(`${listener.url}/internal/healthz`);
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('healthy\n');
    expect(health.headers.get('cache-control')).toBe('no-store');
    expect(await (await fetch(`${listener.url}/internal/healthz`, { method: 'POST' })).text()).toBe('mounted');
  });

  it('answers 500 without details when a handler throws, and logs the error', async () => {
    listener = new ServicesListener({ host: '127.0.0.1', port: 0 }, logger);
    listener.mount('broken', () => true, async () => {
      throw new Error('disk on fire');
    });
    await listener.start();
    const res = await fetch(`${listener.url}/x`);
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain('disk on fire');
    expect(lines.some((l) => l.includes('disk on fire') && l.includes('"service":"broken"'))).toBe(true);
  });

  it('names the address and the variable when the port is taken', async () => {
    const first = new ServicesListener({ host: '127.0.0.1', port: 0 }, logger);
    first.mount('a', () => true, async (_q, r) => void r.end());
    await first.start();
    const port = Number(new URL(first.url!).port);
    listener = new ServicesListener({ host: '127.0.0.1', port }, logger);
    listener.mount('b', () => true, async (_q, r) => void r.end());
    await expect(listener.start()).rejects.toThrow(/cannot listen on 127\.0\.0\.1:\d+: address already in use .*PORTICO_SERVICES_ADDR/);
    await first.stop();
  });
});
