/** startSandbox: the handler served over node:http on loopback. */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listen } from '../shared/listen.js';
import { exposureWarning, isLoopbackHost } from './bind.js';
import type { Sandbox } from './handler.js';
import { buildSandbox } from './handler.js';
import { hostPolicy } from './middleware/site-guard.js';
import type { SandboxLimits, StartSandboxOptions } from './options.js';
import { resolveListenOptions } from './options.js';
import { pathOfTarget } from './paths.js';

/** A sandbox listening over HTTP, from {@link startSandbox}: where it is, its credentials, and its control methods. */
export interface SandboxHandle extends Sandbox {
  /** Base URL, e.g. http://127.0.0.1:4010 (no trailing slash). */
  url: string;
  /** The port it listens on. */
  port: number;
  /** Admin-tier key. */
  key: string;
  /** Admin-tier secret. */
  secret: string;
  /** Standard-tier key: SMS and port-in submission answer 403. */
  standardKey: string;
  /** Standard-tier secret. */
  standardSecret: string;
}

/**
 * The request body as a pull stream: nothing is read until the handler asks (after the bearer
 * check), and only as far as it asks (the body size cap). Between pulls no listener stays on the
 * request, so a body the handler leaves unread can be discarded by node:http after the answer.
 */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        return new Promise<void>((resolve, reject) => {
          const cleanup = (): void => {
            req.off('readable', attempt);
            req.off('end', onEnd);
            req.off('error', onError);
          };
          const onEnd = (): void => {
            cleanup();
            controller.close();
            resolve();
          };
          const onError = (error: Error): void => {
            cleanup();
            reject(error);
          };
          function attempt(): void {
            const chunk = req.read() as Buffer | null;
            if (chunk !== null) {
              cleanup();
              controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
              resolve();
            } else if (req.readableEnded) {
              onEnd();
            }
          }
          req.on('readable', attempt);
          req.on('end', onEnd);
          req.on('error', onError);
          attempt();
        });
      },
    },
    { highWaterMark: 0 },
  );
}

function toHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i];
    const value = req.rawHeaders[i + 1];
    if (name !== undefined && value !== undefined && !name.startsWith(':')) headers.append(name, value);
  }
  return headers;
}

/**
 * Server-sent events (the inspector's feed) are written as they come, never buffered whole, and
 * no faster than the client reads: while the socket is full nothing more is pulled, so what a
 * client that stops reading costs piles up in the feed's queue, where the feed counts it and
 * drops the client past its cap (FEED_MAX_QUEUED_BYTES). A dropped client's socket is destroyed:
 * ending it would wait for the client to read what is still buffered.
 */
async function streamEvents(
  body: ReadableStream<Uint8Array>,
  res: ServerResponse,
  headers: Record<string, string | string[]>,
  status: number,
): Promise<void> {
  const reader = body.getReader();
  let wake = (): void => undefined;
  // The feed dropped this client or closed: stop waiting for the socket to drain.
  reader.closed.then(
    () => wake(),
    () => wake(),
  );
  res.once('close', () => {
    wake();
    // The client went away: cancelling the body unsubscribes it from the feed.
    void reader.cancel().catch(() => undefined);
  });
  const drained = (): Promise<void> =>
    new Promise<void>((resolve) => {
      const done = (): void => {
        res.off('drain', done);
        wake = () => undefined;
        resolve();
      };
      wake = done;
      res.once('drain', done);
    });
  res.writeHead(status, headers);
  res.flushHeaders();
  for (;;) {
    const read = await reader.read().then(
      (result) => result,
      () => undefined,
    );
    if (read === undefined) {
      res.destroy();
      return;
    }
    if (read.done || res.destroyed) break;
    if (!res.write(read.value)) await drained();
  }
  res.end();
}

