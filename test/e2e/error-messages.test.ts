/**
 * An ApiError's message is one line a log can keep: status, code, method and route template,
 * the server's message and its validation errors (spec part 7), with no credential in it.
 */
import { describe, expect, it } from 'vitest';
import { BadRequestError, InternalServerError, NotFoundError } from '../../src/index.js';
import { useSandbox } from './sandbox.js';

const run = useSandbox({ seed: 5 });

describe('ApiError.message', () => {
  it('joins the validation errors the server sent after its message', async () => {
    const { client } = run();
    const error = await client
      .request({ method: 'POST', path: '/api/v1.1/webhooks', body: { network: 'Optus 5G', eventType: 'voice' } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BadRequestError);
    const apiError = error as BadRequestError;
    expect(apiError.validationErrors).toEqual(['operator is required']);
    expect(apiError.message).toBe('400 MISSING_FIELDS POST /api/v1.1/webhooks: Missing required fields: operator (operator is required)');
    expect(apiError.message).not.toContain('\n');
  });

  it('names the route template of a resource method, not the concrete path', async () => {
    const { client } = run();
    const error = await client.sims.retrieveSubscription('8900000000000000000').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    const apiError = error as NotFoundError;
    expect(apiError.route).toMatch(/^GET \/api\/v1\.1\/sims\/\{iccid\}/);
    expect(apiError.message).toMatch(/^404 SIM_NOT_FOUND GET \/api\/v1\.1\/sims\/\{iccid\}\/subscription: \S/);
    expect(apiError.message).not.toContain('8900000000000000000/');
  });

  it('keeps the may-have-been-applied sentence after the one-line summary of a failed write', async () => {
    const { client, sandbox } = run();
    sandbox.force({ method: 'POST', path: '/api/v1.1/webhooks', status: 500, code: 'INTERNAL_ERROR', message: 'boom' });
    const error = await client.webhooks
      .create({ operator: 'Optus', network: 'Optus 5G', eventType: 'voice' }, { maxRetries: 0 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).message).toMatch(
      /^500 INTERNAL_ERROR POST \/api\/v1\.1\/webhooks: boom \(the write may have been applied: check its state before sending it again\)$/,
    );
  });
});
