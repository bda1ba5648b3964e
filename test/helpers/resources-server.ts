import type { IncomingMessage, ServerResponse } from 'node:http';
import { PartnerClient } from '../../src/index.js';
import type { ClientOptions } from '../../src/index.js';
import { listen } from './server.js';

/** A request as the loopback server saw it; `path` is the raw request target without the query. */
export interface SeenRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

interface Answer {
  status?: number;
  body: unknown;
  delayMs?: number;
  headers?: Record<string, string>;
}

export type RouteHandler = (request: SeenRequest) => Answer | Promise<Answer>;

export interface ResourcesServer {
  url: string;
  /** Every request but the token exchange, in arrival order. */
  requests: SeenRequest[];
  /** Answer `METHOD /raw/path` (no query) with this handler. */
  handle(method: string, path: string, handler: RouteHandler): void;
  /** A client of this server with retries and limits that keep tests fast. */
  client(options?: ClientOptions): PartnerClient;
  close(): Promise<void>;
}

export const envelope = (data: unknown, meta?: unknown): unknown => (meta === undefined ? { success: true, data } : { success: true, data, meta });

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

/** A loopback server answering scripted routes, with the token exchange built in. */
export async function startResourcesServer(): Promise<ResourcesServer> {
  const handlers = new Map<string, RouteHandler>();
  const requests: SeenRequest[] = [];
  const clients: PartnerClient[] = [];

  const loopback = await listen((request: IncomingMessage, response: ServerResponse) => {
    void (async () => {
      const target = request.url ?? '/';
      const queryAt = target.indexOf('?');
      const path = queryAt === -1 ? target : target.slice(0, queryAt);
      const query = Object.fromEntries(new URLSearchParams(queryAt === -1 ? '' : target.slice(queryAt + 1)));
      const seen: SeenRequest = { method: request.method ?? 'GET', path, query, headers: request.headers, body: await readBody(request) };
      let answer: Answer;
      if (seen.method === 'POST' && path === '/api/v1.1/auth/token') {
        answer = {
          body: envelope(
            { access_token: 'test-token', token_type: 'Bearer', expires_in: 3600, expires_at: new Date(Date.now() + 3_600_000).toISOString() },
            { timezone: 'UTC' },
          ),
        };
      } else {
        requests.push(seen);
        const handler = handlers.get(`${seen.method} ${path}`);
        answer = handler ? await handler(seen) : { status: 404, body: { success: false, error: { code: 'NOT_FOUND', message: 'no such route' } } };
      }
      if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
      if (response.destroyed) return;
      response.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
      response.end(JSON.stringify(answer.body));
    })().catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(String(error));
    });
  });
  const url = loopback.url;

  return {
    url,
    requests,
    handle(method, path, handler) {
      handlers.set(`${method} ${path}`, handler);
    },
    client(options = {}) {
      const client = new PartnerClient({ baseUrl: url, key: 'k', secret: 's', maxRetries: 0, rateLimit: false, ...options });
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((client) => client.close()));
      await loopback.close();
    },
  };
}

/** `count` SIM objects with distinct ICCIDs, as the spec's SIM resource. */
export function makeSims(count: number, offset = 0): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, index) => {
    const n = offset + index;
    return {
      iccid: `8900000000000${String(n).padStart(7, '0')}`,
      phoneNumber: `+1415555${String(n % 10_000).padStart(4, '0')}`,
      status: 'ACTIVE',
      assignedStatus: 'UNASSIGNED',
      isEsim: n % 2 === 0,
      operator: 'Acme',
      network: 'AcmeNet',
      operatorStatus: 'ok',
      createdAt: '2024-01-01T00:00:00.000Z',
    };
  });
}

/** Serves `total` SIMs page by page, with or without meta. */
export function pagedSims(total: number, { withMeta = true, delayMs = 0 } = {}): RouteHandler {
  const all = makeSims(total);
  return (request) => {
    const page = Number(request.query['page'] ?? '1');
    const pageSize = Number(request.query['pageSize'] ?? '20');
    const data = all.slice((page - 1) * pageSize, page * pageSize);
    const meta = { page, pageSize, total, totalPages: Math.ceil(total / pageSize) };
    return { body: envelope(data, withMeta ? meta : undefined), delayMs };
  };
}
