/**
 * OpenTelemetry spans over real loopback HTTP against the sandbox, with the real SDK registered
 * (tracer provider exporting to memory): the shape of each call's span tree, the attributes
 * exactly, trace context only when asked for, and nothing sensitive anywhere in a span.
 */
import diagnostics from 'node:diagnostics_channel';
import { type ProxyTracerProvider, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { NotFoundError, PartnerClient, REQUEST_END_CHANNEL, type RequestEndMessage } from '../../src/index.js';
import { BACKOFF_BASE_MS } from '../../src/core/defaults.js';
import { forceOneBusySims, useSandbox } from '../e2e/sandbox.js';
import { spanNamed, spanTrees, useTelemetry } from '../helpers/otel.js';

const telemetry = useTelemetry();
const run = useSandbox({}, {}, { auditSpans: false });

const SIMS = 'GET /api/v1.1/sims';
const TOKEN = 'POST /api/v1.1/auth/token';

function finished(): ReadableSpan[] {
  return telemetry().spans.getFinishedSpans();
}

/** A client of its own (a fresh token, so the exchange shows in the trace). */
function newClient(options: ConstructorParameters<typeof PartnerClient>[0] = {}): PartnerClient {
  const { sandbox } = run();
  return new PartnerClient({ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret, rateLimit: false, ...options });
}

describe('a span per call', () => {
  it('draws a retried call as attempts and a backoff wait inside one CLIENT span, the token exchange as its child', async () => {
    const { sandbox } = run();
    const client = newClient();
    try {
      forceOneBusySims(sandbox);
      await client.sims.list({ pageSize: 1 });
    } finally {
      await client.close();
    }
    const spans = finished();
    expect(spanTrees(spans)).toEqual([
      [
        SIMS,
        [
          [TOKEN, []],
          ['attempt 1', []],
          ['wait retry', []],
          ['attempt 2', []],
        ],
      ],
    ]);
    const call = spanNamed(spans, SIMS);
    const port = Number(new URL(sandbox.url).port);
    expect(call.kind).toBe(SpanKind.CLIENT);
    expect(call.status.code).toBe(SpanStatusCode.UNSET);
    expect(call.attributes).toEqual({
      'http.request.method': 'GET',
      'server.address': '127.0.0.1',
      'server.port': port,
      'url.scheme': 'http',
      'url.template': '/api/v1.1/sims',
      'http.response.status_code': 200,
      'partner.idempotency_key.present': false,
      'partner.attempts': 2,
      'partner.call.end': 'answered',
      'partner.retry.reasons': ['503'],
      'partner.response.validation': 'passed',
    });
    const [first, wait, second] = spans.filter((span) => span.parentSpanContext?.spanId === call.spanContext().spanId && span.name !== TOKEN);
    expect(first?.attributes).toEqual({ 'http.response.status_code': 503, 'error.type': '503' });
    expect(first?.status.code).toBe(SpanStatusCode.ERROR);
    expect(first?.kind).toBe(SpanKind.INTERNAL);
    expect(wait?.attributes['partner.wait.reason']).toBe('retry');
    // Full jitter: the first backoff is uniform below its base.
    expect(wait?.attributes['partner.wait.planned_ms']).toBeGreaterThanOrEqual(0);
    expect(wait?.attributes['partner.wait.planned_ms']).toBeLessThanOrEqual(BACKOFF_BASE_MS);
    expect(second?.attributes).toEqual({ 'http.request.resend_count': 1, 'http.response.status_code': 200 });
    const token = spanNamed(spans, TOKEN);
    expect(token.kind).toBe(SpanKind.CLIENT);
    expect(token.attributes['url.template']).toBe('/api/v1.1/auth/token');
  });

  it('names a 429 as the retry reason', async () => {
    const { client, sandbox } = run();
    await client.sims.list({ pageSize: 1 });
    telemetry().spans.reset();
    sandbox.force({
      method: 'GET',
      path: '/api/v1.1/sims',
      status: 429,
      code: 'RATE_LIMITED',
      message: 'slow down',
      headers: { 'retry-after': '0' },
    });
    await client.sims.list({ pageSize: 1 });
    const call = spanNamed(finished(), SIMS);
    expect(call.attributes['partner.retry.reasons']).toEqual(['429']);
    expect(call.attributes['partner.attempts']).toBe(2);
  });

  it("shows a call queued by the client's rate limiter as a rate-limit wait before its attempt", async () => {
    // One request per 100 ms for the account: the token exchange takes the first slot.
    const client = newClient({ rateLimit: { account: { limit: 1, windowMs: 100 } } });
    try {
      await client.sims.list({ pageSize: 1 });
    } finally {
      await client.close();
    }
    const spans = finished();
    expect(spanTrees(spans)).toEqual([
      [
        SIMS,
        [
          [TOKEN, []],
          ['wait rate-limit', []],
          ['attempt 1', []],
        ],
      ],
    ]);
    const call = spanNamed(spans, SIMS);
    const waited = call.attributes['partner.rate_limit.wait_ms'];
    expect(Number.isInteger(waited)).toBe(true);
    expect(waited).toBeGreaterThan(0);
    expect(spanNamed(spans, 'wait rate-limit').attributes).toEqual({ 'partner.wait.reason': 'rate-limit' });
  });

  it('marks a failed call ERROR with the status as error.type and the code, never the message', async () => {
    const { client } = run();
    await client.sims.list({ pageSize: 1 });
    telemetry().spans.reset();
    const failure = await client.sims.retrieveSubscription('8900000000000000000').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(NotFoundError);
    const spans = finished();
    // Answered at its first attempt: one span, the attempt's answer on it.
    expect(spanTrees(spans)).toEqual([['GET /api/v1.1/sims/{iccid}/subscription', []]]);
    const call = spanNamed(spans, 'GET /api/v1.1/sims/{iccid}/subscription');
    expect(call.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(call.events).toEqual([]);
    expect(call.attributes).toMatchObject({
      'url.template': '/api/v1.1/sims/{iccid}/subscription',
      'http.response.status_code': 404,
      'error.type': '404',
      'partner.error.code': (failure as NotFoundError).code,
      'partner.attempts': 1,
      'partner.call.end': 'not_retryable',
    });
    expect(call.attributes).not.toHaveProperty('partner.response.validation');
  });

  it('names a client.request() span by its method alone, without the path it was given', async () => {
    const { client, sandbox } = run();
    const iccid = sandbox.fixtures.physicalIccid;
    await client.request({ method: 'GET', path: `/api/v1.1/sims/${iccid}/subscription` });
    const raw = finished().filter((span) => span.name === 'GET');
    expect(raw).toHaveLength(1);
    expect(raw[0]?.attributes).not.toHaveProperty('url.template');
  });

  it('records to the tracer provider registered now, when another replaced the one of its earlier calls', async () => {
    const client = newClient();
    await client.sims.list({ pageSize: 1 });
    const first = finished().length;
    expect(first).toBeGreaterThan(0);
    const replacement = new InMemorySpanExporter();
    const previous = trace.getTracerProvider();
    trace.disable();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(replacement)] }));
    try {
      await client.sims.list({ pageSize: 1 });
      expect(replacement.getFinishedSpans().map((span) => span.name)).toEqual([SIMS]);
      expect(finished()).toHaveLength(first);
    } finally {
      trace.disable();
      trace.setGlobalTracerProvider((previous as ProxyTracerProvider).getDelegate());
      await client.close();
    }
  });

  it('records whether an idempotency key was sent and whether the answer was a replay, never the key', async () => {
    const { client, sandbox } = run();
    const body = { planId: sandbox.fixtures.pricedPlanId, iccid: sandbox.fixtures.physicalIccid };
    await client.plans.purchase(body, { idempotencyKey: 'order-77-purchase' });
    await client.plans.purchase(body, { idempotencyKey: 'order-77-purchase' });
    const purchases = finished().filter((span) => span.name === 'POST /api/v1.1/plans/purchase');
    expect(purchases.map((span) => [span.attributes['partner.idempotency_key.present'], span.attributes['partner.idempotency.replayed']])).toEqual([
      [true, false],
      [true, true],
    ]);
    expect(JSON.stringify(purchases.map((span) => span.attributes))).not.toContain('order-77');
  });
});

