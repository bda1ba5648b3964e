import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox/index.js';
import { call, useSandbox } from './helpers.js';

const s = useSandbox({ limits: { maxBodyBytes: 1024 * 1024 } });

interface Sent {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** Bytes the sender had written when the answer arrived. */
  written: number;
}

/**
 * POSTs up to `total` bytes of JSON-ish filler as fast as the socket takes them, and stops at the
 * answer: how much was written by then shows whether the sandbox read the whole body first.
 */
function stream(path: string, total: number, headers: Record<string, string> = {}): Promise<Sent> {
  return new Promise((resolve, reject) => {
    let written = 0;
    let answered = false;
    const req = request(new URL(path, s.sandbox.url), { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      answered = true;
      const at = written;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text), written: at }));
    });
    req.on('error', (error) => (answered ? undefined : reject(error)));
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const pump = (): void => {
      while (!answered && written < total) {
        written += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    pump();
  });
}

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const sms = (sandbox = s.sandbox) => ({ fromNumber: sandbox.fixtures.phoneNumber, toNumber: '+14155550100', text: 'hi' });

describe('request bodies: authenticate first, then read under a cap', () => {
  it('answers an unauthenticated 1 GiB POST 401 without reading it, and keeps RSS flat', async () => {
    const rss = process.memoryUsage().rss;
    const answer = await stream('/api/v1.1/sms', GiB);
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('UNAUTHORIZED');
    expect(answer.headers.connection).toBe('close');
    // The sender is stopped by the answer long before the gigabyte is through.
    expect(answer.written).toBeLessThan(64 * MiB);
    expect(process.memoryUsage().rss - rss).toBeLessThan(64 * MiB);
    expect((await s.get('/api/v1.1/sims?pageSize=1')).status).toBe(200);
  });

  it('answers an authenticated 1 GiB chunked POST 413 in the error envelope once it passes the cap', async () => {
    const rss = process.memoryUsage().rss;
    const answer = await stream('/api/v1.1/sms', GiB, { authorization: `Bearer ${s.token}` });
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({
      success: false,
      error: {
        code: 'VALIDATION_ERROR',
        message: 'Request body too large',
        details: { validationErrors: ['body must be at most 1048576 bytes'] },
      },
    });
    expect(answer.written).toBeLessThan(64 * MiB);
    expect(process.memoryUsage().rss - rss).toBeLessThan(64 * MiB);
    expect((await s.post('/api/v1.1/sms', sms())).status).toBe(201);
  });

  it('refuses a declared Content-Length over the cap before reading a byte', async () => {
    const answer = await stream('/api/v1.1/sms', GiB, { authorization: `Bearer ${s.token}`, 'content-length': String(GiB) });
    expect(answer.status).toBe(413);
    expect(answer.written).toBeLessThan(64 * MiB);
    const logged = s.sandbox.requests().at(-1);
    expect(logged?.body).toBe(`[not read: ${GiB} bytes declared, over the 1048576-byte cap]`);
  });

  it('reads a body of exactly the cap and refuses one byte more', async () => {
    const body = JSON.stringify(sms());
    const exact = body + ' '.repeat(MiB - Buffer.byteLength(body));
    expect((await s.api('POST', '/api/v1.1/sms', exact)).status).toBe(201);
    const over = await s.api('POST', '/api/v1.1/sms', `${exact} `);
    expect(over.status).toBe(413);
  });

  it('caps control bodies too, answering in the control API style', async () => {
    const answer = await call(s.sandbox, 'POST', '/_sandbox/force', { body: `{"path":"/x","message":"${'a'.repeat(MiB)}"}` });
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({ error: 'invalid body', issues: ['body: body must be at most 1048576 bytes'] });
  });

  it('logs no body for an unauthenticated request, since it was never read', async () => {
    await call(s.sandbox, 'POST', '/api/v1.1/sms', { body: { secret: 'x' } });
    expect(s.sandbox.requests().at(-1)).toMatchObject({ path: '/api/v1.1/sms', status: 401, body: null });
  });
});

describe('deeply nested JSON', () => {
  const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

  it('answers 100,000-deep JSON 400 VALIDATION_ERROR at the parsing edge, on every kind of route', async () => {
    const deep = `{"fromNumber":${nested(100_000)}}`;
    const api = await s.api('POST', '/api/v1.1/sms', deep);
    expect(api.status).toBe(400);
    expect(api.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'Body is nested too deeply',
      details: { validationErrors: ['body must not nest arrays and objects deeper than 64'] },
    });
    const open = await call(s.sandbox, 'POST', '/api/v1.1/auth/token', { body: deep });
    expect([open.status, open.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    const control = await call(s.sandbox, 'POST', '/_sandbox/force', { body: `{"path":"/x","body":${nested(100_000)}}` });
    expect(control.status).toBe(400);
    expect(s.sandbox.requests().find((r) => r.path === '/api/v1.1/sms' && r.status === 400)?.body).toBe('[not parsed: nested deeper than 64]');
  });

  it('parses nesting up to the limit, and ignores brackets inside strings', async () => {
    const atLimit = await s.api('POST', '/api/v1.1/sms', `{"text":${nested(63)}}`);
    expect(atLimit.body.error.code).toBe('MISSING_FIELDS');
    const overLimit = await s.api('POST', '/api/v1.1/sms', `{"text":${nested(64)}}`);
    expect(overLimit.body.error.message).toBe('Body is nested too deeply');
    const inString = await s.post('/api/v1.1/sms', { ...sms(), text: '['.repeat(10_000) });
    expect(inString.status).toBe(201);
  });

  it('answers text that is not JSON 400 VALIDATION_ERROR', async () => {
    const res = await s.api('POST', '/api/v1.1/sms', '{"fromNumber":');
    expect([res.status, res.body.error.details.validationErrors]).toEqual([400, ['body must be valid JSON']]);
  });
});

describe('the cap holds in the handler itself (msw and other adapters)', () => {
  it('stops pulling an endless body stream just past the cap and answers 413', async () => {
    const sandbox = createSandbox({ limits: { maxBodyBytes: 64 * 1024 } });
    try {
      const exchange = await sandbox.handler(
        new Request('http://sandbox.test/api/v1.1/auth/token', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ key: sandbox.credentials.key, secret: sandbox.credentials.secret }),
        }),
      );
      const token = ((await exchange.json()) as { data: { access_token: string } }).data.access_token;
      let pulled = 0;
      let cancelled = false;
      const endless = new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled += 16 * 1024;
          controller.enqueue(new Uint8Array(16 * 1024).fill(0x20));
        },
        cancel() {
          cancelled = true;
        },
      });
      const answer = await sandbox.handler(
        new Request('http://sandbox.test/api/v1.1/sms', {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          body: endless,
          duplex: 'half',
        } as RequestInit),
      );
      expect(answer.status).toBe(413);
      expect(pulled).toBeLessThanOrEqual(64 * 1024 + 2 * 16 * 1024);
      expect(cancelled).toBe(true);
    } finally {
      await sandbox.close();
    }
  });
});
