/**
 * The bench's Partner API stand-in, run as its own process so that serving never shares the
 * event loop of the code being measured. Two loopback listeners:
 *   api   — answers at once: the token exchange and GET /api/v1.1/sims (20-item pages, X-RateLimit-*)
 *   paged — the same SIM list over `total` SIMs, each page after `pageLatencyMs`, as a real API would
 * Prints one JSON line `{ "api": url, "paged": url }` when listening; exits on SIGTERM or stdin EOF.
 *
 * `tsx bench/server.ts sandbox <rateLimitWindowMs>` instead starts the real sandbox (the build under test) and
 * prints `{ "url", "key", "secret" }`.
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AddressInfo } from 'node:net';
import { BENCH_TOKEN, simPageBody, tokenBody } from './lib/sims.js';

interface ApiServerOptions {
  total: number;
  pageLatencyMs: number;
}

/** A fixed window as wide as the spec's, with a limit no bench reaches: the headers stay realistic. */
const WINDOW_MS = 60_000;
const WINDOW_LIMIT = 1_000_000_000;

function jsonHeaders(length: number): Record<string, string | number> {
  return { 'content-type': 'application/json; charset=utf-8', 'content-length': length };
}

function createApiServer({ total, pageLatencyMs }: ApiServerOptions): { server: http.Server; warm(pageSize: number): void } {
  const pages = new Map<string, Buffer>();
  const unauthorized = Buffer.from(JSON.stringify({ success: false, error: { code: 'UNAUTHORIZED', message: 'Missing or invalid token' } }));
  const notFound = Buffer.from(JSON.stringify({ success: false, error: { code: 'NOT_FOUND', message: 'No such route' } }));
  let windowStart = Date.now();
  let used = 0;

  const page = (pageNumber: number, pageSize: number): Buffer => {
    const key = `${pageNumber}:${pageSize}`;
    let body = pages.get(key);
    if (!body) {
      body = Buffer.from(simPageBody(pageNumber, pageSize, total));
      pages.set(key, body);
    }
    return body;
  };

  const send = (res: http.ServerResponse, status: number, body: Buffer, extra: Record<string, string | number> = {}): void => {
    res.writeHead(status, { ...jsonHeaders(body.length), ...extra });
    res.end(body);
  };

  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    if (req.method === 'POST' && url === '/api/v1.1/auth/token') {
      req.resume();
      req.on('end', () => send(res, 200, Buffer.from(tokenBody())));
      return;
    }
    req.resume();
    if (req.method !== 'GET' || !url.startsWith('/api/v1.1/sims')) return send(res, 404, notFound);
    if (req.headers.authorization !== `Bearer ${BENCH_TOKEN}`) return send(res, 401, unauthorized);
    const query = new URLSearchParams(url.slice(url.indexOf('?') + 1));
    const pageNumber = Number(query.get('page') ?? 1);
    const pageSize = Number(query.get('pageSize') ?? 20);
    const now = Date.now();
    if (now - windowStart >= WINDOW_MS) {
      windowStart = now;
      used = 0;
    }
    used++;
    const headers = {
      'x-ratelimit-limit': WINDOW_LIMIT,
      'x-ratelimit-remaining': WINDOW_LIMIT - used,
      'x-ratelimit-reset': Math.ceil((windowStart + WINDOW_MS - now) / 1000),
    };
    const body = page(pageNumber, pageSize);
    if (pageLatencyMs > 0) setTimeout(() => send(res, 200, body, headers), pageLatencyMs);
    else send(res, 200, body, headers);
  });
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 125_000;
  // Serialises every page before the first request, so no variant pays the server's warm-up.
  const warm = (pageSize: number): void => {
    for (let pageNumber = 1; pageNumber <= Math.ceil(total / pageSize); pageNumber++) page(pageNumber, pageSize);
  };
  return { server, warm };
}

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
}

async function startApi(total: number, pageLatencyMs: number, pageSize: number): Promise<() => Promise<void>> {
  const api = createApiServer({ total, pageLatencyMs: 0 });
  const paged = createApiServer({ total, pageLatencyMs });
  paged.warm(pageSize);
  const urls = { api: await listen(api.server), paged: await listen(paged.server) };
  process.stdout.write(`${JSON.stringify(urls)}\n`);
  return async () => {
    for (const { server } of [api, paged]) server.closeAllConnections();
    await Promise.all([api, paged].map(({ server }) => new Promise((resolve) => server.close(resolve))));
  };
}

type StartSandbox = (options: { port: number; rateLimitWindowMs: number }) => Promise<{
  url: string;
  key: string;
  secret: string;
  close(): Promise<void>;
}>;

/** The sandbox of the build under test (BENCH_DIST_DIR), as partners run it; src/ when none is built. */
async function loadStartSandbox(): Promise<StartSandbox> {
  const built = process.env.BENCH_DIST_DIR && path.join(process.env.BENCH_DIST_DIR, 'sandbox/index.cjs');
  const module = (built && existsSync(built) ? await import(pathToFileURL(built).href) : await import('../src/sandbox/index.js')) as {
    startSandbox: StartSandbox;
  };
  return module.startSandbox;
}

async function startBenchSandbox(rateLimitWindowMs: number): Promise<() => Promise<void>> {
  const startSandbox = await loadStartSandbox();
  const sandbox = await startSandbox({ port: 0, rateLimitWindowMs });
  process.stdout.write(`${JSON.stringify({ url: sandbox.url, key: sandbox.key, secret: sandbox.secret })}\n`);
  return () => sandbox.close();
}

async function main(): Promise<void> {
  const [mode = 'api', first, second, third] = process.argv.slice(2);
  const stop =
    mode === 'sandbox'
      ? await startBenchSandbox(Number(first ?? 1000))
      : await startApi(Number(first ?? 100_000), Number(second ?? 3), Number(third ?? 100));
  const shutdown = (): void => {
    void stop().finally(() => process.exit(0));
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  // The parent holds our stdin open; when it dies without killing us, stdin ends and we stop too.
  process.stdin.on('end', shutdown);
  process.stdin.resume();
}

await main();
