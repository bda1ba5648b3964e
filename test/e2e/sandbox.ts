/**
 * One sandbox and one client per test file, reset before every test; plus the oracles the e2e
 * tests compare the client with: the sandbox's request log and the raw wire answer.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { type ClientOptions, PartnerClient } from '../../src/index.js';
import { type LoggedRequest, type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { useSpanAudit } from '../helpers/span-audit.js';

type SandboxOptions = NonNullable<Parameters<typeof startSandbox>[0]>;

export interface SandboxRun {
  sandbox: SandboxHandle;
  client: PartnerClient;
}

/**
 * Starts the sandbox and a client for this file; the returned getter is valid inside tests.
 * Unless `auditSpans` is false (a file that registers OpenTelemetry itself), the file runs traced
 * by a real OpenTelemetry SDK and the spans of each test are audited (see span-audit.ts).
 */
export function useSandbox(options: SandboxOptions = {}, clientOptions: ClientOptions = {}, { auditSpans = true } = {}): () => SandboxRun {
  let run: SandboxRun | undefined;
  if (auditSpans) useSpanAudit(() => run?.sandbox);
  beforeAll(async () => {
    const sandbox = await startSandbox({ port: 0, transactionDelayMs: 20, ...options });
    const client = new PartnerClient({ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret, rateLimit: false, ...clientOptions });
    run = { sandbox, client };
  });
  afterAll(async () => {
    await run?.client.destroy();
    await run?.sandbox.close();
  });
  beforeEach(() => {
    run?.sandbox.reset();
  });
  return () => {
    if (!run) throw new Error('useSandbox() is only usable inside a test');
    return run;
  };
}

/** Partner-API requests the sandbox received (token exchanges left out), from index `from` of its log. */
export function partnerRequests(sandbox: SandboxHandle, from = 0): LoggedRequest[] {
  return sandbox
    .requests()
    .slice(from)
    .filter((request) => request.path !== '/api/v1.1/auth/token');
}

/** The next `GET /api/v1.1/sims` answers 503 with `Retry-After: 0`: that list call is retried once, at once. */
export function forceOneBusySims(sandbox: Pick<SandboxHandle, 'force'>): void {
  sandbox.force({
    method: 'GET',
    path: '/api/v1.1/sims',
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    message: 'busy',
    headers: { 'retry-after': '0' },
  });
}

/** Forces the sandbox's next answer of a route (POST /_sandbox/force). */
export async function force(sandbox: SandboxHandle, rule: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${sandbox.url}/_sandbox/force`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(rule),
  });
  expect(response.status).toBe(201);
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** A token obtained over plain fetch, independent of the client under test. */
export async function rawToken(sandbox: SandboxHandle): Promise<string> {
  const answer = await rawCall(sandbox, { method: 'POST', path: '/api/v1.1/auth/token', body: { key: sandbox.key, secret: sandbox.secret } });
  return (answer.body as { data: { access_token: string } }).data.access_token;
}

/** One request over plain fetch: what the wire says, without the client's parsing. */
export async function rawCall(
  sandbox: SandboxHandle,
  request: { method: string; path: string; query?: Record<string, unknown>; body?: unknown; token?: string; idempotencyKey?: string },
): Promise<RawAnswer> {
  const query = new URLSearchParams(Object.entries(request.query ?? {}).map(([name, value]) => [name, String(value)]));
  const headers: Record<string, string> = {};
  if (request.token) headers['authorization'] = `Bearer ${request.token}`;
  if (request.idempotencyKey) headers['idempotency-key'] = request.idempotencyKey;
  if (request.body !== undefined && request.body !== null) headers['content-type'] = 'application/json';
  const response = await fetch(`${sandbox.url}${request.path}${query.size > 0 ? `?${query}` : ''}`, {
    method: request.method,
    headers,
    ...(request.body !== undefined && request.body !== null ? { body: JSON.stringify(request.body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}

/**
 * A partner endpoint for this file that accepts every delivery (so that webhooks.test succeeds);
 * the returned getter gives its URL inside tests.
 */
export function useAcceptingReceiver(): () => string {
  let url = '';
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200).end());
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  });
  afterAll(async () => {
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });
  return () => url;
}