describe('beside the diagnostics channels', () => {
  it('traces a call and publishes it on the channels, both from the one seam', async () => {
    const { client } = run();
    await client.sims.list({ pageSize: 1 });
    telemetry().spans.reset();
    const ends: RequestEndMessage[] = [];
    const onEnd = (message: unknown): void => void ends.push(message as RequestEndMessage);
    diagnostics.subscribe(REQUEST_END_CHANNEL, onEnd);
    try {
      await client.sims.list({ pageSize: 1 });
    } finally {
      diagnostics.unsubscribe(REQUEST_END_CHANNEL, onEnd);
    }
    expect(ends.map((message) => [message.request.route, message.status, message.attempts])).toEqual([[SIMS, 200, 1]]);
    expect(finished().map((span) => span.name)).toEqual([SIMS]);
  });
});

describe('TransactionHandle.wait()', () => {
  it('is a span covering every poll, with the final status and the number of polls', async () => {
    const { client, sandbox } = run();
    const tracer = trace.getTracer('test');
    await tracer.startActiveSpan('provision a line', async (parent) => {
      const handle = await client.esim.provision({ planId: sandbox.fixtures.pricedPlanId });
      await handle.wait({ pollIntervalMs: 100 });
      parent.end();
    });
    const spans = finished();
    const wait = spanNamed(spans, 'wait POST /api/v1.1/esim');
    const polls = spans.filter((span) => span.parentSpanContext?.spanId === wait.spanContext().spanId);
    expect(polls.length).toBeGreaterThanOrEqual(1);
    expect(new Set(polls.map((span) => span.name))).toEqual(new Set(['GET /api/v3/transactions/{transactionId}']));
    expect(wait.kind).toBe(SpanKind.INTERNAL);
    expect(wait.attributes).toEqual({
      'partner.operation': 'POST /api/v1.1/esim',
      'partner.transaction.polls': polls.length,
      'partner.transaction.status': 'COMPLETED',
    });
    const [root] = spanTrees(spans);
    expect(root?.[0]).toBe('provision a line');
    expect(root?.[1].map(([name]) => name)).toEqual(['POST /api/v1.1/esim', 'wait POST /api/v1.1/esim']);
  });

  it('ends ERROR with the failure code when the operation fails', async () => {
    const { client, sandbox } = run();
    const handle = await client.esim.provision({ planId: sandbox.fixtures.unpricedPlanId });
    const failure = await handle.wait({ pollIntervalMs: 100 }).catch((error: unknown) => error as { errorCode?: string });
    const wait = spanNamed(finished(), 'wait POST /api/v1.1/esim');
    expect(wait.status.code).toBe(SpanStatusCode.ERROR);
    expect(wait.attributes).toMatchObject({
      'error.type': 'TransactionFailedError',
      'partner.error.code': failure.errorCode,
      'partner.transaction.status': 'FAILED',
    });
  });

  it('records a status that does not read as a code as _OTHER: the server may put anything there', async () => {
    const { client, sandbox } = run();
    const handle = await client.esim.provision({ planId: sandbox.fixtures.pricedPlanId });
    const status = `queued behind ${sandbox.fixtures.physicalIccid}`;
    sandbox.force({
      method: 'GET',
      path: `/api/v3/transactions/${handle.transactionId}`,
      status: 200,
      body: { success: true, data: { transactionId: handle.transactionId, status } },
      times: 20,
    });
    const failure = await handle.wait({ pollIntervalMs: 100, timeoutMs: 250 }).catch((error: unknown) => error as Error);
    expect((failure as Error).name).toBe('TransactionTimeoutError');
    const wait = spanNamed(finished(), 'wait POST /api/v1.1/esim');
    expect(wait.attributes).toMatchObject({ 'partner.transaction.status': '_OTHER', 'error.type': 'TransactionTimeoutError' });
    expect(JSON.stringify(wait.attributes)).not.toContain(sandbox.fixtures.physicalIccid);
  });
});

