import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ApiError,
  AuthenticationError,
  ConnectionError,
  BadRequestError,
  ConflictError,
  DeliveryFailedError,
  InternalServerError,
  InvalidResponseError,
  NotFoundError,
  NotImplementedError,
  PartnerClient,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  UnprocessableEntityError,
} from '../../src/index.js';
import { fail, ok } from '../helpers/server.js';
import { KEY, SECRET, useTestServer } from '../helpers/server-client.js';

const t = useTestServer({ maxRetries: 0 });

describe('success envelope', () => {
  it('unwraps data and keeps meta', async () => {
    t.server.on('GET /api/v1.1/sims', ok([{ iccid: '1' }], { meta: { page: 1, pageSize: 20, total: 1, totalPages: 1 } }));
    const result = await t.client.request({ method: 'GET', path: '/api/v1.1/sims' }).asResult();
    expect(result.data).toEqual([{ iccid: '1' }]);
    expect(result.meta).toEqual({ page: 1, pageSize: 20, total: 1, totalPages: 1 });
  });

  it('returns the body itself on routes outside the envelope', async () => {
    t.server.on('POST /api/v3/port-in', { status: 202, json: { transactionId: 'tx_9', statusEndpoint: '/api/v3/transactions/tx_9' } });
    const data = await t.client.request({ method: 'POST', path: '/api/v3/port-in', envelope: false, body: {} });
    expect(data).toEqual({ transactionId: 'tx_9', statusEndpoint: '/api/v3/transactions/tx_9' });
  });

  it('still maps error envelopes on routes outside the envelope', async () => {
    t.server.on('POST /api/v3/port-in', fail(403, 'FORBIDDEN'));
    await expect(t.client.request({ method: 'POST', path: '/api/v3/port-in', envelope: false })).rejects.toBeInstanceOf(PermissionDeniedError);
  });
});

describe('error envelope', () => {
  const cases: Array<[number, string, new (...args: never[]) => ApiError]> = [
    [400, 'VALIDATION_ERROR', BadRequestError],
    [403, 'FORBIDDEN', PermissionDeniedError],
    [404, 'SIM_NOT_FOUND', NotFoundError],
    [409, 'IDEMPOTENCY_KEY_REUSED', ConflictError],
    [422, 'INVALID_ROLE', UnprocessableEntityError],
    [429, 'RATE_LIMITED', RateLimitError],
    [500, 'INTERNAL_ERROR', InternalServerError],
    [503, 'INTERNAL_ERROR', InternalServerError],
    [501, 'NOT_IMPLEMENTED', NotImplementedError],
    [502, 'DELIVERY_FAILED', DeliveryFailedError],
    [418, 'TEAPOT', ApiError],
  ];

  it.each(cases)('maps HTTP %i %s to its class', async (status, code, errorClass) => {
    t.server.on('GET /api/v1.1/thing', fail(status, code, { headers: { 'x-request-id': 'req_1' } }));
    const error = await t.client.request({ method: 'GET', path: '/api/v1.1/thing' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(errorClass);
    expect(error).toMatchObject({ status, code, route: 'GET /api/v1.1/thing' });
    expect((error as ApiError).headers['x-request-id']).toBe('req_1');
  });

  it('maps 401 to AuthenticationError after the one re-authentication', async () => {
    t.server.on('GET /api/v1.1/thing', fail(401, 'UNAUTHORIZED'));
    await expect(t.client.request({ method: 'GET', path: '/api/v1.1/thing' })).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('keeps code, message and details.validationErrors', async () => {
    t.server.on(
      'POST /api/v1.1/sms',
      fail(400, 'VALIDATION_ERROR', { message: 'toNumber is invalid', details: { validationErrors: ['toNumber: not E.164'] } }),
    );
    const error = (await t.client.request({ method: 'POST', path: '/api/v1.1/sms', body: {} }).catch((caught: unknown) => caught)) as BadRequestError;
    expect(error.message).toBe('400 VALIDATION_ERROR POST /api/v1.1/sms: toNumber is invalid (toNumber: not E.164)');
    expect(error.details).toEqual({ validationErrors: ['toNumber: not E.164'] });
    expect(error.validationErrors).toEqual(['toNumber: not E.164']);
  });

  it('gives RateLimitError the Retry-After seconds', async () => {
    t.server.on('GET /api/v1.1/thing', fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '17' } }));
    const error = await t.client.request({ method: 'GET', path: '/api/v1.1/thing' }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ retryAfterSeconds: 17 });
  });
});

