/**
 * A sender of an oversized body always reads the answer (413, or 401 before the body is read),
 * never a reset: the sandbox answers, then reads and discards the rest of the body up to a bound
 * before it closes. Raw sockets, so that nothing between the test and the sandbox hides a reset;
 * each case runs many times to catch the race between the answer and the close.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { tokenFor } from './helpers.js';

const CAP = 1024;
const BODY_BYTES = 2 * 1024 * 1024;
const ROUNDS = 25;

let sandbox: SandboxHandle;
let token: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false, limits: { maxBodyBytes: CAP } });
  token = await tokenFor(sandbox);
});
afterAll(async () => {
  await sandbox?.close();
});

type Framing = 'content-length' | 'chunked' | 'content-length, slowly';

interface Outcome {
  status: number | undefined;
  error: string | undefined;
}

/** Sends `POST path` with a body of BODY_BYTES, writing as fast as the socket takes it, and reads the answer's status line. */
function send(path: string, framing: Framing, bearer: string | undefined): Promise<Outcome> {
  const { port } = new URL(sandbox.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    let error: string | undefined;
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1];
      resolve({ status: status === undefined ? undefined : Number(status), error });
      socket.destroy();
    };
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    socket.on('error', (caught: NodeJS.ErrnoException) => {
      error = caught.code ?? caught.message;
      finish();
    });
    socket.on('close', finish);
    const write = async (): Promise<void> => {
      const chunked = framing === 'chunked';
      socket.write(
        [
          `POST ${path} HTTP/1.1`,
          'Host: 127.0.0.1',
          'Content-Type: application/json',
          ...(bearer ? [`Authorization: Bearer ${bearer}`] : []),
          chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${BODY_BYTES}`,
          '',
          '',
        ].join('\r\n'),
      );
      const piece = Buffer.alloc(64 * 1024, 0x20);
      for (let sent = 0; sent < BODY_BYTES && !socket.destroyed; sent += piece.length) {
        const data = chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece;
        if (!socket.write(data)) await new Promise((drained) => socket.once('drain', drained));
        if (framing === 'content-length, slowly') await new Promise((later) => setImmediate(later));
      }
      if (chunked && !socket.destroyed) socket.write('0\r\n\r\n');
      if (!socket.destroyed) socket.end();
    };
    socket.on('connect', () => void write());
  });
}

const cases: { route: string; path: string; bearer: () => string | undefined; status: number }[] = [
  { route: 'an authenticated route', path: '/api/v1.1/sms', bearer: () => token, status: 413 },
  { route: 'an authenticated route without a bearer', path: '/api/v1.1/sms', bearer: () => undefined, status: 401 },
  { route: 'the token exchange', path: '/api/v1.1/auth/token', bearer: () => undefined, status: 413 },
  { route: 'an open route', path: '/api/v1.1/port-in/eligibility', bearer: () => undefined, status: 413 },
  { route: 'a control route', path: '/_sandbox/force', bearer: () => undefined, status: 413 },
];

describe('an oversized body', () => {
  for (const { route, path, bearer, status } of cases) {
    for (const framing of ['content-length', 'chunked', 'content-length, slowly'] as const) {
      it(`to ${route}, ${framing}: the sender reads ${status} every time`, async () => {
        const outcomes: Outcome[] = [];
        for (let round = 0; round < ROUNDS; round += 1) outcomes.push(await send(path, framing, bearer()));
        expect(outcomes.filter((outcome) => outcome.status !== status)).toEqual([]);
      }, 60_000);
    }
  }
});

describe('the bounds on what is thrown away', () => {
  it('closes the connection at limits.discardTimeoutMs when the sender stops writing mid-body, after the 413', async () => {
    // The default bound (10 s) would outlast this test's own timeout: only the option ends it.
    const strict = await startSandbox({ port: 0, rateLimit: false, limits: { maxBodyBytes: CAP, discardTimeoutMs: 50 } });
    try {
      const socket = connect(Number(new URL(strict.url).port), '127.0.0.1');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      socket.on('connect', () => {
        socket.write(
          ['POST /_sandbox/force HTTP/1.1', 'Host: 127.0.0.1', 'Content-Type: application/json', `Content-Length: ${BODY_BYTES}`, '', ''].join(
            '\r\n',
          ),
        );
        socket.write(Buffer.alloc(4 * CAP, 0x20));
        // ...and nothing more: the sender holds the rest of its body.
      });
      await closed;
      expect(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1]).toBe('413');
    } finally {
      await strict.close();
    }
  }, 5_000);

  it('closes the connection once limits.maxDiscardBytes are thrown away, though the sender goes on', async () => {
    const strict = await startSandbox({ port: 0, rateLimit: false, limits: { maxBodyBytes: CAP, maxDiscardBytes: 64 * 1024 } });
    try {
      const outcome = await new Promise<{ status: string | undefined; sentBytes: number }>((resolve) => {
        const socket = connect(Number(new URL(strict.url).port), '127.0.0.1');
        let received = '';
        let sentBytes = 0;
        socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
        socket.on('error', () => undefined);
        socket.on('close', () => resolve({ status: /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1], sentBytes }));
        const write = async (): Promise<void> => {
          socket.write(
            ['POST /_sandbox/force HTTP/1.1', 'Host: 127.0.0.1', 'Content-Type: application/json', `Content-Length: ${BODY_BYTES}`, '', ''].join(
              '\r\n',
            ),
          );
          const piece = Buffer.alloc(16 * 1024, 0x20);
          while (!socket.destroyed && sentBytes < BODY_BYTES) {
            sentBytes += piece.length;
            if (!socket.write(piece)) await new Promise((drained) => socket.once('drain', drained));
            await new Promise((later) => setImmediate(later));
          }
        };
        socket.on('connect', () => void write());
      });
      expect(outcome.status).toBe('413');
      // The sandbox closed before the whole body was sent: it stopped reading at the bound.
      expect(outcome.sentBytes).toBeLessThan(BODY_BYTES);
    } finally {
      await strict.close();
    }
  }, 20_000);
});
