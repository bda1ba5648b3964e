import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigurationError, PartnerClient, ResponseTooLargeError } from '../../src/index.js';
import { type Loopback, listen, tokenAnswer } from '../helpers/server.js';
import { KEY, SECRET } from '../helpers/server-client.js';

const MiB = 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 0x61);

type Answer = (response: ServerResponse) => void;

/**
 * A loopback server that answers the token exchange and hands every other request to `answer`.
 * It counts the API requests and the bytes it managed to write before the client hung up.
 */
let server: Loopback;
let url: string;
let answer: Answer;
let apiRequests: number;
let bytesWritten: number;
const clients: PartnerClient[] = [];

beforeEach(async () => {
  apiRequests = 0;
  bytesWritten = 0;
  server = await listen((request, response) => {
    request.resume();
    if (request.url === '/api/v1.1/auth/token') {
      const text = JSON.stringify(tokenAnswer().json);
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
      response.end(text);
      return;
    }
    apiRequests += 1;
    answer(response);
  });
  url = server.url;
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await server.close();
});

function client(options: { fetch?: typeof fetch; maxResponseBytes?: number } = {}): PartnerClient {
  const created = new PartnerClient({ baseUrl: url, key: KEY, secret: SECRET, maxRetries: 2, rateLimit: false, ...options });
  clients.push(created);
  return created;
}

/** Streams `totalBytes` of JSON-ish bytes with back-pressure, without a Content-Length; stops when the client hangs up. */
function streamBody(totalBytes: number): Answer {
  return (response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    const write = (): void => {
      while (bytesWritten < totalBytes && !response.destroyed) {
        bytesWritten += CHUNK.length;
        if (!response.write(CHUNK)) {
          response.once('drain', write);
          return;
        }
      }
      if (!response.destroyed) response.end();
    };
    response.on('error', () => undefined);
    write();
  };
}

const transports = [
  ['undici dispatch', {}],
  ['fetch option', { fetch: globalThis.fetch }],
] as const;

describe.each(transports)('maxResponseBytes (%s)', (_name, transportOptions) => {
  it('cuts a streamed body past the cap: typed error, one request, memory far below the body size', async () => {
    const cap = 8 * MiB;
    answer = streamBody(512 * MiB);
    const target = client({ ...transportOptions, maxResponseBytes: cap });
    await target.auth.token();
    const before = process.memoryUsage();
    let peak = 0;
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      peak = Math.max(peak, now.arrayBuffers - before.arrayBuffers + (now.heapUsed - before.heapUsed));
    }, 2);
    const error = await target.request({ method: 'GET', path: '/api/v1.1/sims' }).catch((caught: unknown) => caught);
    clearInterval(sampler);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ code: 'RESPONSE_TOO_LARGE', part: 'body', status: 200, limitBytes: cap });
    expect(apiRequests).toBe(1);
    // The read stopped near the cap: the server could not push the whole 512 MiB.
    expect(bytesWritten).toBeLessThan(128 * MiB);
    expect(peak).toBeLessThan(4 * cap);
  });

  it('refuses a declared Content-Length above the cap before reading the body', async () => {
    answer = (response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(64 * MiB) });
      response.write('{"success":true,"data":[');
      // ...and nothing more: waiting for the body would hang until the test's timeout.
    };
    const error = await client({ ...transportOptions, maxResponseBytes: MiB })
      .request({ method: 'GET', path: '/api/v1.1/sims' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ part: 'body', limitBytes: MiB });
    expect(apiRequests).toBe(1);
  });

  it('reads a body of exactly the cap', async () => {
    const body = JSON.stringify({ success: true, data: 'x'.repeat(1000) });
    answer = (response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(body);
    };
    await expect(
      client({ ...transportOptions, maxResponseBytes: Buffer.byteLength(body) }).request({ method: 'GET', path: '/api/v1.1/sims' }),
    ).resolves.toBe('x'.repeat(1000));
  });

  it('reads a body of exactly the cap whose Content-Length says so', async () => {
    const body = JSON.stringify({ success: true, data: 'ü'.repeat(1000) });
    answer = (response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
      response.end(body);
    };
    await expect(
      client({ ...transportOptions, maxResponseBytes: Buffer.byteLength(body) }).request({ method: 'GET', path: '/api/v1.1/sims' }),
    ).resolves.toBe('ü'.repeat(1000));
  });

  it('refuses headers over the HTTP parser limit as a typed error naming the cause, not retried', async () => {
    answer = (response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'x-padding': 'p'.repeat(128 * 1024) });
      response.end('{"success":true,"data":1}');
    };
    const error = await client(transportOptions)
      .request({ method: 'GET', path: '/api/v1.1/sims' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ code: 'RESPONSE_TOO_LARGE', part: 'headers' });
    expect((error as Error).message).toMatch(/headers exceed/);
    expect(apiRequests).toBe(1);
  });
});

describe('maxResponseBytes option', () => {
  it.each([-1, 0, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '1000'])(
    'refuses %s at construction with a ConfigurationError naming the option',
    (value) => {
      let error: unknown;
      try {
        client({ maxResponseBytes: value as number });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toMatch(/maxResponseBytes/);
      expect(apiRequests).toBe(0);
    },
  );
});

describe('maxResponseBytes with a Response a middleware made', () => {
  it('refuses a body past the cap whose Content-Length understates it', async () => {
    const body = JSON.stringify({ success: true, data: 'x'.repeat(4096) });
    const target = new PartnerClient({
      baseUrl: url,
      key: KEY,
      secret: SECRET,
      maxResponseBytes: 1024,
      rateLimit: false,
      middleware: [
        (request, next) =>
          new URL(request.url).pathname === '/api/v1.1/sims'
            ? Promise.resolve(new Response(body, { headers: { 'content-type': 'application/json', 'content-length': '20' } }))
            : next(request),
      ],
    });
    clients.push(target);
    const error = await target.request({ method: 'GET', path: '/api/v1.1/sims' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ part: 'body', limitBytes: 1024 });
  });
});
