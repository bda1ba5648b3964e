import { describe, expect, it } from 'vitest';
import { useHarness } from './helpers.js';

const h = useHarness();

const telstra = { operator: 'Telstra', network: 'Telstra 4G' };

describe('POST /api/v1.1/webhooks', () => {
  it('creates a registration with the part 8 retry defaults and a one-time whsec_ secret', async () => {
    const res = await h.api('POST', '/api/v1.1/webhooks', {
      ...telstra,
      eventType: 'sms',
      webhookUrls: { messageUrl: 'https://partner.test/sms' },
    });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toMatchObject({
      ...telstra,
      eventType: 'sms',
      status: 'active',
      webhookUrls: { messageUrl: 'https://partner.test/sms' },
      retryPolicy: { maxAttempts: 3, backoffStrategy: 'exponential', initialDelaySeconds: 5, maxDelaySeconds: 300 },
      authentication: { type: 'none' },
    });
    expect(res.body.data.signingSecret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(res.body.data.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('masks every credential value as ***ENCRYPTED*** and never returns the secret again', async () => {
    const created = await h.api('POST', '/api/v1.1/webhooks', {
      ...telstra,
      eventType: 'voice',
      authentication: { type: 'bearer', token: 'partner-receiver-token' },
    });
    expect(created.body.data.authentication).toEqual({ type: 'bearer', token: '***ENCRYPTED***' });
    expect(JSON.stringify(created.body)).not.toContain('partner-receiver-token');
    const id = created.body.data.id as string;

    const one = await h.api('GET', `/api/v1.1/webhooks/${id}`);
    const list = await h.api('GET', '/api/v1.1/webhooks');
    const put = await h.api('PUT', `/api/v1.1/webhooks/${id}`, { webhookUrls: { voiceUrl: 'https://partner.test/v' } });
    for (const data of [one.body.data, list.body.data[0], put.body.data]) {
      expect(data).not.toHaveProperty('signingSecret');
      expect(data.authentication).toEqual({ type: 'bearer', token: '***ENCRYPTED***' });
    }
    expect(Array.isArray(list.body.data)).toBe(true);

    const basic = await h.api('POST', '/api/v1.1/webhooks', {
      operator: 'Optus',
      network: 'Optus 4G',
      eventType: 'both',
      authentication: { type: 'basic', username: 'hook-user', password: 'hook-pass' },
    });
    expect(basic.body.data.authentication).toEqual({ type: 'basic', username: '***ENCRYPTED***', password: '***ENCRYPTED***' });
    const apiKey = await h.api('POST', '/api/v1.1/webhooks', {
      operator: 'Optus',
      network: 'Optus 5G',
      eventType: 'voice',
      authentication: { type: 'api_key', key: 'k-123', headerName: 'X-Partner-Key' },
    });
    expect(apiKey.body.data.authentication).toEqual({ type: 'api_key', key: '***ENCRYPTED***', headerName: 'X-Partner-Key' });
  });

  it('refuses a second registration for the same operator and network unless update is true, then replaces it', async () => {
    const first = await h.api('POST', '/api/v1.1/webhooks', { ...telstra, eventType: 'sms' });
    const conflict = await h.api('POST', '/api/v1.1/webhooks', { ...telstra, eventType: 'voice' });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('CONFLICT');

    const replaced = await h.api('POST', '/api/v1.1/webhooks', { ...telstra, eventType: 'voice', update: true });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.id).toBe(first.body.data.id);
    expect(replaced.body.data.eventType).toBe('voice');
    expect(replaced.body.data.signingSecret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(replaced.body.data.signingSecret).not.toBe(first.body.data.signingSecret);

    const other = await h.api('POST', '/api/v1.1/webhooks', { operator: 'Telstra', network: 'Telstra 5G', eventType: 'sms' });
    expect(other.status).toBe(200);
    const list = await h.api('GET', '/api/v1.1/webhooks');
    expect(list.body.data).toHaveLength(2);
  });

  it('answers 400 MISSING_FIELDS when operator, network or eventType is absent', async () => {
    const res = await h.api('POST', '/api/v1.1/webhooks', { operator: 'Telstra' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('MISSING_FIELDS');
    expect(res.body.error.details.validationErrors).toEqual(['network is required', 'eventType is required']);
  });

  it('answers 400 VALIDATION_ERROR listing every retryPolicy bound that is broken', async () => {
    const res = await h.api('POST', '/api/v1.1/webhooks', {
      ...telstra,
      eventType: 'voice',
      retryPolicy: { maxAttempts: 11, backoffStrategy: 'random', initialDelaySeconds: 0, maxDelaySeconds: 59 },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    const errors: string[] = res.body.error.details.validationErrors;
    expect(errors).toHaveLength(4);
    expect(errors.join('\n')).toMatch(/retryPolicy\.maxAttempts must be at most 10/);
    expect(errors.join('\n')).toMatch(/retryPolicy\.initialDelaySeconds must be at least 1/);
    expect(errors.join('\n')).toMatch(/retryPolicy\.maxDelaySeconds must be at least 60/);
    expect(errors.join('\n')).toMatch(/retryPolicy\.backoffStrategy/);

    const upper = await h.api('POST', '/api/v1.1/webhooks', {
      ...telstra,
      eventType: 'voice',
      retryPolicy: { initialDelaySeconds: 61, maxDelaySeconds: 3601 },
    });
    expect(upper.body.error.details.validationErrors).toEqual([
      'retryPolicy.initialDelaySeconds must be at most 60',
      'retryPolicy.maxDelaySeconds must be at most 3600',
    ]);
  });

  it('accepts the bounds themselves', async () => {
    const policy = { maxAttempts: 10, backoffStrategy: 'linear', initialDelaySeconds: 60, maxDelaySeconds: 3600 };
    const res = await h.api('POST', '/api/v1.1/webhooks', { ...telstra, eventType: 'voice', retryPolicy: policy });
    expect(res.status).toBe(200);
    expect(res.body.data.retryPolicy).toEqual(policy);
  });

  it('refuses eventType sms for an operator without SMS but accepts voice and both there', async () => {
    const sms = await h.api('POST', '/api/v1.1/webhooks', { operator: 'Lebara', network: 'Lebara 4G', eventType: 'sms' });
    expect(sms.status).toBe(400);
    expect(sms.body.error.code).toBe('VALIDATION_ERROR');
    const both = await h.api('POST', '/api/v1.1/webhooks', { operator: 'Lebara', network: 'Lebara 4G', eventType: 'both' });
    expect(both.status).toBe(200);
  });

  it('accepts ws, wss, http and https voiceStreamUrl but only http(s) for the other URLs', async () => {
    for (const [i, url] of ['ws://a.test/s', 'wss://a.test/s', 'http://a.test/s', 'https://a.test/s'].entries()) {
      const res = await h.api('POST', '/api/v1.1/webhooks', {
        operator: 'Telstra',
        network: `Net ${i}`,
        eventType: 'voice',
        webhookUrls: { voiceStreamUrl: url },
      });
      expect(res.status).toBe(200);
    }
    const ftp = await h.api('POST', '/api/v1.1/webhooks', {
      ...telstra,
      eventType: 'voice',
      webhookUrls: { voiceStreamUrl: 'ftp://a.test/s', messageUrl: 'ws://a.test/m' },
    });
    expect(ftp.status).toBe(400);
    expect(ftp.body.error.details.validationErrors).toHaveLength(2);
  });

  it('requires the credential members of the chosen authentication type', async () => {
    const res = await h.api('POST', '/api/v1.1/webhooks', { ...telstra, eventType: 'voice', authentication: { type: 'bearer' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.validationErrors).toEqual(['authentication.token is required']);
  });
});

describe('unknown members on create', () => {
  it('answers 400 VALIDATION_ERROR naming an unknown member of a POST body', async () => {
    const res = await h.api('POST', '/api/v1.1/webhooks', { ...telstra, eventType: 'voice', webhookUrl: 'https://p.test/x' });
    expect(res.status).toBe(400);
    expect(res.body.error.details.validationErrors).toEqual([
      'unknown field webhookUrl (allowed: operator, network, eventType, authentication, webhookUrls, retryPolicy, status, update)',
    ]);
    expect((await h.api('GET', '/api/v1.1/webhooks')).body.data).toEqual([]);
  });
});

describe('GET, PUT and DELETE /api/v1.1/webhooks/{id}', () => {
  it('answers 404 WEBHOOK_NOT_FOUND for an unknown id on every verb', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const res = await h.api(method, '/api/v1.1/webhooks/wh_missing', method === 'PUT' ? { status: 'active' } : undefined);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('WEBHOOK_NOT_FOUND');
    }
  });

  it('merges a partial update, keeping what was not sent and removing URLs set to null', async () => {
    const created = await h.api('POST', '/api/v1.1/webhooks', {
      ...telstra,
      eventType: 'sms',
      webhookUrls: { messageUrl: 'https://p.test/m', callbackMessageUrl: 'https://p.test/c' },
      retryPolicy: { maxAttempts: 5 },
    });
    const id = created.body.data.id as string;
    const res = await h.api('PUT', `/api/v1.1/webhooks/${id}`, {
      webhookUrls: { callbackMessageUrl: null, voiceUrl: 'https://p.test/v' },
      retryPolicy: { backoffStrategy: 'fixed' },
      eventType: 'both',
    });
    expect(res.status).toBe(200);
    expect(res.body.data.webhookUrls).toEqual({ messageUrl: 'https://p.test/m', voiceUrl: 'https://p.test/v' });
    expect(res.body.data.retryPolicy).toEqual({ maxAttempts: 5, backoffStrategy: 'fixed', initialDelaySeconds: 5, maxDelaySeconds: 300 });
    expect(res.body.data.eventType).toBe('both');
    const read = await h.api('GET', `/api/v1.1/webhooks/${id}`);
    expect(read.body.data).toEqual(res.body.data);
  });

  it('refuses unknown members of a PUT body, at any depth, naming them and the allowed ones', async () => {
    const created = await h.api('POST', '/api/v1.1/webhooks', { ...telstra, eventType: 'voice' });
    const id = created.body.data.id as string;
    const res = await h.api('PUT', `/api/v1.1/webhooks/${id}`, {
      stauts: 'active',
      update: true,
      webhookUrls: { messageURL: 'https://p.test/m' },
      retryPolicy: { retries: 3 },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.validationErrors).toEqual([
      'unknown field webhookUrls.messageURL (allowed: messageUrl, callbackMessageUrl, voiceUrl, callbackVoiceUrl, voiceStreamUrl)',
      'unknown field retryPolicy.retries (allowed: maxAttempts, backoffStrategy, initialDelaySeconds, maxDelaySeconds)',
      'unknown fields stauts, update (allowed: operator, network, eventType, authentication, webhookUrls, retryPolicy, status)',
    ]);
    const read = await h.api('GET', `/api/v1.1/webhooks/${id}`);
    expect(read.body.data.updatedAt).toBe(created.body.data.updatedAt);
  });

  it('refuses null outside webhookUrls members, and a bearer authentication without its token', async () => {
    const created = await h.api('POST', '/api/v1.1/webhooks', { ...telstra, eventType: 'voice' });
    const id = created.body.data.id as string;
    for (const body of [{ status: null }, { operator: null }, { webhookUrls: null }, { retryPolicy: null }, { authentication: null }]) {
      const res = await h.api('PUT', `/api/v1.1/webhooks/${id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    const noToken = await h.api('PUT', `/api/v1.1/webhooks/${id}`, { authentication: { type: 'bearer' } });
    expect(noToken.status).toBe(400);
    expect(noToken.body.error.details.validationErrors).toEqual(['authentication.token is required']);
    const basicExtra = await h.api('PUT', `/api/v1.1/webhooks/${id}`, { authentication: { type: 'bearer', token: 't', username: 'u' } });
    expect(basicExtra.body.error.details.validationErrors).toEqual(['unknown field authentication.username (allowed: type, token)']);
  });

  it('refuses the masked credential a read answers, so a read-edit-write round trip cannot store the mask', async () => {
    const created = await h.api('POST', '/api/v1.1/webhooks', {
      ...telstra,
      eventType: 'voice',
      authentication: { type: 'bearer', token: 'real-token' },
    });
    const id = created.body.data.id as string;
    const read = await h.api('GET', `/api/v1.1/webhooks/${id}`);
    const res = await h.api('PUT', `/api/v1.1/webhooks/${id}`, { authentication: read.body.data.authentication });
    expect(res.status).toBe(400);
    expect(res.body.error.details.validationErrors).toEqual(['authentication.token must be the credential itself, not the masked ***ENCRYPTED***']);
  });

  it('sets and lifts a suspension by hand with status', async () => {
    const created = await h.api('POST', '/api/v1.1/webhooks', { ...telstra, eventType: 'voice' });
    const id = created.body.data.id as string;
    const suspended = await h.api('PUT', `/api/v1.1/webhooks/${id}`, { status: 'suspended' });
    expect(suspended.body.data.status).toBe('suspended');
    const lifted = await h.api('PUT', `/api/v1.1/webhooks/${id}`, { status: 'active' });
    expect(lifted.body.data.status).toBe('active');
    const bad = await h.api('PUT', `/api/v1.1/webhooks/${id}`, { status: 'paused' });
    expect(bad.body.error.details.validationErrors).toEqual(['status must be one of active, suspended']);
  });

  it('answers 409 CONFLICT when a PUT moves a registration onto a taken operator and network', async () => {
    await h.api('POST', '/api/v1.1/webhooks', { ...telstra, eventType: 'voice' });
    const other = await h.api('POST', '/api/v1.1/webhooks', { operator: 'Optus', network: 'Optus 4G', eventType: 'voice' });
    const res = await h.api('PUT', `/api/v1.1/webhooks/${other.body.data.id}`, telstra);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('CONFLICT');
  });

  it('deletes a registration and answers the deletion result', async () => {
    const created = await h.api('POST', '/api/v1.1/webhooks', { ...telstra, eventType: 'voice' });
    const id = created.body.data.id as string;
    const res = await h.api('DELETE', `/api/v1.1/webhooks/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id, deleted: true });
    expect((await h.api('GET', `/api/v1.1/webhooks/${id}`)).status).toBe(404);
    const again = await h.api('POST', '/api/v1.1/webhooks', { ...telstra, eventType: 'voice' });
    expect(again.status).toBe(200);
  });
});
