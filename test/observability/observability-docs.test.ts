/**
 * The observability guide's tables, held to what the client publishes over loopback, with a real
 * OpenTelemetry SDK registered: the diagnostics channels and their messages, the attributes of
 * the call spans, and the metric instruments with their kind, unit and attributes. The guide's
 * "What it costs" tables are measurements of a benchmark run, not behaviour: not checked here.
 */
import diagnostics from 'node:diagnostics_channel';
import { SpanKind } from '@opentelemetry/api';
import { DataPointType, type MetricData, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import * as sdk from '../../src/index.js';
import { ATTR } from '../../src/core/telemetry-attributes.js';
import { codeSpans, findTable } from '../docs/markdown.js';
import { useTelemetry } from '../helpers/otel.js';
import { fail, ok, type Reply } from '../helpers/server.js';
import { useTestServer } from '../helpers/server-client.js';

const telemetry = useTelemetry();
const t = useTestServer({ maxRetries: 1 });

const SIMS = 'GET /api/v1.1/sims';
const page: Reply = ok([], { meta: { page: 1, pageSize: 20, total: 0, totalPages: 0 } });
const sms = { fromNumber: '+15550100001', toNumber: '+15550100002', text: 'hi' };
const settled = (promise: PromiseLike<unknown>): Promise<unknown> =>
  Promise.resolve(promise).then(
    () => undefined,
    (error: unknown) => error,
  );

/**
 * Calls that between them make every attribute and measurement the guide names: a success, an
 * error answer, a retry, a timeout, a rate-limit wait, a keyed write answered by a replay, answers
 * that fail the schema or skip it, a 429, and a `client.request()` call.
 */
async function everyKindOfCall(): Promise<void> {
  t.server.on(SIMS, page);
  await t.client.sims.list();
  t.server.on('GET /api/v1.1/sims/8900/subscription', fail(404, 'SIM_NOT_FOUND'));
  await settled(t.client.sims.retrieveSubscription('8900'));
  t.server.on('GET /api/v1.1/users', [fail(503, 'INTERNAL_ERROR', { headers: { 'retry-after': '0' } }), page]);
  await t.client.users.list();
  t.server.on('GET /api/v1.1/team-members', { hang: true });
  await settled((await t.connect({ timeoutMs: 50, maxRetries: 0 })).teamMembers.list());
  t.server.on('POST /api/v1.1/sms', ok({ message: 'sent' }, { status: 201, headers: { 'idempotency-replayed': 'true' } }));
  await t.client.sms.send(sms);
  t.server.on('GET /api/v1.1/sim-groups/g', ok({ name: 5 }));
  await settled(t.client.simGroups.retrieve('g'));
  await settled((await t.connect({ validateResponses: 'off' })).simGroups.retrieve('g'));
  t.server.on('GET /api/v1.1/credit-balance', [fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '0' } }), ok({ creditBalance: [] })]);
  await settled(t.client.billing.retrieveCreditBalance());
  const limited = await t.connect({ rateLimit: { account: { limit: 1, windowMs: 300 } } });
  await limited.sims.list();
  await limited.sims.list();
  await limited.request({ method: 'GET', path: '/api/v1.1/sims' });
}

describe("the observability guide's table of diagnostics channels", () => {
  const { rows } = findTable(['channel', 'when', 'message']);
  const exported = sdk as unknown as Record<string, unknown>;

  it.each(rows.map(([channel = '', when = '', message = '']) => [codeSpans(channel)[0] ?? '', codeSpans(channel)[1] ?? '', when, message]))(
    '%s (%s) publishes when %s, with %s',
    async (name, constant, when, message) => {
      expect(exported[constant]).toBe(name);
      const keys = (/^`\{ (.*) \}`$/.exec(message)?.[1] ?? '').split(', ');
      const heard: Array<{ outcome: string; message: Record<string, unknown> }> = [];
      let outcome = '';
      const listener = (published: unknown): void => {
        const request = (published as { request: { kind: string } }).request;
        if (request.kind !== 'token') heard.push({ outcome, message: published as Record<string, unknown> });
      };
      diagnostics.subscribe(name, listener);
      try {
        t.server.on(SIMS, page);
        outcome = 'succeeded';
        await t.client.sims.list();
        t.server.on('GET /api/v1.1/sims/8900/subscription', fail(404, 'SIM_NOT_FOUND'));
        outcome = 'failed';
        await settled(t.client.sims.retrieveSubscription('8900'));
      } finally {
        diagnostics.unsubscribe(name, listener);
      }
      const expected = { 'a call starts': ['succeeded', 'failed'], 'it succeeded': ['succeeded'], 'it failed': ['failed'] }[when];
      expect(heard.map((one) => one.outcome)).toEqual(expected);
      for (const one of heard) expect(Object.keys(one.message).sort()).toEqual([...keys].sort());
    },
  );
});

/** Attribute keys of the finished spans of `kind`, with every value each took. */
function attributesOf(kind: SpanKind): Map<string, unknown[]> {
  const seen = new Map<string, unknown[]>();
  for (const span of telemetry()
    .spans.getFinishedSpans()
    .filter((one) => one.kind === kind)) {
    for (const [key, value] of Object.entries(span.attributes)) seen.set(key, [...(seen.get(key) ?? []), value]);
  }
  return seen;
}

