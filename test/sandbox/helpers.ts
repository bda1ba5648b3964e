import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach } from 'vitest';
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
  const credentials = tier === 'admin' ? { key: sandbox.key, secret: sandbox.secret } : { key: sandbox.standardKey, secret: sandbox.standardSecret };
  const answer = await call(sandbox, 'POST', '/api/v1.1/auth/token', { body: credentials });
  if (answer.status !== 200) throw new Error(`token exchange failed with ${answer.status}`);
  return answer.body.data.access_token as string;
}

/** A sandbox plus an admin token; rate limiting off unless asked for. */
export async function open(options: StartSandboxOptions = {}): Promise<{ sandbox: SandboxHandle; token: string }> {
  const sandbox = await startSandbox({ port: 0, rateLimit: false, ...options });
  return { sandbox, token: await tokenFor(sandbox) };
}

/** One sandbox shared by the tests of a file, with shorthands for the calls they make. */
export interface SandboxSession {
  readonly sandbox: SandboxHandle;
  /** Admin bearer; reassign after a test revokes or expires it. */
  token: string;
  /** A partner-API call carrying the admin bearer. */
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  get(path: string): Promise<Answer>;
  post(path: string, body?: unknown): Promise<Answer>;
  /** A control-API call (no auth). */
  control(method: string, path: string, body?: unknown): Promise<Answer>;
  /** Moves the sandbox clock forward. */
  advance(ms: number): Promise<void>;
  /** Side-effect counters of GET /_sandbox/stats. */
  counters(): Promise<Record<string, number>>;
}

/**
 * Starts one sandbox before the file's tests and closes it after them (rate limiting off unless
 * asked for). With `resetEach`, POST /_sandbox/reset runs before every test so each starts from
 * the seeded state.
 */
export function useSandbox(options: StartSandboxOptions = {}, hooks: { resetEach?: boolean } = {}): SandboxSession {
  let current: SandboxHandle | undefined;
  const started = (): SandboxHandle => {
    if (!current) throw new Error('the sandbox starts in beforeAll');
    return current;
  };
  const session: SandboxSession = {
    get sandbox() {
      return started();
    },
    token: '',
    api: (method, path, body, headers) => call(started(), method, path, { token: session.token, body, ...(headers ? { headers } : {}) }),
    get: (path) => session.api('GET', path),
    post: (path, body) => session.api('POST', path, body),
    control: (method, path, body) => call(started(), method, path, { body }),
    async advance(ms) {
      const answer = await session.control('POST', '/_sandbox/time', { advanceMs: ms });
      if (answer.status !== 200) throw new Error(`advance failed: ${answer.status}`);
    },
    counters: async () => (await session.control('GET', '/_sandbox/stats')).body.counters as Record<string, number>,
  };
  beforeAll(async () => {
    ({ sandbox: current, token: session.token } = await open(options));
  });
  afterAll(async () => {
    await current?.close();
  });
  if (hooks.resetEach) {
    beforeEach(async () => {
      await session.control('POST', '/_sandbox/reset');
    });
  }
  return session;
}

/**
 * What a started `partner-sandbox` command printed up to its banner's last line ("Ctrl-C"); rejects
 * with what it printed (stderr included) when it exits first or prints no banner in time.
 */
export function bannerOf(child: ChildProcessByStdio<null, Readable, Readable>, timeoutMs = 20_000): Promise<string> {
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner: ${out}${err}`)), timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ctrl-C')) {
        clearTimeout(timer);
        resolve(out);
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`exited early: ${out}${err}`));
    });
  });
}
