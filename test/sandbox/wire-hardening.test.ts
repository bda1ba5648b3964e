import { connect } from 'node:net';
import { Agent, request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { useSandbox } from './helpers.js';

const s = useSandbox();

interface RawAnswer {
  status: number;
  body: any;
}

/**
 * Sends `text` byte for byte over a fresh TCP connection and collects every answer until the
 * server closes it (each request here ends with Connection: close, or is one the server refuses).
 */
function rawHttp(text: string): Promise<RawAnswer[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(s.sandbox.port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const answers: RawAnswer[] = [];
      for (const part of received.split(/(?=HTTP\/1\.1 \d{3} )/)) {
        const status = /^HTTP\/1\.1 (\d{3})/.exec(part);
        if (!status) continue;
        const body = part.split('\r\n\r\n').slice(1).join('\r\n\r\n');
        let parsed: unknown = body;
        try {
          parsed = JSON.parse(body);
        } catch {
          // a bare 400 from the HTTP parser has no JSON body
        }
        answers.push({ status: Number(status[1]), body: parsed });
      }
      resolve(answers);
    });
    socket.end(text);
  });
}

const get = (target: string, headers = ''): string => `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}Connection: close\r\n\r\n`;
const bearer = (): string => `Authorization: Bearer ${s.token}\r\n`;

describe('path traversal never reaches another route or skips auth', () => {
  it('routes raw ".." targets nowhere, and never past the bearer check', async () => {
    const [intoApi] = await rawHttp(get('/_sandbox/../api/v1.1/sims'));
    expect([intoApi?.status, intoApi?.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const [outOfApi] = await rawHttp(get('/api/v1.1/sims/../../_sandbox/fixtures'));
    expect(outOfApi?.status).toBe(401);
    const [outOfApiAuthed] = await rawHttp(get('/api/v1.1/sims/../../_sandbox/fixtures', bearer()));
    expect(outOfApiAuthed?.status).toBe(404);
    const [files] = await rawHttp(get('/api/v1.1/../../../../etc/passwd', bearer()));
    expect([files?.status, files?.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const [encoded] = await rawHttp(get('/_sandbox/%2e%2e/api/v1.1/sims'));
    expect(encoded?.status).toBe(404);
  });
});

describe('absolute-form request targets (RFC 9112 section 3.2.2)', () => {
  it('serves an absolute-form target by its path, with the same auth as the origin form', async () => {
    const [authed] = await rawHttp(get(`http://127.0.0.1:${s.sandbox.port}/api/v1.1/sims?pageSize=1`, bearer()));
    expect(authed?.status).toBe(200);
    expect(authed?.body.meta.pageSize).toBe(1);
    const [unauthed] = await rawHttp(get('http://other.example/api/v1.1/sims'));
    expect(unauthed?.status).toBe(401);
    const [traversal] = await rawHttp(get('http://other.example/_sandbox/../api/v1.1/sims'));
    expect(traversal?.status).toBe(404);
    const [control] = await rawHttp(get('http://other.example/_sandbox/time'));
    expect(control?.status).toBe(200);
    expect(s.sandbox.requests().at(-2)?.path).toBe('/api/v1.1/sims');
  });

  it('keeps "://" inside an origin-form path as path text', async () => {
    const [answer] = await rawHttp(get('/api/v1.1/sims/a://b', bearer()));
    expect(answer?.status).toBe(404);
    expect(s.sandbox.requests().at(-1)?.path).toBe('/api/v1.1/sims/a://b');
  });
});

describe('request smuggling attempts', () => {
  const smuggled = get('/_sandbox/fixtures');

  it('refuses Content-Length together with Transfer-Encoding, and answers no smuggled request', async () => {
    const answers = await rawHttp(
      `POST /api/v1.1/sms HTTP/1.1\r\nHost: 127.0.0.1\r\n${bearer()}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${smuggled}`,
    );
    expect(answers.map((a) => a.status)).toEqual([400]);
  });

  it('refuses two different Content-Lengths, and two Transfer-Encodings', async () => {
    const lengths = await rawHttp(
      `POST /api/v1.1/sms HTTP/1.1\r\nHost: 127.0.0.1\r\n${bearer()}Content-Length: 2\r\nContent-Length: 40\r\n\r\n{}${smuggled}`,
    );
    expect(lengths.map((a) => a.status)).toEqual([400]);
    const encodings = await rawHttp(
      `POST /api/v1.1/sms HTTP/1.1\r\nHost: 127.0.0.1\r\n${bearer()}Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n0\r\n\r\n${smuggled}`,
    );
    expect(encodings.map((a) => a.status)).toEqual([400]);
  });

  it('answers honest pipelined requests one by one, in order', async () => {
    const answers = await rawHttp(`GET /api/v1.1/sims?pageSize=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n${get('/_sandbox/time')}`);
    expect(answers.map((a) => a.status)).toEqual([401, 200]);
    expect(answers[1]?.body.now).toEqual(expect.any(String));
  });

  it('reads a chunked body exactly to its last chunk', async () => {
    const body = JSON.stringify({ fromNumber: s.sandbox.fixtures.phoneNumber, toNumber: '+14155550100', text: 'chunked' });
    const half = Math.floor(body.length / 2);
    const chunks = [body.slice(0, half), body.slice(half)].map((c) => `${Buffer.byteLength(c).toString(16)}\r\n${c}\r\n`).join('');
    const answers = await rawHttp(
      `POST /api/v1.1/sms HTTP/1.1\r\nHost: 127.0.0.1\r\n${bearer()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunks}0\r\n\r\n${get('/_sandbox/time')}`,
    );
    expect(answers.map((a) => a.status)).toEqual([201, 200]);
  });
});

describe('many concurrent connections', () => {
  it('answers 2,000 simultaneous connections, each on its own socket, all correctly', async () => {
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
    const url = new URL(s.sandbox.url);
    const one = (i: number): Promise<number> =>
      new Promise((resolve, reject) => {
        const path = i % 2 === 0 ? '/api/v1.1/sims?pageSize=1' : '/_sandbox/time';
        const req = request({ host: url.hostname, port: url.port, path, agent, headers: { authorization: `Bearer ${s.token}` } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end();
      });
    try {
      const statuses = await Promise.all(Array.from({ length: 2000 }, (_, i) => one(i)));
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
    } finally {
      agent.destroy();
    }
    expect((await rawHttp(get('/_sandbox/time')))[0]?.status).toBe(200);
    // A generous bound: the suite may run on a loaded machine.
  }, 60_000);
});
