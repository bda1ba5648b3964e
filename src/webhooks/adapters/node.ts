import type { IncomingMessage, ServerResponse } from 'node:http';
import { constructEvent } from '../events.js';
import {
  answers,
  checkHandlerOptions,
  declaredLength,
  deliver,
  DEFAULT_MAX_BODY_BYTES,
  type DeliveryAnswer,
  type WebhookHandlerOptions,
} from './deliver.js';

class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
}

/** Collects a Node request body up to `maxBytes`, refusing early on a too-large Content-Length. */
function readNodeBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = declaredLength(req.headers['content-length']);
    if (declared !== undefined && declared > maxBytes) {
      req.resume();
      reject(new BodyTooLargeError(`body of ${declared} bytes exceeds ${maxBytes}`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        req.off('data', onData);
        req.resume();
        reject(new BodyTooLargeError(`body exceeds ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, size)));
    req.once('error', reject);
  });
}

export function writeAnswer(res: ServerResponse, answer: DeliveryAnswer, extraHeaders: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const payload = JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
    ...extraHeaders,
  });
  res.end(payload);
}

/** Reads the body (bounded), then verifies and answers; shared by the Node and Express adapters. */
export async function handleNodeRequest(
  req: IncomingMessage,
  res: ServerResponse,
  options: WebhookHandlerOptions,
  rawBody?: string | Uint8Array,
): Promise<void> {
  let body = rawBody;
  if (body === undefined) {
    try {
      body = await readNodeBody(req, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        writeAnswer(res, answers.tooLarge, { connection: 'close' });
      } else {
        // The client went away mid-body; there is no one left to answer.
        res.destroy();
      }
      return;
    }
  }
  writeAnswer(res, await deliver(body, req.headers, options, constructEvent));
}

/**
 * A `node:http` request listener for webhook deliveries: reads the raw body itself, answers
 * 200 once `onEvent` has handled the event (see `awaitHandler`), 400 on a bad signature, 405
 * for other methods than POST, 413 above `maxBodyBytes`, 500 when `onEvent` throws.
 *
 * @example
 * ```ts
 * import http from 'node:http';
 * import { createNodeHandler, type WebhookEvent } from 'mobile-partner-sdk/webhooks';
 *
 * const queue: WebhookEvent[] = [];
 * const secret = process.env.WEBHOOK_SIGNING_SECRET ?? '';
 * http.createServer(createNodeHandler({ secret, onEvent: (event) => queue.push(event) })).listen(3000);
 * ```
 */
export function createNodeHandler(options: WebhookHandlerOptions): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  checkHandlerOptions(options, 'createNodeHandler');
  return async (req, res) => {
    if (req.method !== 'POST') {
      req.resume();
      writeAnswer(res, answers.methodNotAllowed, { allow: 'POST' });
      return;
    }
    await handleNodeRequest(req, res, options);
  };
}
