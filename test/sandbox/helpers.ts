import { startSandbox } from '../../src/sandbox/index.js';
import type { SandboxHandle, StartSandboxOptions } from '../../src/sandbox/index.js';

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export interface CallInit {
  token?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
}

/** One plain HTTP call to the sandbox, JSON body parsed when there is one. */
export async function call(sandbox: SandboxHandle, method: string, path: string, init: CallInit = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${sandbox.url}${path}`, {
    method,
    headers,
    ...(init.body !== undefined ? { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // non-JSON bodies (forced HTML) stay text
  }
  return { status: res.status, headers: res.headers, body };
}

export async function tokenFor(sandbox: SandboxHandle, tier: 'admin' | 'standard' = 'admin'): Promise<string> {
  const credentials =
    tier === 'admin' ? { key: sandbox.key, secret: sandbox.secret } : { key: sandbox.standardKey, secret: sandbox.standardSecret };
  const answer = await call(sandbox, 'POST', '/api/v1.1/auth/token', { body: credentials });
  if (answer.status !== 200) throw new Error(`token exchange failed with ${answer.status}`);
  return answer.body.data.access_token as string;
}

/** A sandbox plus an admin token; rate limiting off unless asked for. */
export async function open(options: StartSandboxOptions = {}): Promise<{ sandbox: SandboxHandle; token: string }> {
  const sandbox = await startSandbox({ port: 0, rateLimit: false, ...options });
  return { sandbox, token: await tokenFor(sandbox) };
}
