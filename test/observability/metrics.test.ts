/**
 * OpenTelemetry metrics over real loopback HTTP against the sandbox, with the real metrics SDK
 * registered: call durations by route template and status class, retries by reason, 429s,
 * rate-limiter waits and calls in flight.
 */
import type { Attributes } from '@opentelemetry/api';
import type { DataPoint, Histogram, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { PartnerClient } from '../../src/index.js';
import { useSandbox } from '../e2e/sandbox.js';
import { useTelemetry } from '../helpers/otel.js';

const telemetry = useTelemetry();
const run = useSandbox({}, {}, { auditSpans: false });

const SIMS = { 'http.request.method': 'GET', 'url.template': '/api/v1.1/sims' };

function points(metrics: ResourceMetrics, name: string): Array<DataPoint<unknown>> {
  const found = metrics.scopeMetrics
    .filter((scope) => scope.scope.name === 'mobile-partner-sdk')
    .flatMap((scope) => scope.metrics)
    .filter((metric) => metric.descriptor.name === name);
  return found.flatMap((metric) => metric.dataPoints as Array<DataPoint<unknown>>);
}

/** The point whose attributes are exactly `attributes`, or undefined. */
function pointWith(metrics: ResourceMetrics, name: string, attributes: Attributes): DataPoint<unknown> | undefined {
  return points(metrics, name).find((point) => JSON.stringify(sorted(point.attributes)) === JSON.stringify(sorted(attributes)));
}

function sorted(attributes: Attributes): Array<[string, unknown]> {
  return Object.entries(attributes).sort(([a], [b]) => a.localeCompare(b));
}

async function sum(name: string, attributes: Attributes): Promise<number> {
  return (pointWith(await telemetry().collect(), name, attributes)?.value as number | undefined) ?? 0;
}

async function histogramCount(name: string, attributes: Attributes): Promise<number> {
  return (pointWith(await telemetry().collect(), name, attributes)?.value as Histogram | undefined)?.count ?? 0;
}

describe('metrics', () => {
  it('record each call once in the duration histogram, by route template and status class, in seconds', async () => {
    const { client } = run();
    const ok = { ...SIMS, 'partner.status_class': '2xx' };
    const before = await histogramCount('partner.client.call.duration', ok);
    await client.sims.list({ pageSize: 1 });
    await client.sims.list({ pageSize: 1 });
    const metrics = await telemetry().collect();
    const point = pointWith(metrics, 'partner.client.call.duration', ok);
    expect((point?.value as Histogram).count - before).toBe(2);
    const [duration] = metrics.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .filter((metric) => metric.descriptor.name === 'partner.client.call.duration');
    expect(duration?.descriptor.unit).toBe('s');
    const failed = {
      'http.request.method': 'GET',
      'url.template': '/api/v1.1/sims/{iccid}/subscription',
      'partner.status_class': '4xx',
      'error.type': '404',
    };
    const failedBefore = await histogramCount('partner.client.call.duration', failed);
    await client.sims.retrieveSubscription('8900000000000000000').catch(() => undefined);
    expect((await histogramCount('partner.client.call.duration', failed)) - failedBefore).toBe(1);
  });

  it('count retries by reason and 429 answers by route', async () => {
    const { client, sandbox } = run();
    await client.sims.list({ pageSize: 1 });
    const retried503 = await sum('partner.client.retries', { ...SIMS, 'partner.retry.reason': '503' });
    const retried429 = await sum('partner.client.retries', { ...SIMS, 'partner.retry.reason': '429' });
    const throttled = await sum('partner.client.rate_limited', SIMS);
    sandbox.force({ method: 'GET', path: '/api/v1.1/sims', status: 503, code: 'SERVICE_UNAVAILABLE', message: 'busy' });
    await client.sims.list({ pageSize: 1 });
    sandbox.force({ method: 'GET', path: '/api/v1.1/sims', status: 429, code: 'RATE_LIMITED', message: 'slow', headers: { 'retry-after': '0' } });
    await client.sims.list({ pageSize: 1 });
    expect((await sum('partner.client.retries', { ...SIMS, 'partner.retry.reason': '503' })) - retried503).toBe(1);
    expect((await sum('partner.client.retries', { ...SIMS, 'partner.retry.reason': '429' })) - retried429).toBe(1);
    expect((await sum('partner.client.rate_limited', SIMS)) - throttled).toBe(1);
  });

  it("record the time a call spends queued by the client's rate limiter", async () => {
    const { sandbox } = run();
    const client = new PartnerClient({
      baseUrl: sandbox.url,
      key: sandbox.key,
      secret: sandbox.secret,
      rateLimit: { account: { limit: 1, windowMs: 100 } },
    });
    const before = await histogramCount('partner.client.rate_limit.wait.duration', SIMS);
    try {
      // The token exchange takes the window's one slot: the call waits for the next window.
      await client.sims.list({ pageSize: 1 });
    } finally {
      await client.close();
    }
    const point = pointWith(await telemetry().collect(), 'partner.client.rate_limit.wait.duration', SIMS);
    expect((point?.value as Histogram).count - before).toBe(1);
    expect((point?.value as Histogram).sum).toBeGreaterThan(0);
  });

  it('count calls in flight up while they run and down once they settle', async () => {
    const { client, sandbox } = run();
    await client.sims.list({ pageSize: 1 });
    expect(await sum('partner.client.active_calls', SIMS)).toBe(0);
    sandbox.force({ method: 'GET', path: '/api/v1.1/sims', delayMs: 300 });
    // The call starts at once; the sandbox holds its answer back while the count is read.
    const slow = client.sims.list({ pageSize: 1 });
    expect(await sum('partner.client.active_calls', SIMS)).toBe(1);
    await slow;
    expect(await sum('partner.client.active_calls', SIMS)).toBe(0);
  });
});