describe('trace context', () => {
  it('is not sent unless propagateTraceContext is set', async () => {
    const { client, sandbox } = run();
    await client.sims.list({ pageSize: 1 });
    expect(sandbox.requests().map((request) => request.headers['traceparent'])).toEqual(sandbox.requests().map(() => undefined));
  });

  it("is sent with every attempt as the call span's traceparent when propagateTraceContext is set", async () => {
    const { sandbox } = run();
    const client = newClient({ propagateTraceContext: true });
    try {
      sandbox.force({ method: 'GET', path: '/api/v1.1/sims', status: 503, code: 'SERVICE_UNAVAILABLE', message: 'busy' });
      await client.sims.list({ pageSize: 1 });
    } finally {
      await client.close();
    }
    const spans = finished();
    const expected = (name: string): string => {
      const context = spanNamed(spans, name).spanContext();
      return `00-${context.traceId}-${context.spanId}-01`;
    };
    expect(sandbox.requests().map((request) => [request.path, request.headers['traceparent']])).toEqual([
      ['/api/v1.1/auth/token', expected(TOKEN)],
      ['/api/v1.1/sims', expected(SIMS)],
      ['/api/v1.1/sims', expected(SIMS)],
    ]);
    expect(sandbox.requests().some((request) => 'baggage' in request.headers)).toBe(false);
  });
});

