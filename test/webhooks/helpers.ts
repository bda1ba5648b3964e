import type { RequestListener } from 'node:http';
import { signPayload } from '../../src/webhooks/index.js';

export const secret = `whsec_${'5a'.repeat(32)}`;

/** Serves a WHATWG handler through node:http, as an adapter like @hono/node-server would. */
export function fetchBridge(handler: (request: Request) => Promise<Response>): RequestListener {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers.set(name, value);
        else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
      }
      const method = req.method ?? 'GET';
      const request = new Request(`http://127.0.0.1${req.url ?? '/'}`, {
        method,
        headers,
        ...(method === 'GET' || method === 'HEAD' ? {} : { body: Buffer.concat(chunks) }),
      });
      void handler(request).then(async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.end(Buffer.from(await response.arrayBuffer()));
      });
    });
  };
}

export interface Sent {
  status: number;
  body: Record<string, unknown>;
}

/** POSTs a body signed with `signWith` (default: the shared secret) and returns the parsed answer. */
export async function postSigned(
  url: string,
  body: string,
  options: { signWith?: string; headers?: Record<string, string>; signature?: string } = {},
): Promise<Sent> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-signature': options.signature ?? signPayload(body, options.signWith ?? secret),
      ...options.headers,
    },
    body,
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
