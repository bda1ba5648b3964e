/**
 * The parsing edge of request bodies. It runs after the bearer check, so an unauthenticated
 * request is answered 401 without its body being read, and it reads at most
 * `limits.maxBodyBytes`: a declared Content-Length over the cap is refused unread, and a body
 * without one is counted while it streams in and refused as soon as it passes the cap. A JSON
 * body nested deeper than `limits.maxJsonDepth` is refused before it is parsed. Past this edge,
 * `rawBody` is the text and `body` the parsed value (undefined when there was none).
 */
import type { MiddlewareHandler } from 'hono';
import { parseDigits } from '../../shared/http-grammar.js';
import type { SandboxContext, SandboxCtx, SandboxEnv } from '../context.js';
import { jsonDepthExceeds } from '../json-depth.js';

type Read = { ok: true; bytes: Uint8Array } | { ok: false };

/** Reads the stream up to `cap` bytes; stops reading (and releases the stream) once past it. */
async function readCapped(stream: ReadableStream<Uint8Array>, cap: number): Promise<Read> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > cap) {
        void reader.cancel().catch(() => undefined);
        return { ok: false };
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { ok: true, bytes };
}

const isControl = (c: SandboxCtx): boolean => c.get('rawPath').startsWith('/_sandbox/');

/** Control routes answer plain JSON `{ error, issues }`; the partner API its error envelope. */
function refuse(ctx: SandboxContext, c: SandboxCtx, status: 400 | 413, message: string, issue: string): Response {
  if (isControl(c)) return Response.json({ error: 'invalid body', issues: [`body: ${issue}`] }, { status });
  return ctx.fail(c, status, 'VALIDATION_ERROR', message, { validationErrors: [issue] });
}

export function bodyReader(ctx: SandboxContext): MiddlewareHandler<SandboxEnv> {
  return async (c, next) => {
    const { maxBodyBytes, maxJsonDepth } = ctx.options.limits;
    const tooLarge = (): Response => refuse(ctx, c, 413, 'Request body too large', `body must be at most ${maxBodyBytes} bytes`);
    c.set('rawBody', '');
    c.set('body', undefined);
    c.set('bodyNote', null);
    const stream = c.req.raw.body;
    if (c.req.method === 'GET' || c.req.method === 'HEAD' || !stream) return next();

    const declared = parseDigits(c.req.header('content-length'));
    if (declared !== undefined && declared > maxBodyBytes) {
      c.set('bodyNote', `[not read: ${declared} bytes declared, over the ${maxBodyBytes}-byte cap]`);
      return tooLarge();
    }
    const read = await readCapped(stream, maxBodyBytes);
    if (!read.ok) {
      c.set('bodyNote', `[not read: over the ${maxBodyBytes}-byte cap]`);
      return tooLarge();
    }
    const rawBody = new TextDecoder().decode(read.bytes);
    c.set('rawBody', rawBody);
    if (rawBody.trim() === '') return next();
    if (jsonDepthExceeds(rawBody, maxJsonDepth)) {
      c.set('bodyNote', `[not parsed: nested deeper than ${maxJsonDepth}]`);
      return refuse(ctx, c, 400, 'Body is nested too deeply', `body must not nest arrays and objects deeper than ${maxJsonDepth}`);
    }
    try {
      c.set('body', JSON.parse(rawBody) as unknown);
    } catch {
      // Unparsed text cannot be redacted field by field, so only its size is shown.
      c.set('bodyNote', `[not JSON: ${read.bytes.byteLength} bytes]`);
      return refuse(ctx, c, 400, 'Body is not valid JSON', 'body must be valid JSON');
    }
    return next();
  };
}
