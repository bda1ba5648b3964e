import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { PartnerClient } from '../../src/index.js';
import { ok, startTestServer, type TestServer } from '../helpers/server.js';
import { clientFor } from '../helpers/server-client.js';

let server: TestServer;
let client: PartnerClient;

beforeEach(async () => {
  server = await startTestServer();
  client = clientFor(server);
});

afterEach(async () => {
  await client.close();
  await server.close();
});

describe('.withResponse()', () => {
  it('gives status, lower-cased headers, rate-limit state and replay flag with the data', async () => {
    server.on(
      'POST /api/v1.1/sms',
      ok(
        { messageId: 'm1' },
        {
          status: 201,
          headers: {
            'X-RateLimit-Limit': '30',
            'X-RateLimit-Remaining': '29',
            'X-RateLimit-Reset': '42',
            'Idempotency-Replayed': 'true',
            'X-Request-Id': 'req_7',
          },
        },
      ),
    );
    const { data, response } = await client.request({ method: 'POST', path: '/api/v1.1/sms', body: {}, idempotent: true }).withResponse();
    expect(data).toEqual({ messageId: 'm1' });
    expect(response.status).toBe(201);
    expect(response.headers['x-request-id']).toBe('req_7');
    expect(response.rateLimit).toEqual({ limit: 30, remaining: 29, resetSeconds: 42 });
    expect(response.idempotencyReplayed).toBe(true);
  });

  it('leaves rateLimit undefined and idempotencyReplayed false when the headers are absent', async () => {
    server.on('GET /api/v1.1/ping', ok(1));
    const { response } = await client.request({ method: 'GET', path: '/api/v1.1/ping' }).withResponse();
    expect(response.rateLimit).toBeUndefined();
    expect(response.idempotencyReplayed).toBe(false);
  });

  it('sends the request once whether awaited, withResponse() or both', async () => {
    server.on('GET /api/v1.1/ping', ok(1));
    const call = client.request({ method: 'GET', path: '/api/v1.1/ping' });
    await call;
    await call.withResponse();
    expect(server.requestsTo('GET /api/v1.1/ping')).toHaveLength(1);
  });
});

describe('client.request()', () => {
  it('types and validates the data with the given schema', async () => {
    server.on('GET /api/v1.1/orders/o1', ok({ id: 'o1', total: 12.5 }));
    const order = await client.request({
      method: 'GET',
      path: '/api/v1.1/orders/o1',
      schema: z.object({ id: z.string(), total: z.number() }),
    });
    const total: number = order.total;
    expect(total).toBe(12.5);
  });
});
