import { describe, expect, it } from 'vitest';
import { callEndpoint, ENDPOINTS, prepareIds, type Endpoint } from './endpoints.js';
import { tokenFor, useSandbox, type Answer } from './helpers.js';

const s = useSandbox({}, { resetEach: true });
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const sorted = (keys: string[]) => [...keys].sort();

/** Every timestamp-named field of an answer carries milliseconds (spec part 1 rule 4). */
function expectTimestamps(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(expectTimestamps);
  if (!value || typeof value !== 'object') return;
  for (const [key, inner] of Object.entries(value)) {
    if (/(At|Date|timestamp|expires_at)$/.test(key) && inner !== null) expect(inner, key).toMatch(ISO_MS);
    expectTimestamps(inner);
  }
}

function expectDocumentedAnswer(endpoint: Endpoint, res: Answer): void {
  expect(res.status).toBe(endpoint.status);
  const { answer } = endpoint;
  if ('error' in answer) {
    expect(res.body).toEqual({ success: false, error: { code: answer.error, message: expect.any(String) } });
    return;
  }
  if ('bare' in answer) {
    expect(Object.keys(res.body).sort()).toEqual(sorted(answer.bare));
    return;
  }
  expect(res.body.success).toBe(true);
  expectTimestamps(res.body.data);
  if ('object' in answer) expect(Object.keys(res.body.data).sort()).toEqual(sorted(answer.object));
  else {
    expect(Array.isArray(res.body.data)).toBe(true);
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(Object.keys(res.body.data[0]).sort()).toEqual(sorted(answer.page));
    expect(Object.keys(res.body.meta).sort()).toEqual(['page', 'pageSize', 'total', 'totalPages']);
  }
}

const label = (e: Endpoint) => `${e.method} ${e.template}`;

describe('every endpoint of spec part 4', () => {
  it.each(ENDPOINTS.map((e) => [label(e), e] as const))('%s answers its documented status and shape', async (_name, endpoint) => {
    const ids = await prepareIds(s);
    expectDocumentedAnswer(endpoint, await callEndpoint(s, endpoint, ids, s.token));
  });

  it('issues tokens for 3600 s by default (spec part 5 rule 3)', async () => {
    const res = await s.post('/api/v1.1/auth/token', { key: s.sandbox.key, secret: s.sandbox.secret });
    const { expires_in, expires_at } = res.body.data;
    expect(expires_in).toBe(3600);
    expect(Date.parse(expires_at) - Date.parse((await s.control('GET', '/_sandbox/time')).body.now)).toBeGreaterThan(3_590_000);
  });

  it('answers 401 UNAUTHORIZED without a bearer on every route but the transaction poll, the eligibility check and the exchange', async () => {
    const ids = await prepareIds(s);
    for (const endpoint of ENDPOINTS) {
      const res = await callEndpoint(s, endpoint, ids, null);
      if (endpoint.open) expect(res.status, label(endpoint)).toBe(endpoint.status);
      else expect([res.status, res.body.error?.code], label(endpoint)).toEqual([401, 'UNAUTHORIZED']);
    }
  });

  it('answers 403 FORBIDDEN to a non-admin key on SMS and v3 port-in only (spec part 5 rule 5)', async () => {
    const standard = await tokenFor(s.sandbox, 'standard');
    for (const endpoint of ENDPOINTS.filter((e) => !e.open)) {
      await s.control('POST', '/_sandbox/reset');
      const res = await callEndpoint(s, endpoint, await prepareIds(s), standard);
      if (endpoint.admin) expect([res.status, res.body.error?.code], label(endpoint)).toEqual([403, 'FORBIDDEN']);
      else expect(res.status, label(endpoint)).toBe(endpoint.status);
    }
  });
});

describe('required fields', () => {
  // Every member of these bodies is required, so an empty body names them all.
  const writes = [
    '/api/v1.1/webhooks',
    '/api/v1.1/devices/{imei}/assign',
    '/api/v1.1/sms',
    '/api/v1.1/plans/purchase',
    '/api/v3/plans/purchase',
    '/api/v1.1/top-up',
    '/api/v1.1/port-in/eligibility',
    '/api/v3/port-in',
    '/api/v1.1/team-members',
  ];

  it('answers 400 MISSING_FIELDS naming each absent field in details.validationErrors, and VALIDATION_ERROR for a non-object body', async () => {
    const ids = await prepareIds(s, false);
    for (const template of writes) {
      const endpoint = ENDPOINTS.find((e) => e.method === 'POST' && e.template === template)!;
      const required = Object.keys(endpoint.body!(ids) as object);
      const empty = await s.post(endpoint.path(ids), {});
      expect([empty.status, empty.body.error?.code], template).toEqual([400, 'MISSING_FIELDS']);
      expect(empty.body.error.details.validationErrors, template).toEqual(required.map((name) => `${name} is required`));
      const list = await s.post(endpoint.path(ids), [1]);
      expect([list.status, list.body.error?.code], template).toEqual([400, 'VALIDATION_ERROR']);
    }
  });
});

describe('pagination (spec part 8)', () => {
  const lists = ENDPOINTS.filter((e) => 'page' in e.answer);

  it('is validated the same way on every list route', async () => {
    expect(lists.map((e) => e.template)).toHaveLength(8);
    for (const endpoint of lists) {
      for (const query of ['pageSize=101', 'pageSize=0', 'page=0', 'page=abc', 'pageSize=1.5']) {
        const res = await s.get(`${endpoint.template}?${query}`);
        expect([res.status, res.body.error?.code], `${endpoint.template}?${query}`).toEqual([400, 'VALIDATION_ERROR']);
        expect(res.body.error.details.validationErrors, query).toEqual([expect.any(String)]);
      }
      // A number in another spelling than decimal digits, or no number at all, is no page.
      for (const query of ['page=01', 'page=', 'pageSize=020', 'pageSize=', 'page=1&pageSize=0100']) {
        const res = await s.get(`${endpoint.template}?${query}`);
        expect([res.status, res.body.error?.code], `${endpoint.template}?${query}`).toEqual([400, 'VALIDATION_ERROR']);
        expect(res.body.error.details.validationErrors[0], query).toMatch(
          /^page(Size)? must be an integer from 1 to \d+, in decimal digits, no sign or leading zero \(got "0?\d*"\)$/,
        );
      }
      const full = await s.get(`${endpoint.template}?pageSize=100&page=1`);
      expect(full.body.meta, endpoint.template).toMatchObject({ page: 1, pageSize: 100 });
      const beyond = await s.get(`${endpoint.template}?pageSize=100&page=${full.body.meta.totalPages + 1}`);
      expect([beyond.status, beyond.body.data], endpoint.template).toEqual([200, []]);
    }
  });
});