describe("the observability guide's table of span attributes", () => {
  const { rows } = findTable(['attribute', 'value']);
  const named = rows.flatMap(([attributes = '', value = '']) => codeSpans(attributes).map((name) => [name, value] as const));

  it('names attributes of the SDK’s own list', () => {
    const known = Object.values(ATTR) as string[];
    for (const [name] of named) expect([name, known.includes(name)]).toEqual([name, true]);
  });

  it('names exactly the attributes call spans carry, with the values it gives', async () => {
    await everyKindOfCall();
    const seen = attributesOf(SpanKind.CLIENT);
    expect(named.map(([name]) => name).sort()).toEqual([...seen.keys()].sort());
    for (const [name, value] of named) {
      // The values the cell quotes (`GET`, `404`, `passed`), where they are values of this attribute.
      const quoted = codeSpans(value).filter((span) => !span.includes(' ') && !span.includes('/') && !span.includes(':'));
      const values = (seen.get(name) ?? []).flatMap((one) => (Array.isArray(one) ? one : [one])).map(String);
      const exhaustive = /^`[^`]+`(?:, `[^`]+`)* or `[^`]+`$/.test(value.replace(/ \([^)]*\)/g, ''));
      for (const one of quoted.filter((span) => values.includes(span) || exhaustive))
        expect([name, values]).toEqual([name, expect.arrayContaining([one])]);
      if (exhaustive) expect([name, [...new Set(values)].sort()]).toEqual([name, [...quoted].sort()]);
    }
    // The quoted examples of error.type and of the retry reasons and codes.
    const values = (name: string): string[] => (seen.get(name) ?? []).flatMap((one) => (Array.isArray(one) ? one : [one])).map(String);
    expect(values('error.type')).toEqual(expect.arrayContaining(['404', 'TimeoutError', 'ResponseValidationError']));
    expect(values('partner.error.code')).toEqual(expect.arrayContaining(['SIM_NOT_FOUND', 'TIMEOUT']));
    expect(values('partner.retry.reasons')).toEqual(expect.arrayContaining(['503', '429']));
    expect(values('http.request.method')).toEqual(expect.arrayContaining(['GET', 'POST']));
    // `server.address`, `server.port`, `url.scheme`: from the base URL.
    expect(rows.find(([names]) => names?.includes('`server.address`'))?.[1]).toBe('from the base URL');
    const base = new URL(t.server.url);
    expect([values('server.address'), values('server.port'), values('url.scheme')].map((all) => [...new Set(all)])).toEqual([
      [base.hostname],
      [base.port],
      [base.protocol.slice(0, -1)],
    ]);
  });

  it('leaves url.template off client.request() spans', async () => {
    const row = rows.find(([name]) => name === '`url.template`');
    expect(row?.[1]).toContain('(not on `client.request()` spans)');
    t.server.on(SIMS, page);
    await t.client.request({ method: 'GET', path: '/api/v1.1/sims' });
    const spans = telemetry()
      .spans.getFinishedSpans()
      .filter((span) => span.kind === SpanKind.CLIENT && span.name === 'GET');
    expect(spans).toHaveLength(1);
    expect(spans[0]?.attributes).not.toHaveProperty('url.template');
  });
});

describe("the observability guide's table of metric instruments", () => {
  const { rows } = findTable(['instrument', 'kind', 'unit', 'also by']);
  /** An instrument's kind as its data says it: histogram points, or sums that only grow or not. */
  const KINDS: Record<string, string> = { histogram: 'histogram', counter: 'monotonic sum', 'up-down counter': 'sum' };
  const kindOf = (metric: MetricData): string =>
    metric.dataPointType === DataPointType.HISTOGRAM
      ? 'histogram'
      : metric.dataPointType === DataPointType.SUM
        ? metric.isMonotonic
          ? 'monotonic sum'
          : 'sum'
        : 'other';

  function instruments(metrics: ResourceMetrics) {
    return metrics.scopeMetrics.filter((scope) => scope.scope.name === 'mobile-partner-sdk').flatMap((scope) => scope.metrics);
  }

  it('lists every instrument under the meter mobile-partner-sdk, with its kind, unit and attributes', async () => {
    await everyKindOfCall();
    const measured = instruments(await telemetry().collect());
    expect(rows.map(([name]) => codeSpans(name ?? '')[0]).sort()).toEqual(measured.map((metric) => metric.descriptor.name).sort());
    for (const [instrument = '', kind = '', unit = '', alsoBy = ''] of rows) {
      const name = codeSpans(instrument)[0];
      const metric = measured.find((one) => one.descriptor.name === name);
      expect([name, metric && kindOf(metric), metric?.descriptor.unit]).toEqual([name, KINDS[kind], codeSpans(unit)[0] ?? unit]);
      // Every point has the method (and the template, but for client.request()); and the attributes the row adds.
      const extra = alsoBy.startsWith('—') ? [] : codeSpans(alsoBy).filter((span) => span.includes('.'));
      const keys = new Set(metric?.dataPoints.flatMap((point) => Object.keys(point.attributes)));
      expect([name, [...keys].sort()]).toEqual([name, ['http.request.method', 'url.template', ...extra].sort()]);
      const classes = codeSpans(alsoBy).filter((span) => /^\dxx$|^none$/.test(span));
      for (const statusClass of classes.filter((one) => one !== '5xx' && one !== '3xx')) {
        expect(metric?.dataPoints.some((point) => String(point.attributes['partner.status_class']) === statusClass)).toBe(true);
      }
    }
  });
});
