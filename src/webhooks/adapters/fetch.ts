import { constructEventAsync } from '../events-async.js';
import {
  answers,
  checkHandlerOptions,
  declaredLength,
  deliver,
  DEFAULT_MAX_BODY_BYTES,
  type DeliveryAnswer,
  type WebhookHandlerOptions,
} from './deliver.js';

function respond(answer: DeliveryAnswer, extraHeaders: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(answer.body), {
    status: answer.status,
    headers: { 'content-type': 'application/json', ...extraHeaders },
  });
}

/** The body as bytes, or undefined once it passes `maxBytes` (the rest is not read). */
async function readLimited(request: Request, maxBytes: number): Promise<Uint8Array | undefined> {
  const declared = declaredLength(request.headers.get('content-length'));
  if (declared !== undefined && declared > maxBytes) return undefined;
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  if (chunks.length === 1 && chunks[0]) return chunks[0];
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * A WHATWG handler, `(request) => Promise<Response>`, for Next.js route handlers, Hono, Bun,
 * Deno and Cloudflare Workers. Same answers as the Node adapter. It verifies with Web Crypto
 * (`constructEventAsync`) and loads no Node module, so it runs unchanged outside Node.
 *
 * @example
 * ```ts
 * // app/api/webhooks/route.ts (Next.js App Router)
 * import { createFetchHandler } from 'mobile-partner-sdk/webhooks';
 *
 * export const POST = createFetchHandler({
 *   secret: process.env.WEBHOOK_SIGNING_SECRET ?? '',
 *   onEvent: (event) => console.log(event.type),
 * });
 * ```
 */
export function createFetchHandler(options: WebhookHandlerOptions): (request: Request) => Promise<Response> {
  checkHandlerOptions(options, 'createFetchHandler');
  return async (request) => {
    if (request.method !== 'POST') return respond(answers.methodNotAllowed, { allow: 'POST' });
    const body = await readLimited(request, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
    if (body === undefined) return respond(answers.tooLarge);
    return respond(await deliver(body, request.headers, options, constructEventAsync));
  };
}
