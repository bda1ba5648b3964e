import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the test server saw. `path` is the raw request target, query included, never normalised. */
export interface RecordedRequest {
  method: string;
  path: string;
  /** `METHOD /path` without the query. */
  route: string;
  headers: Record<string, string>;
  body: string;
  /** performance.now() when the request arrived. */
  at: number;
  /** Date.now() when the request arrived (for HTTP-date headers). */
  date: number;
  /** performance.now() when the answer was written; undefined while none was. */
  answeredAt: number | undefined;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** Serialised as JSON. */
  json?: unknown;
  /** Sent verbatim (HTML pages, truncated JSON). */
  raw?: string;
  /** Wait before answering. */
  delayMs?: number;
  /** Never answer (the client must time out or abort). */
  hang?: boolean;
  /** Declare the whole body's length, send only this many bytes, then drop the connection. */
  cutAfterBytes?: number;
}

export type Responder = Reply | ((request: RecordedRequest, count: number) => Reply | Promise<Reply>);

export const ok = (data: unknown, extra: Omit<Reply, 'json'> & { meta?: unknown } = {}): Reply => {
  const { meta, ...reply } = extra;
  return { status: 200, ...reply, json: meta === undefined ? { success: true, data } : { success: true, data, meta } };
};

export const fail = (status: number, code: string, extra: Omit<Reply, 'json' | 'status'> & { message?: string; details?: unknown } = {}): Reply => {
  const { message, details, ...reply } = extra;
  return {
    status,
    ...reply,
    json: { success: false, error: { code, message: message ?? code.toLowerCase(), ...(details ? { details } : {}) } },
  };
};

export interface TestServer {
  url: string;
  requests: RecordedRequest[];
  /** Script a route: one reply for every call, a list consumed in order (the last one repeats), or a function. */
  on(route: string, responder: Responder | Responder[]): void;
  requestsTo(route: string): RecordedRequest[];
  /** Token exchanges seen. */
  readonly exchanges: number;
  /** TCP connections accepted (keep-alive reuses one). */
  readonly connections: number;
  close(): Promise<void>;
}

export const TOKEN_ROUTE = 'POST /api/v1.1/auth/token';

/** A token response in the envelope (spec part 2), valid for `ttlSeconds` from now. */
export function tokenAnswer(accessToken = 'tok-1-a8f3c2e1d4b5', ttlSeconds = 3600): Reply {
  return {
    status: 200,
    json: {
      success: true,
      data: {
        access_token: accessToken,
        token_type: 'Bearer',
        expires_in: ttlSeconds,
        expires_at: new Date(Date.now() + ttlSeconds * 1000).toISOString(),
      },
      meta: { timezone: 'UTC' },
    },
  };
}

