/**
 * Nothing the sandbox reads takes more than linear time: hostile text in a forced rule's body and
 * path, in a request's path, query and headers, is answered, logged, listed from /_sandbox/ and
 * streamed to the inspector's feed within a bound that a quadratic reading of 1 MiB misses by
 * minutes. The sandbox answers in this process, so one stuck pattern would stall everything
 * (every request, the inspector and the feed), as it would a developer's sandbox.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, startSandbox } from '../../../src/sandbox/index.js';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { fill, KIB, LENGTHS, MIB, TEXT_SHAPES, withinBound } from '../../helpers/linear-time.js';
import { call, tokenFor } from '../helpers.js';

let sandbox: SandboxHandle;
let token: string;
let feed: FeedReader;

/** The events of one SSE stream, read as they arrive. */
class FeedReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = '';

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.getReader();
  }

  /** The data of the next `batch` event for which `wanted` holds; earlier batches are skipped. */
  async batch(wanted: (data: any) => boolean): Promise<any> {
    for (;;) {
      let end = this.#buffer.indexOf('\n\n');
      while (end === -1) {
        const { value, done } = await this.#reader.read();
        if (done) throw new Error('the feed ended');
        const searchFrom = Math.max(0, this.#buffer.length - 1);
        this.#buffer += this.#decoder.decode(value, { stream: true });
        end = this.#buffer.indexOf('\n\n', searchFrom);
      }
      const event = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      const data = event.startsWith('event: batch\ndata: ') ? JSON.parse(event.slice('event: batch\ndata: '.length)) : undefined;
      if (data !== undefined && wanted(data)) return data;
    }
  }

  cancel(): Promise<void> {
    return this.#reader.cancel();
  }
}

beforeAll(async () => {
  sandbox = await startSandbox({ rateLimit: false, limits: { maxBodyBytes: 8 * MIB } });
  token = await tokenFor(sandbox);
  feed = new FeedReader((await fetch(`${sandbox.url}/_sandbox/events`)).body as ReadableStream<Uint8Array>);
});
afterAll(async () => {
  await feed.cancel();
  await sandbox.close();
});

const control = (method: string, path: string, body?: unknown) => call(sandbox, method, path, body === undefined ? {} : { body });

afterEach(async () => {
  await control('DELETE', '/_sandbox/force');
  await control('DELETE', '/_sandbox/requests');
});

describe("a forced rule's body", () => {
  for (const [name, build] of Object.entries(TEXT_SHAPES)) {
    it(`of ${name} is answered, listed from /_sandbox/force and streamed to the feed`, async () => {
      for (const length of LENGTHS) {
        const text = build(length);
        const at = `${name}, ${length} characters`;
        const rule = { method: 'GET', path: '/api/v1.1/plans', status: 200, body: { note: text }, times: 2 };
        const added = await withinBound(`POST /_sandbox/force (${at})`, () => control('POST', '/_sandbox/force', rule));
        expect(added.status).toBe(201);
        const listed = await withinBound(`GET /_sandbox/force (${at})`, () => control('GET', '/_sandbox/force'));
        expect(listed.body.rules).toHaveLength(1);
        const forced = await withinBound(`the forced answer (${at})`, () => call(sandbox, 'GET', '/api/v1.1/plans', { token }));
        expect(forced.body).toEqual({ note: text });
        // The batch after the forced call carries the rule, masked as the control API masks it.
        await withinBound(`the feed's batch (${at})`, () =>
          feed.batch((data) => data.forceRules.some((shown: { id: string }) => shown.id === added.body.id)),
        );
        const id = sandbox.requests().at(-1)?.id;
        expect((await withinBound(`the log entry (${at})`, () => control('GET', `/_sandbox/requests/${id}`))).status).toBe(200);
        await control('DELETE', '/_sandbox/force');
      }
    });
  }
});