async function serve(sandbox: Sandbox, origin: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const target = req.url ?? '/';
  const method = req.method ?? 'GET';
  // RFC 9112 section 6.3: a request without Transfer-Encoding or Content-Length has no body.
  const hasBody =
    method !== 'GET' && method !== 'HEAD' && (req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined);
  const request = new Request(new URL(target, origin), {
    method,
    headers: toHeaders(req),
    ...(hasBody ? { body: bodyStream(req), duplex: 'half' } : {}),
  });
  // The raw request-target keeps %2E%2E segments that URL parsing would fold away. An
  // absolute-form target (`GET http://host/api/… HTTP/1.1`, which RFC 9112 section 3.2.2 says a
  // server must accept) is served by its path; its host is not ours to check on loopback.
  const rawPath = pathOfTarget(target);
  const response = await sandbox.handler(request, { rawPath });
  if (response.type === 'error') {
    req.socket.destroy();
    return;
  }
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name === 'set-cookie') return;
    headers[name] = value;
  });
  if (response.body && response.headers.get('content-type')?.startsWith('text/event-stream')) {
    await streamEvents(response.body, res, headers, response.status);
    return;
  }
  const payload = Buffer.from(await response.arrayBuffer());
  headers['content-length'] = String(payload.length);
  if (hasBody && !req.complete) {
    // A body left unread (401 before reading, 413 over the cap): the answer goes out whole at
    // once and says the connection closes, but the socket closes only once the sender has
    // finished (or passed a bound). Closing with unread bytes pending would reset the
    // connection, and a sender still writing would see EPIPE instead of reading the answer.
    headers.connection = 'close';
    res.writeHead(response.status, headers);
    res.write(payload);
    await discardRest(req, sandbox.ctx.options.limits);
    res.end();
    return;
  }
  res.writeHead(response.status, headers);
  res.end(method === 'HEAD' ? undefined : payload);
}

/**
 * Reads and drops the rest of a request body; resolves at its end, on an error, or past either
 * bound (`limits.maxDiscardBytes`, `limits.discardTimeoutMs`).
 */
function discardRest(req: IncomingMessage, { maxDiscardBytes, discardTimeoutMs }: SandboxLimits): Promise<void> {
  return new Promise((resolve) => {
    let discarded = 0;
    const done = (): void => {
      clearTimeout(timer);
      req.off('data', count);
      req.off('end', done);
      req.off('error', done);
      req.off('close', done);
      resolve();
    };
    const count = (chunk: Buffer): void => {
      discarded += chunk.byteLength;
      if (discarded > maxDiscardBytes) done();
    };
    const timer = setTimeout(done, discardTimeoutMs);
    timer.unref();
    req.on('data', count);
    req.on('end', done);
    req.on('error', done);
    req.on('close', done);
    req.resume();
  });
}

/**
 * Starts a sandbox listening on 127.0.0.1 (a free port unless `port` is given). Close it with
 * `close()`. Same seed, same data; its `url`, `key` and `secret` go to a `PartnerClient`.
 * It answers only requests whose `Host` is loopback, `host` or one of `allowedHosts`, and its
 * control routes refuse requests a browser sent from a page of another origin.
 *
 * Rejects, before anything listens, with a `TypeError` (a value of the wrong type, an unknown
 * option) or a `RangeError` (a value out of range, a `host` off loopback without
 * `exposeOnNetwork`) naming the option; with the listen error when the port is in use.
 *
 * @example
 * ```ts
 * import { PartnerClient } from 'mobile-partner-sdk';
 * import { startSandbox } from 'mobile-partner-sdk/sandbox';
 *
 * const sandbox = await startSandbox();
 * const client = new PartnerClient({ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret });
 * const subscription = await client.sims.retrieveSubscription(sandbox.fixtures.physicalIccid);
 * console.log(subscription);
 * await client.close();
 * await sandbox.close();
 * ```
 */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<SandboxHandle> {
  // Every option is checked, and a host off loopback refused, before anything is created or listens.
  const { listen: where, sandbox: sandboxOptions } = resolveListenOptions(options);
  const host = where.host;
  const sandbox = buildSandbox(sandboxOptions, hostPolicy(host, where.allowedHosts));
  let origin = `http://${host}`;
  const server = createServer((req, res) => {
    serve(sandbox, origin, req, res).catch(() => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ success: false, error: { code: 'INTERNAL_ERROR', message: 'Unexpected sandbox error' } }));
      } else {
        res.destroy();
      }
    });
  });
  const { port, urlHost, address } = await listen(server, where.port, host).catch(async (error: unknown) => {
    // A port in use or an address not of this machine: nothing of the sandbox may outlive the failure.
    await sandbox.close();
    throw error;
  });
  origin = `http://${urlHost}:${port}`;
  if (!isLoopbackHost(host)) {
    process.emitWarning(exposureWarning(host, address, port), { type: 'SandboxExposedWarning', code: 'PARTNER_SANDBOX_EXPOSED' });
  }

  let closing: Promise<void> | undefined;
  const handle: SandboxHandle = Object.assign(Object.create(null) as object, sandbox, {
    url: origin,
    port,
    key: sandbox.credentials.key,
    secret: sandbox.credentials.secret,
    standardKey: sandbox.credentials.standardKey,
    standardSecret: sandbox.credentials.standardSecret,
    close(): Promise<void> {
      closing ??= (async () => {
        await sandbox.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closing;
    },
  });
  Object.defineProperty(handle, 'fixtures', { get: () => sandbox.fixtures, enumerable: true });
  return handle;
}
