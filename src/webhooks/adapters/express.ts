import type { IncomingMessage, ServerResponse } from 'node:http';
import { WebhookHandlerError } from '../handler-error.js';
import { checkHandlerOptions, report, type DeliveryAnswer, type WebhookHandlerOptions } from './deliver.js';
import { handleNodeRequest, writeAnswer } from './node.js';

/** The parts of an Express request the middleware reads; body parsers add `body` or `rawBody`. */
export type ExpressLikeRequest = IncomingMessage & { body?: unknown; rawBody?: unknown };

/**
 * The message of the error the Express middleware raises when a JSON parser consumed the body
 * before it: the signature covers the raw bytes, so the route needs `express.raw()`.
 */
export const RAW_BODY_MISSING_MESSAGE =
  'the webhook route received a body already parsed as JSON, and the raw bytes the signature covers are gone. ' +
  'Mount express.raw({ type: "application/json" }) on the webhook route before the JSON parser, or keep the ' +
  'bytes with express.json({ verify: (req, res, buf) => { req.rawBody = buf } }).';

function isRaw(value: unknown): value is string | Uint8Array {
  return typeof value === 'string' || value instanceof Uint8Array;
}

/**
 * Express (and Connect-style) middleware for webhook deliveries. It works whatever ran before it:
 * - `req.rawBody` (kept by a `verify` hook of express.json) is used first;
 * - then a raw `req.body` (express.raw or express.text);
 * - when no parser read the request, it reads it itself, even if `req.body` was set (Express 4's
 *   body-parser sets `req.body = {}` for a content type it skips, without reading);
 * - a parsed object with no raw bytes is answered 500 with how to fix the route — a server
 *   configuration problem, answered so that the service keeps retrying until it is fixed.
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { webhookMiddleware } from 'mobile-partner-sdk/webhooks';
 *
 * const app = express();
 * const secret = process.env.WEBHOOK_SIGNING_SECRET ?? '';
 * app.post('/webhooks', express.raw({ type: 'application/json' }), webhookMiddleware({ secret, onEvent: (event) => console.log(event.type) }));
 * ```
 */
export function webhookMiddleware(
  options: WebhookHandlerOptions,
): (req: ExpressLikeRequest, res: ServerResponse, next: (error?: unknown) => void) => Promise<void> {
  checkHandlerOptions(options, 'webhookMiddleware');
  return async (req, res, next) => {
    try {
      if (isRaw(req.rawBody)) return await handleNodeRequest(req, res, options, req.rawBody);
      if (isRaw(req.body)) return await handleNodeRequest(req, res, options, req.body);
      if (!req.readableEnded) return await handleNodeRequest(req, res, options);
      const answer: DeliveryAnswer = { status: 500, body: { error: 'raw_body_unavailable', message: RAW_BODY_MISSING_MESSAGE } };
      report(options, new WebhookHandlerError('body', RAW_BODY_MISSING_MESSAGE));
      writeAnswer(res, answer);
    } catch (error) {
      next(error);
    }
  };
}
