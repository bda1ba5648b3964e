import { describe, expect, it } from 'vitest';
import { DEFAULT_ACCOUNT_LIMIT, DEFAULT_ENDPOINT_LIMITS } from '../../src/core/rate-limit.js';
import { ACCOUNT_LIMIT, ENDPOINT_LIMITS } from '../../src/sandbox/middleware/rate-limit.js';
import { templateMatcher } from '../../src/shared/route-template.js';

// The client's limiter and the sandbox each keep the table of spec part 8 (the sandbox plays the
// server and must not import the client). This holds the two equal entry by entry, so a change in
// one fails here until the other follows.
describe('the rate-limit table of spec part 8, client and sandbox', () => {
  it('has the same endpoints on both sides', () => {
    expect(Object.keys(DEFAULT_ENDPOINT_LIMITS).sort()).toEqual(Object.keys(ENDPOINT_LIMITS).sort());
  });

  it.each(Object.entries(ENDPOINT_LIMITS))('%s: the client allows %i a minute, as the sandbox does', (route, limit) => {
    expect(DEFAULT_ENDPOINT_LIMITS[route]).toEqual({ limit, windowMs: 60_000 });
  });

  it('has the same account-wide limit on both sides', () => {
    expect(DEFAULT_ACCOUNT_LIMIT).toEqual({ limit: ACCOUNT_LIMIT, windowMs: 60_000 });
  });
});

describe('templateMatcher, the one reading of a route template', () => {
  const sims = templateMatcher('POST /api/v1.1/sims/{iccid}/renew-number');

  it('matches one encoded segment per placeholder', () => {
    expect(sims.test('POST /api/v1.1/sims/8944500102198304826/renew-number')).toBe(true);
    expect(sims.test('POST /api/v1.1/sims/a%2Fb/renew-number')).toBe(true);
  });

  it('refuses an empty segment, two segments, another method and literal text taken as a pattern', () => {
    expect(sims.test('POST /api/v1.1/sims//renew-number')).toBe(false);
    expect(sims.test('POST /api/v1.1/sims/1/2/renew-number')).toBe(false);
    expect(sims.test('GET /api/v1.1/sims/1/renew-number')).toBe(false);
    expect(sims.test('POST /api/v1x1/sims/1/renew-number')).toBe(false);
    expect(sims.test('POST /api/v1.1/sims/1/renew-number/')).toBe(false);
  });

  it('reads `:name` and a trailing slash only when asked (the route syntax of the sandbox)', () => {
    expect(templateMatcher('/api/v1.1/sims/:iccid').test('/api/v1.1/sims/1')).toBe(false);
    const sandbox = templateMatcher('/api/v1.1/sims/:iccid', { colonParams: true, trailingSlash: true });
    expect(sandbox.test('/api/v1.1/sims/1')).toBe(true);
    expect(sandbox.test('/api/v1.1/sims/1/')).toBe(true);
    expect(sandbox.test('/api/v1.1/sims/1/x')).toBe(false);
  });

  it('reads placeholders that share a segment, or hold a `/`, as it always has', () => {
    const adjacent = templateMatcher('/x/{a}{b}/y');
    expect(adjacent.test('/x/ab/y')).toBe(true);
    expect(adjacent.test('/x/a/y')).toBe(false);
    const dotted = templateMatcher('/x/{name}.{ext}');
    expect(['/x/a.b', '/x/a.b.c', '/x/a..b'].map((path) => dotted.test(path))).toEqual([true, true, true]);
    expect(['/x/.b', '/x/a.', '/x/ab', '/x/a.b/c'].map((path) => dotted.test(path))).toEqual([false, false, false, false]);
    expect(templateMatcher('/x/{a/b}').test('/x/1')).toBe(true);
    expect(templateMatcher('/x/{}').test('/x/{}')).toBe(true);
    expect(templateMatcher('/x/{{a}/y').test('/x/1/y')).toBe(true);
    expect(templateMatcher('/x/{a').test('/x/{a')).toBe(true);
  });
});
