import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ok } from '../helpers/server.js';
import { useTestServer } from '../helpers/server-client.js';

const t = useTestServer();

describe('.withResponse()', () => {
  it('gives status, lower-cased headers, rate-limit state and replay flag with the data', async () => {
    t.server.on(
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
    const { data, response } = await t.client.request({ method: 'POST', path: '/api/v1.1/sms', body: {}, idempotent: true }).withResponse();
    expect(data).toEqual({ messageId: 'm1' });
    expect(response.status).toBe(201);
    expect(response.headers['x-request-id']).toBe('req_7');
    expect(response.rateLimit).toEqual({ limit: 30, remaining: 29, resetSeconds: 42 });
    expect(response.idempotencyReplayed).toBe(true);
  });

  it('leaves rateLimit undefined and idempotencyReplayed false when the headers are absent', async () => {
    t.server.on('GET /api/v1.1/ping', ok(1));
    const { response } = await t.client.request({ method: 'GET', path: '/api/v1.1/ping' }).withResponse();
    expect(response.rateLimit).toBeUndefined();
    expect(response.idempotencyReplayed).toBe(false);
  });

  it('sends the request once whether awaited, withResponse() or both', async () => {
    t.server.on('GET /api/v1.1/ping', ok(1));
    const call = t.client.request({ method: 'GET', path: '/api/v1.1/ping' });
    await call;
    await call.withResponse();
    expect(t.server.requestsTo('GET /api/v1.1/ping')).toHaveLength(1);
  });
});

describe('client.request()', () => {
  it('types and validates the data with the given schema', async () => {
    t.server.on('GET /api/v1.1/orders/o1', ok({ id: 'o1', total: 12.5 }));
    const order = await t.client.request({
      method: 'GET',
      path: '/api/v1.1/orders/o1',
      schema: z.object({ id: z.string(), total: z.number() }),
    });
    const total: number = order.total;
    expect(total).toBe(12.5);
  });
});