/** A token reply; each exchange gets a distinct, recognisable token. */
export function tokenReply(ttlSeconds = 3600): Responder {
  return (_request, count) => tokenAnswer(`tok-${count}-a8f3c2e1d4b5`, ttlSeconds);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** A node:http server on 127.0.0.1 at a free port: the one way tests start a local HTTP server. */
export interface Loopback {
  url: string;
  server: Server;
  /** TCP connections accepted (keep-alive reuses one). */
  readonly connections: number;
  /** Cuts every open connection and stops listening. */
  close(): Promise<void>;
}

/** Serves `listener` on 127.0.0.1 at a free port. A listener may be async; its promise is its own to settle. */
export async function listen(listener: (request: IncomingMessage, response: ServerResponse) => unknown): Promise<Loopback> {
  const server: Server = createServer((request, response) => void listener(request, response));
  let connections = 0;
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The URL of a loopback port nothing listens on: connections to it are refused. */
export async function refusedUrl(): Promise<string> {
  const probe = await listen(() => undefined);
  await probe.close();
  return probe.url;
}

/** A programmable node:http server on 127.0.0.1 with a random port. Default: tokens, and 404 elsewhere. */
export async function startTestServer(): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const routes = new Map<string, { responders: Responder[]; count: number }>();
  const on = (route: string, responder: Responder | Responder[]): void => {
    routes.set(route, { responders: Array.isArray(responder) ? responder : [responder], count: 0 });
  };
  on(TOKEN_ROUTE, tokenReply());

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const body = await readBody(request);
    const path = request.url ?? '/';
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const recorded: RecordedRequest = {
      method: request.method ?? 'GET',
      path,
      route: `${request.method} ${path.split('?')[0]}`,
      headers,
      body,
      at: performance.now(),
      date: Date.now(),
      answeredAt: undefined,
    };
    requests.push(recorded);
    const entry = routes.get(recorded.route);
    let reply: Reply;
    if (!entry) {
      reply = fail(404, 'NOT_FOUND');
    } else {
      entry.count += 1;
      const responder = entry.responders[Math.min(entry.count, entry.responders.length) - 1] as Responder;
      reply = typeof responder === 'function' ? await responder(recorded, entry.count) : responder;
    }
    if (reply.hang) return;
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    const text = reply.raw ?? (reply.json === undefined ? '' : JSON.stringify(reply.json));
    response.writeHead(reply.status ?? 200, {
      'content-type': reply.raw !== undefined ? 'text/html' : 'application/json',
      'content-length': String(Buffer.byteLength(text)),
      ...reply.headers,
    });
    recorded.answeredAt = performance.now();
    if (reply.cutAfterBytes !== undefined) {
      response.write(text.slice(0, reply.cutAfterBytes), () => response.destroy());
      return;
    }
    response.end(text);
  };

  const loopback = await listen((request, response) => handle(request, response).catch(() => response.destroy()));

  return {
    url: loopback.url,
    requests,
    on,
    requestsTo: (route) => requests.filter((request) => request.route === route),
    get connections() {
      return loopback.connections;
    },
    get exchanges() {
      return requests.filter((request) => request.route === TOKEN_ROUTE).length;
    },
    close: () => loopback.close(),
  };
}

/**
 * A loopback server that answers the token exchange on a connection it then closes, and stops
 * listening: every request after the token is refused, provably never sent.
 */
export async function refusedAfterToken(): Promise<Loopback> {
  const loopback: Loopback = await listen((request, response) => {
    request.resume();
    request.on('end', () => {
      const text = JSON.stringify(tokenAnswer().json);
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), connection: 'close' }).end(text);
      loopback.server.close();
    });
  });
  return loopback;
}

/** The X-RateLimit headers of an answer (spec part 8 rule 2). */
export function rateLimitHeaders(limit: number, remaining: number, resetSeconds: number): Record<string, string> {
  return {
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String(resetSeconds),
  };
}

/**
 * A rate limit of `limit` per fixed window on the clock (multiples of `windowMs` of the server's
 * `performance.now()`), where another client of the account sends the first request of every
 * window but the first one this client meets. Its answers carry the X-RateLimit headers; a full
 * window answers 429 with a Retry-After, counted in `refused()`.
 */
export function clockWindows(limit: number, windowMs: number): { reply: (request: RecordedRequest) => Reply; refused: () => number } {
  const used = new Map<number, number>();
  let first: number | undefined;
  let refused = 0;
  const reply = (request: RecordedRequest): Reply => {
    const index = Math.floor(request.at / windowMs);
    first ??= index;
    const count = used.get(index) ?? (index === first ? 0 : 1);
    const resetSeconds = Math.ceil(((index + 1) * windowMs - request.at) / 1000);
    if (count >= limit) {
      refused += 1;
      return fail(429, 'RATE_LIMITED', { headers: { 'retry-after': String(resetSeconds) } });
    }
    used.set(index, count + 1);
    return ok(1, { headers: rateLimitHeaders(limit, limit - 1 - count, resetSeconds) });
  };
  return { reply, refused: () => refused };
}