describe("a forced rule's path", () => {
  it('of braces without a close is read in one pass, and every request still answered', async () => {
    for (const length of LENGTHS) {
      const path = `/api/v1.1/sims/${fill('{', length)}`;
      expect((await withinBound(`a rule path of ${length} braces`, () => control('POST', '/_sandbox/force', { path, status: 503 }))).status).toBe(
        201,
      );
      const answer = await withinBound(`a request past it (${length})`, () => call(sandbox, 'GET', '/api/v1.1/sims/x/subscription', { token }));
      expect(answer.status).toBe(404);
      await control('DELETE', '/_sandbox/force');
    }
  });

  it('of placeholders side by side is matched against a long segment in linear time', async () => {
    // Three placeholders in one segment take at least three characters between them; a pattern
    // of three [^/]+ side by side tries every split of the segment. The request line carries at
    // most 16 KiB in Node, hence the lengths.
    const rule = { path: '/api/v1.1/sims/{a}{b}{c}/subscription', status: 503, times: 100 };
    expect((await control('POST', '/_sandbox/force', rule)).status).toBe(201);
    for (const length of [2 * KIB, 15 * KIB]) {
      const segment = fill('a', length);
      const missed = await withinBound(`a segment of ${length} that misses`, () => call(sandbox, 'GET', `/api/v1.1/sims/${segment}/x`, { token }));
      expect(missed.status).toBe(404);
      const matched = await withinBound(`a segment of ${length} that matches`, () =>
        call(sandbox, 'GET', `/api/v1.1/sims/${segment}/subscription`, { token }),
      );
      expect(matched.status).toBe(503);
    }
  });
});

/** The three places of a request that carry text: its path, its query and a header (not blank-led, which a header trims). */
const PLACES = {
  path: (text: string): [string, RequestInit] => [`/nowhere/${encodeURI(text)}`, {}],
  query: (text: string): [string, RequestInit] => [`/nowhere?note=${encodeURIComponent(text)}`, {}],
  header: (text: string): [string, RequestInit] => ['/nowhere', { headers: { 'x-note': `x${text}` } }],
};

describe('a request over HTTP, with as much text as its request line or headers take (16 KiB in Node)', () => {
  for (const [name, build] of Object.entries(TEXT_SHAPES)) {
    it(`with ${name} in its path, its query or a header is logged, listed and streamed`, async () => {
      // Percent-encoding may triple the text.
      const text = build(4 * KIB);
      for (const [where, place] of Object.entries(PLACES)) {
        const [path, init] = place(text);
        const answer = await withinBound(`${name} in the ${where}`, () => fetch(`${sandbox.url}${path}`, init));
        expect(answer.status).toBe(404);
        const id = sandbox.requests().at(-1)?.id;
        await withinBound(`the feed's summary (${where})`, () =>
          feed.batch((data) => data.requests.some((entry: { id: number; status: number | null }) => entry.id === id && entry.status === 404)),
        );
        expect((await withinBound(`GET /_sandbox/requests (${where})`, () => control('GET', '/_sandbox/requests'))).status).toBe(200);
        expect((await withinBound(`the log entry (${where})`, () => control('GET', `/_sandbox/requests/${id}`))).status).toBe(200);
      }
    });
  }
});

describe('a request in process (createSandbox), where nothing caps the path or a header', () => {
  for (const [name, build] of Object.entries(TEXT_SHAPES)) {
    it(`with ${name} in its path, its query or a header is logged, listed and streamed`, async () => {
      const own = createSandbox({ rateLimit: false });
      const ask = (path: string, init: RequestInit = {}): Promise<Response> => own.handler(new Request(`http://sandbox.test${path}`, init));
      const inspector = new FeedReader((await ask('/_sandbox/events')).body as ReadableStream<Uint8Array>);
      try {
        for (const length of LENGTHS) {
          const text = build(length);
          for (const [where, place] of Object.entries(PLACES)) {
            const at = `${name} in the ${where}, ${length} characters`;
            const [path, init] = place(text);
            expect((await withinBound(at, () => ask(path, init))).status).toBe(404);
            const id = own.requests().at(-1)?.id;
            await withinBound(`the feed's summary (${at})`, () =>
              inspector.batch((data) =>
                data.requests.some((entry: { id: number; status: number | null }) => entry.id === id && entry.status === 404),
              ),
            );
            expect((await withinBound(`GET /_sandbox/requests (${at})`, () => ask('/_sandbox/requests'))).status).toBe(200);
            expect((await withinBound(`the log entry (${at})`, () => ask(`/_sandbox/requests/${id}`))).status).toBe(200);
            await ask('/_sandbox/requests', { method: 'DELETE' });
          }
        }
      } finally {
        await inspector.cancel();
        await own.close();
      }
    });
  }
});