describe('response validation', () => {
  const schema = z.object({ iccid: z.string(), status: z.enum(['ACTIVE', 'INACTIVE']) });

  it('rejects data that does not fit the schema, naming the paths', async () => {
    t.server.on('GET /api/v1.1/sims/1', ok({ iccid: 1, status: 'GONE' }));
    const error = await t.client.request({ method: 'GET', path: '/api/v1.1/sims/1', schema }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues.map((issue) => issue.path).sort()).toEqual(['iccid', 'status']);
  });

  it('validates once per call', async () => {
    let runs = 0;
    const counting = schema.transform((value) => {
      runs += 1;
      return value;
    });
    t.server.on('GET /api/v1.1/sims/1', ok({ iccid: '1', status: 'ACTIVE' }));
    await t.client.request({ method: 'GET', path: '/api/v1.1/sims/1', schema: counting }).withResponse();
    expect(runs).toBe(1);
  });

  it("trusts the server when validateResponses is 'off'", async () => {
    await t.connect({ validateResponses: 'off' });
    t.server.on('GET /api/v1.1/sims/1', ok({ iccid: 1 }));
    await expect(t.client.request({ method: 'GET', path: '/api/v1.1/sims/1', schema })).resolves.toEqual({ iccid: 1 });
  });
});

describe('bodies that are not the JSON envelope (over loopback HTTP)', () => {
  const getSims = () => t.client.request({ method: 'GET', path: '/api/v1.1/sims' });

  it('turns an HTML 502 from a gateway into a transient InternalServerError, and retries a GET', async () => {
    t.server.on('GET /api/v1.1/sims', { status: 502, raw: '<html><body><h1>502 Bad Gateway</h1></body></html>' });
    const error = await getSims().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).not.toBeInstanceOf(DeliveryFailedError);
    expect(error).toMatchObject({ status: 502, code: 'INVALID_RESPONSE' });
    await t.connect({ maxRetries: 1 });
    t.server.on('GET /api/v1.1/sims', [{ status: 502, raw: '<html>Bad Gateway</html>' }, ok([{ iccid: '8901' }])]);
    await expect(getSims()).resolves.toEqual([{ iccid: '8901' }]);
  });

  it.each([
    ['another code', fail(502, 'UPSTREAM_DOWN')],
    ['an envelope without a code', { status: 502, json: { success: false } }],
  ])('treats a 502 with %s as a retried InternalServerError', async (_name, reply) => {
    await t.connect({ maxRetries: 2 });
    t.server.on('GET /api/v1.1/sims', [reply, ok([])]);
    await expect(getSims()).resolves.toEqual([]);
    expect(t.server.requestsTo('GET /api/v1.1/sims')).toHaveLength(2);
  });

  it('keeps 502 DELIVERY_FAILED a DeliveryFailedError, not retried even on a retry-safe call', async () => {
    await t.connect({ maxRetries: 2 });
    t.server.on('POST /api/v1.1/webhooks/w1/test', fail(502, 'DELIVERY_FAILED'));
    const error = await t.client
      .request({ method: 'POST', path: '/api/v1.1/webhooks/w1/test', body: {}, idempotencyKey: 'k-1' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DeliveryFailedError);
    expect(t.server.requestsTo('POST /api/v1.1/webhooks/w1/test')).toHaveLength(1);
  });

  it('turns an empty 200 body into InvalidResponseError', async () => {
    t.server.on('GET /api/v1.1/sims', { status: 200 });
    const error = await getSims().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error).toMatchObject({ status: 200, code: 'INVALID_RESPONSE' });
  });

  it('turns an empty 500 body into InternalServerError with code INVALID_RESPONSE, saying the body was empty', async () => {
    t.server.on('GET /api/v1.1/sims', { status: 500 });
    const error = await getSims().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ status: 500, code: 'INVALID_RESPONSE' });
    expect((error as Error).message).toBe('500 INVALID_RESPONSE GET /api/v1.1/sims: HTTP 500 with an empty body');
  });

  it('keeps a 4xx outside the table an ApiError that is not retried, not a transient server error', async () => {
    await t.connect({ maxRetries: 2 });
    t.server.on('GET /api/v1.1/sims', [fail(410, 'GONE'), ok([])]);
    const error = await getSims().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).not.toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ status: 410, code: 'GONE' });
    expect(t.server.requestsTo('GET /api/v1.1/sims')).toHaveLength(1);
  });

  it('keeps the class of a 400 whose body is an HTML page', async () => {
    t.server.on('GET /api/v1.1/sims', { status: 400, raw: '<html><body>Bad Request</body></html>' });
    const error = await getSims().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ status: 400, code: 'INVALID_RESPONSE' });
    expect((error as Error).message).toBe('400 INVALID_RESPONSE GET /api/v1.1/sims: HTTP 400 with a body that is not complete JSON');
  });

  it('turns a truncated body on a route outside the envelope into InvalidResponseError, never into undefined data', async () => {
    t.server.on('POST /api/v3/port-in', { status: 202, raw: '{"transactionId":"tx_9","statusEnd' });
    const error = await t.client.request({ method: 'POST', path: '/api/v3/port-in', envelope: false, body: {} }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error).toMatchObject({ status: 202, code: 'INVALID_RESPONSE', mayHaveSucceeded: true });
  });

  it.each([
    ['an error without a code', JSON.stringify({ success: false, error: { message: 'gone' } })],
    ['a list', '["gone"]'],
    ['null', 'null'],
  ])('gives a 404 whose JSON body is %s the code INVALID_RESPONSE, saying why', async (_name, raw) => {
    t.server.on('GET /api/v1.1/sims', { status: 404, raw });
    const error = await getSims().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, code: 'INVALID_RESPONSE' });
    expect((error as Error).message).toBe('404 INVALID_RESPONSE GET /api/v1.1/sims: HTTP 404 without an error envelope');
  });

  it.each([
    [
      'a 400 whose error envelope lacks success: false',
      { status: 400, json: { error: { code: 'VALIDATION_ERROR', message: 'm' } } },
      'VALIDATION_ERROR',
    ],
    ['a 200 that says success: false', { status: 200, json: { success: false, error: { code: 'SIM_NOT_FOUND', message: 'm' } } }, 'SIM_NOT_FOUND'],
    ['a 200 with data but no success: true', { status: 200, json: { data: [{ iccid: '8901' }] } }, 'INVALID_RESPONSE'],
  ])('reads %s as an error with code %s', async (_name, reply, code) => {
    t.server.on('GET /api/v1.1/sims', reply);
    const error = await getSims().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code });
  });

  it('names the status when an error envelope has no message', async () => {
    t.server.on('GET /api/v1.1/sims', { status: 404, json: { success: false, error: { code: 'SIM_NOT_FOUND' } } });
    const error = await getSims().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 404, code: 'SIM_NOT_FOUND' });
    expect((error as Error).message).toBe('404 SIM_NOT_FOUND GET /api/v1.1/sims: HTTP 404');
  });

  it('accepts an empty 204 as no data', async () => {
    t.server.on('DELETE /api/v1.1/user-groups/g1', { status: 204 });
    await expect(t.client.request({ method: 'DELETE', path: '/api/v1.1/user-groups/g1' })).resolves.toBeUndefined();
  });

  it('turns a body cut off mid-JSON by a dropped connection into ConnectionError, and retries a GET', async () => {
    t.server.on('GET /api/v1.1/sims', [{ ...ok([{ iccid: '8901' }]), cutAfterBytes: 20 }, ok([{ iccid: '8901' }])]);
    const error = await getSims().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ requestNotSent: false });
    await t.connect({ maxRetries: 1 });
    t.server.on('GET /api/v1.1/sims', [{ ...ok([{ iccid: '8901' }]), cutAfterBytes: 20 }, ok([{ iccid: '8901' }])]);
    await expect(getSims()).resolves.toEqual([{ iccid: '8901' }]);
    expect(t.server.requestsTo('GET /api/v1.1/sims')).toHaveLength(3);
  });
});

