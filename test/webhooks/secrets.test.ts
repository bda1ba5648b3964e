import { inspect } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import {
  constructEvent,
  constructEventAsync,
  signPayload,
  verifySignature,
  verifySignatureAsync,
  WebhookSignatureError,
} from '../../src/webhooks/index.js';

const secret = `whsec_${'e1'.repeat(32)}`;
const t = 1_750_000_000;
const now = new Date(t * 1000);
const body = JSON.stringify({ event: 'webhook.test' });
const header = signPayload(body, secret, { timestamp: t });
const leaky = `vault refused: token=${secret}`;

async function failureOf(run: () => unknown): Promise<WebhookSignatureError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookSignatureError);
    return error as WebhookSignatureError;
  }
  throw new Error('expected a WebhookSignatureError');
}

describe('secret functions in verifySignature and constructEvent', () => {
  it('calls a synchronous function on every verification', () => {
    let current: string | string[] = secret;
    const source = vi.fn(() => current);
    expect(verifySignature(body, header, source, { now }).timestamp).toBe(t);
    current = ['whsec_other', secret];
    expect(constructEvent(body, { 'x-service-signature': header }, source, { now }).type).toBe('webhook.test');
    current = 'whsec_other';
    expect(() => verifySignature(body, header, source, { now })).toThrow(expect.objectContaining({ reason: 'signature_mismatch' }));
    expect(source).toHaveBeenCalledTimes(3);
  });

  it('turns a throwing function into invalid_secret, keeping what it threw as a cause that is never printed', async () => {
    const thrown = new Error(leaky);
    const error = await failureOf(() =>
      verifySignature(body, header, () => {
        throw thrown;
      }),
    );
    expect(error.reason).toBe('invalid_secret');
    expect(error.message).toBe('the signing-secret function threw or rejected; see error.cause');
    expect(error.cause).toBe(thrown);
    for (const shown of [error.message, JSON.stringify(error), inspect(error), String(error.stack)]) expect(shown).not.toContain(secret);
    // Like a native cause: not copied by a logger that spreads an error's own fields, and removable before logging.
    expect({ ...error }).not.toHaveProperty('cause');
    error.cause = 'replaced';
    expect(error.cause).toBe('replaced');
    delete (error as { cause?: unknown }).cause;
    expect(error.cause).toBeUndefined();
  });

  it('refuses a function returning a promise, pointing to the async forms, and leaves no unhandled rejection', async () => {
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      const error = await failureOf(() => verifySignature(body, header, (() => Promise.reject(new Error(leaky))) as never, { now }));
      expect(error.reason).toBe('invalid_secret');
      expect(error.message).toBe(
        'the signing-secret function returned a promise, and verifySignature and constructEvent are synchronous: ' +
          'use verifySignatureAsync or constructEventAsync, or an adapter',
      );
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });

  it('checks what the function returns like a secret given directly', async () => {
    for (const bad of ['', [], [''], undefined, 42]) {
      expect((await failureOf(() => verifySignature(body, header, (() => bad) as never, { now }))).reason).toBe('invalid_secret');
    }
  });
});

describe('secret functions in the async forms', () => {
  it('accepts a value, a sync function or an async function', async () => {
    for (const source of [secret, [secret], () => secret, async () => [secret], () => Promise.resolve(secret)]) {
      expect((await verifySignatureAsync(body, header, source, { now })).timestamp).toBe(t);
      expect((await constructEventAsync(body, { 'x-service-signature': header }, source, { now })).type).toBe('webhook.test');
    }
  });

  it('turns a rejection or a throw into invalid_secret without printing it', async () => {
    for (const source of [
      () => Promise.reject(new Error(leaky)),
      () => {
        throw new Error(leaky);
      },
    ]) {
      const error = await failureOf(() => verifySignatureAsync(body, header, source, { now }));
      expect(error.reason).toBe('invalid_secret');
      expect((error.cause as Error).message).toBe(leaky);
      for (const shown of [error.message, JSON.stringify(error), inspect(error)]) expect(shown).not.toContain(secret);
    }
  });
});
