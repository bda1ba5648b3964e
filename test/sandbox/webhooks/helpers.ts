import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { afterEach } from 'vitest';
import { listen } from '../../helpers/server.js';
import type { StartSandboxOptions } from '../../../src/sandbox/index.js';
import { useSandbox, type SandboxSession } from '../helpers.js';

export type Harness = SandboxSession;

/**
 * The file's sandbox, reset before each test, whose clock barely moves on its own (timeScale
 * 1e-6) so retry schedules are driven exactly by advance(); pass a larger timeScale for paced
 * work such as voice streams. The token outlives every advance() of a test.
 */
export function useHarness(options: StartSandboxOptions = {}): Harness {
  return useSandbox({ timeScale: 1e-6, tokenTtlSeconds: 1e9, ...options }, { resetEach: true });
}

interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
}

export interface Receiver {
  url: string;
  received: ReceivedRequest[];
  /** Status answered to the next requests; the last entry repeats. */
  answers: number[];
  /** When set, requests wait for it before answering. */
  hold: Promise<void> | null;
  close(): Promise<void>;
}

/** A loopback HTTP receiver that records every request with its exact bytes. */
export async function startReceiver(answers: number[] = [200]): Promise<Receiver> {
  const receiver: Receiver = { url: '', received: [], answers, hold: null, close: async () => undefined };
  const loopback = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      receiver.received.push({ path: req.url ?? '', headers: req.headers, rawBody: Buffer.concat(chunks).toString('utf8') });
      const status = receiver.answers.length > 1 ? (receiver.answers.shift() ?? 200) : (receiver.answers[0] ?? 200);
      const answer = (): void => {
        res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      };
      if (receiver.hold) void receiver.hold.then(answer);
      else answer();
    });
  });
  receiver.url = loopback.url;
  receiver.close = () => loopback.close();
  return receiver;
}

/** Independent check of spec part 6: v1 = hex HMAC-SHA256 of `<t>.<raw body>` keyed with the secret. */
export function signatureMatches(rawBody: string, header: string | string[] | undefined, secret: string): boolean {
  if (typeof header !== 'string') return false;
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=') as [string, string]));
  const t = parts.t;
  const v1 = parts.v1;
  if (!t || !v1) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  const given = Buffer.from(v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function waitFor(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Receivers started by a test, closed after it. */
export function useReceivers(): (answers?: number[]) => Promise<Receiver> {
  const open: Receiver[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((r) => r.close()));
  });
  return async (answers = [200]) => {
    const receiver = await startReceiver(answers);
    open.push(receiver);
    return receiver;
  };
}

/** Lets in-flight work run a little real time, to show that nothing more happens. */
export const settle = (ms = 60): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
