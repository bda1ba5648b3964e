/**
 * A receiver reads a signature header in time linear in its length, whatever an unauthenticated
 * sender puts in it: `constructEvent` refuses each hostile header within the bound, received
 * over loopback HTTP (where Node takes at most 16 KiB of headers) and at 1 MiB in process, with
 * the length limit lifted so that the whole header is parsed.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { constructEvent, MemoryDedupeStore, WebhookSignatureError } from '../../src/webhooks/index.js';
import { fill, KIB, LENGTHS, withinBound } from '../helpers/linear-time.js';

const secret = `whsec_${'ef'.repeat(32)}`;
const body = '{"id":"vqt_1","event":"voice.test.completed"}';
const t = 1_750_000_000;
const now = new Date(t * 1000);
const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
const options = { now, maxHeaderLength: Number.POSITIVE_INFINITY };

/** Signature headers of `length` characters in the shapes a scan per item or per position would pay for. */
const HEADER_SHAPES: Readonly<Record<string, (length: number) => string>> = {
  'a run of =': (n) => fill('=', n),
  'a run of commas': (n) => fill(',', n),
  'a run of =,': (n) => fill('=,', n),
  'one item with a long name': (n) => `${fill('x', n - 1)}=`,
  'a long timestamp': (n) => `t=${fill('1', n - 2)}`,
  'a long v1': (n) => `t=${t},v1=${fill('a', n - 16)}`,
  'empty v1 items': (n) => `t=${t},${fill('v1=,', n - 13)}`,
  'timestamps over and over': (n) => fill(`t=${t},`, n),
  'blanks around every item': (n) => `t=${t},${fill(' \t', n - 81)},v1=${v1.replace(/./, 'f')}`,
  'a run of blanks': (n) => `${fill(' ', n - 1)}x`,
};

/** The reason constructEvent refuses `header` with, or 'accepted'. */
function reasonOf(header: string): string {
  try {
    constructEvent(body, { 'x-service-signature': header }, secret, options);
    return 'accepted';
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookSignatureError);
    return (error as WebhookSignatureError).reason;
  }
}

let receiver: Server;
let receiverUrl: string;

beforeAll(async () => {
  // A receiver as a partner writes one: the raw body and the headers go to constructEvent.
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let reason = 'accepted';
      try {
        constructEvent(Buffer.concat(chunks), req.headers, secret, options);
      } catch (error) {
        reason = error instanceof WebhookSignatureError ? error.reason : 'error';
      }
      res.writeHead(reason === 'accepted' ? 200 : 400, { 'content-type': 'text/plain' }).end(reason);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
});

describe('a hostile signature header', () => {
  for (const [name, build] of Object.entries(HEADER_SHAPES)) {
    it(`of ${name} is refused in linear time, over HTTP and at 1 MiB`, async () => {
      const overHttp = build(15 * KIB);
      const answer = await withinBound(`${name} over HTTP`, async () => {
        const res = await fetch(receiverUrl, { method: 'POST', headers: { 'x-service-signature': overHttp }, body });
        return { status: res.status, reason: await res.text() };
      });
      expect(answer).toEqual({ status: 400, reason: reasonOf(overHttp) });
      for (const length of LENGTHS) {
        const header = build(length);
        expect(await withinBound(`${name}, ${length} characters`, () => reasonOf(header))).not.toBe('accepted');
      }
    });
  }
});

describe('a MemoryDedupeStore full of live keys', () => {
  it('makes room for each new key in constant time: 50,000 claims into a full store of 50,000', async () => {
    const store = new MemoryDedupeStore({ maxEntries: 50_000 });
    for (let index = 0; index < 50_000; index++) await store.setIfAbsent(`old-${index}`, 3_600_000);
    await withinBound('50,000 claims into a full store', async () => {
      for (let index = 0; index < 50_000; index++) await store.setIfAbsent(`new-${index}`, 3_600_000);
    });
    expect(store.size).toBe(50_000);
    // The oldest went first: every old key is gone, every new one is held.
    expect(await store.setIfAbsent('old-49999', 1)).toBe(true);
    expect(await store.setIfAbsent('new-49999', 1)).toBe(false);
  });
});
