import { http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox/index.js';

// The documented msw recipe: the sandbox's handler answers every intercepted request.
const sandbox = createSandbox({ seed: 7, rateLimit: false });
const server = setupServer(http.all('https://partner.test/*', ({ request }) => sandbox.handler(request)));

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(async () => {
  server.close();
  await sandbox.close();
});

describe('the sandbox behind msw', () => {
  it('serves the partner API to plain fetch without a socket', async () => {
    const tokenRes = await fetch('https://partner.test/api/v1.1/auth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: sandbox.credentials.key, secret: sandbox.credentials.secret }),
    });
    expect(tokenRes.status).toBe(200);
    const { data } = (await tokenRes.json()) as { data: { access_token: string } };
    const sims = await fetch('https://partner.test/api/v1.1/sims?pageSize=3', { headers: { authorization: `Bearer ${data.access_token}` } });
    expect(sims.status).toBe(200);
    const body = (await sims.json()) as { data: Array<{ iccid: string }>; meta: { total: number } };
    expect(body.meta.total).toBe(300);
    expect(sandbox.requests().map((r) => r.path)).toEqual(['/api/v1.1/auth/token', '/api/v1.1/sims']);
    // The same page as the sandbox's own handler answers it, without msw in between.
    const direct = await sandbox.handler(
      new Request('http://sandbox.test/api/v1.1/sims?pageSize=3', { headers: { authorization: `Bearer ${data.access_token}` } }),
    );
    const directBody = (await direct.json()) as { data: Array<{ iccid: string }> };
    expect(body.data).toHaveLength(3);
    expect(body.data.map((s) => s.iccid)).toEqual(directBody.data.map((s) => s.iccid));
  });

  it('turns a forced reset into a network error', async () => {
    await fetch('https://partner.test/_sandbox/force', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'GET', path: '/api/v3/transactions/{transactionId}', reset: true }),
    });
    await expect(fetch('https://partner.test/api/v3/transactions/abc')).rejects.toThrow();
  });
});
