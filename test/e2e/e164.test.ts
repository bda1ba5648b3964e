import { describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../src/index.js';
import { useSandbox } from './sandbox.js';

const run = useSandbox();

/** Short, long, leading zero, spaces, letters: the client refuses exactly what the sandbox refuses. */
const candidates = [
  '+1234',
  '+123456',
  '+1234567',
  '+14155550100',
  '+123456789012345',
  '+1234567890123456',
  '+0123456789',
  '14155550100',
  '+1 415 555 0100',
  '+1415555010a',
  '+',
];

describe('E.164: one grammar for the client and the sandbox', () => {
  it.each(candidates)('%s is refused by the client exactly when the sandbox refuses it', async (toNumber) => {
    const { client, sandbox } = run();
    const body = { fromNumber: sandbox.fixtures.phoneNumber, toNumber, text: 'hello' };
    const raw = await client.request({ method: 'POST', path: '/api/v1.1/sms', body }).then(
      () => 'accepted',
      (error: unknown) => (error instanceof Error && 'status' in error && error.status === 400 ? 'refused' : `other: ${String(error)}`),
    );
    const typed = await client.sms.send(body).then(
      () => 'accepted',
      (error: unknown) => (error instanceof RequestValidationError ? 'refused' : `other: ${String(error)}`),
    );
    expect(['accepted', 'refused']).toContain(raw);
    expect(typed).toBe(raw);
  });
});
