import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandbox } from '../../../src/sandbox/index.js';

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

export interface Harness {
  sandbox: Sandbox;
  token: string;
  /** A partner-API call with the bearer token; resolves to status and parsed body. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** A control-API call (no auth). */
  control(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Moves the sandbox clock forward. */
  advance(ms: number): Promise<void>;
}

async function call(url: string, method: string, body: unknown, token?: string) {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * A sandbox whose clock barely moves on its own (timeScale 1e-6), so retry schedules are driven
 * exactly by advance(); pass a larger timeScale for paced work such as voice streams.
 */
export async function startHarness(options: Parameters<typeof startSandbox>[0] = {}): Promise<Harness> {
  // A token that outlives every advance() of a test.
  const sandbox = await startSandbox({ port: 0, timeScale: 1e-6, tokenTtlSeconds: 1e9, ...options });
  const auth = await call(`${sandbox.url}/api/v1.1/auth/token`, 'POST', { key: sandbox.key, secret: sandbox.secret });
  const token: string = auth.body.data.access_token;
  return {
    sandbox,
    token,
    api: (method, path, body) => call(`${sandbox.url}${path}`, method, body, token),
    control: (method, path, body) => call(`${sandbox.url}${path}`, method, body),
    async advance(ms) {
      const answer = await call(`${sandbox.url}/_sandbox/time`, 'POST', { advanceMs: ms });
      if (answer.status !== 200) throw new Error(`advance failed: ${answer.status}`);
    },
  };
}

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
}

export interface Receiver {
  url: string;
  received: ReceivedRequest[];
  /** Status answered to the next requests; the last entry repeats. */
  answers: number[];
  /** When set, requests wait for it before answering. */
  hold: Promise<void> | null;
  close(): Promise<void>;
}

/** A loopback HTTP receiver that records every request with its exact bytes. */
export async function startReceiver(answers: number[] = [200]): Promise<Receiver> {
  const receiver: Receiver = { url: '', received: [], answers, hold: null, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      receiver.received.push({ path: req.url ?? '', headers: req.headers, rawBody: Buffer.concat(chunks).toString('utf8') });
      const status = receiver.answers.length > 1 ? (receiver.answers.shift() ?? 200) : (receiver.answers[0] ?? 200);
      const answer = (): void => {
        res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      };
      if (receiver.hold) void receiver.hold.then(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  receiver.url = `http://127.0.0.1:${port}`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** Independent check of spec part 6: v1 = hex HMAC-SHA256 of `<t>.<raw body>` keyed with the secret. */
export function signatureMatches(rawBody: string, header: string | string[] | undefined, secret: string): boolean {
  if (typeof header !== 'string') return false;
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=') as [string, string]));
  const t = parts.t;
  const v1 = parts.v1;
  if (!t || !v1) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  const given = Buffer.from(v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function waitFor(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Lets in-flight work run a little real time, to show that nothing more happens. */
export const settle = (ms = 60): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