describe('bodies that are not the JSON envelope (through the fetch option)', () => {
  const mock = setupServer();
  const baseUrl = 'https://partner.example.test';
  let viaFetch: PartnerClient;

  beforeAll(() => mock.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => mock.close());
  beforeEach(() => {
    mock.use(
      http.post(`${baseUrl}/api/v1.1/auth/token`, () =>
        HttpResponse.json({
          success: true,
          data: {
            access_token: 'tok-msw-5e4d3c2b1a',
            token_type: 'Bearer',
            expires_in: 3600,
            expires_at: new Date(Date.now() + 3_600_000).toISOString(),
          },
        }),
      ),
    );
    viaFetch = new PartnerClient({ baseUrl, key: KEY, secret: SECRET, fetch: globalThis.fetch, maxRetries: 0 });
  });
  afterEach(async () => {
    mock.resetHandlers();
    await viaFetch.close();
  });

  it('turns an HTML 502 from a proxy into a typed error, not a SyntaxError', async () => {
    mock.use(
      http.get(
        `${baseUrl}/api/v1.1/sims`,
        () => new HttpResponse('<html><body>Bad Gateway</body></html>', { status: 502, headers: { 'content-type': 'text/html' } }),
      ),
    );
    const error = await viaFetch.request({ method: 'GET', path: '/api/v1.1/sims' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).not.toBeInstanceOf(DeliveryFailedError);
    expect(error).toMatchObject({ status: 502, code: 'INVALID_RESPONSE' });
  });

  it('keeps the status class for a non-JSON 503, so it stays retryable', async () => {
    mock.use(http.get(`${baseUrl}/api/v1.1/sims`, () => new HttpResponse('Service Unavailable', { status: 503 })));
    const error = await viaFetch.request({ method: 'GET', path: '/api/v1.1/sims' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ code: 'INVALID_RESPONSE' });
  });

  it('turns a truncated JSON body into InvalidResponseError', async () => {
    mock.use(
      http.get(
        `${baseUrl}/api/v1.1/sims`,
        () => new HttpResponse('{"success":true,"data":[{"icc', { status: 200, headers: { 'content-type': 'application/json' } }),
      ),
    );
    const error = await viaFetch.request({ method: 'GET', path: '/api/v1.1/sims' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error).not.toBeInstanceOf(SyntaxError);
    expect(error).toMatchObject({ status: 200, code: 'INVALID_RESPONSE' });
  });

  it('turns JSON without the envelope into InvalidResponseError', async () => {
    mock.use(http.get(`${baseUrl}/api/v1.1/sims`, () => HttpResponse.json([1, 2, 3])));
    const error = await viaFetch.request({ method: 'GET', path: '/api/v1.1/sims' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).toBe('200 INVALID_RESPONSE GET /api/v1.1/sims: HTTP 200 without the success envelope');
  });
});