describe('what spans never hold', () => {
  it('has no key, secret, token, signing secret, ICCID, phone number, email or transaction id in any span', async () => {
    const { sandbox } = run();
    const fx = sandbox.fixtures;
    const tokens: string[] = [];
    // The access tokens as sent, read off the wire by the fetch the client is given.
    const recordingFetch: typeof fetch = (input, init) => {
      const authorization = new Headers(init?.headers).get('authorization');
      if (authorization) tokens.push(authorization.slice('Bearer '.length));
      return fetch(input, init);
    };
    const client = newClient({ fetch: recordingFetch, propagateTraceContext: true });
    const forbidden = [sandbox.key, sandbox.secret, fx.physicalIccid, fx.phoneNumber, fx.adminEmail, fx.activeSubscriptionIccid];
    try {
      await client.sims.retrieveSubscription(fx.physicalIccid);
      await client.sims.list({ search: fx.phoneNumber });
      await client.teamMembers.retrieve(fx.adminEmail);
      await client.sms.send({ fromNumber: fx.phoneNumber, toNumber: '+61400999888', text: 'hello' });
      forbidden.push('+61400999888', 'hello');
      await client.request({ method: 'GET', path: `/api/v1.1/sims/${fx.activeSubscriptionIccid}/subscription` });
      const registration = await client.webhooks.create({
        operator: 'Optus',
        network: 'Optus 5G',
        eventType: 'sms',
        update: true,
        webhookUrls: { messageUrl: 'http://127.0.0.1:9/hooks' },
      });
      forbidden.push(registration.signingSecret, 'http://127.0.0.1:9/hooks');
      await client.subscriptions.cancel('8900000000000000000').catch(() => undefined);
      forbidden.push('8900000000000000000');
      const handle = await client.esim.provision({ planId: fx.pricedPlanId });
      forbidden.push(handle.transactionId);
      const done = await handle.wait({ pollIntervalMs: 100 });
      forbidden.push(done.result.iccid, done.result.mdn);
    } finally {
      await client.close();
    }
    expect(tokens.length).toBeGreaterThan(0);
    forbidden.push(...tokens);
    for (const value of forbidden) expect(value.length).toBeGreaterThan(3);
    const spans = finished();
    expect(spans.length).toBeGreaterThanOrEqual(10);
    const texts = spans.flatMap((span) => [
      span.name,
      span.status.message ?? '',
      JSON.stringify(span.attributes),
      JSON.stringify(span.events),
      JSON.stringify(span.links),
    ]);
    for (const text of texts) {
      for (const value of forbidden) expect(text).not.toContain(value);
      expect(text).not.toMatch(/Bearer|access_token|@/);
    }
  });
});
