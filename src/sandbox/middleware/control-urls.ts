/**
 * The control API shows URLs a partner registered (voice-quality webhooks, voice streams, forced
 * rules, request bodies): each with its user-info masked, on every /_sandbox/ JSON answer, so a
 * route added later cannot show a receiver's password.
 */
import type { MiddlewareHandler } from 'hono';
import type { SandboxEnv } from '../context.js';
import { hasUnmaskedUserInfo, maskJsonStrings } from '../mask-url.js';

export const maskControlUrls: MiddlewareHandler<SandboxEnv> = async (c, next) => {
  await next();
  const res = c.res;
  if (res.body === null || !/\bjson\b/i.test(res.headers.get('content-type') ?? '')) return;
  const text = await res.text();
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  const body = hasUnmaskedUserInfo(text) ? JSON.stringify(JSON.parse(text, maskJsonStrings)) : text;
  c.res = new Response(body, { status: res.status, statusText: res.statusText, headers });
};
