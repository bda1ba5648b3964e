import { expect } from 'vitest';

/** What fixtures/smoke-run.ts reports in every runtime when everything went as it should. */
export function expectCompleteSmokeRun(report: Record<string, unknown>, runtime: 'node' | 'other' = 'other'): void {
  expect(report).toMatchObject({
    token: true,
    page: 5,
    notFound: 404,
    esim: 'COMPLETED',
    resumed: 'COMPLETED',
    stubbed: '404 SIM_NOT_FOUND GET /api/v1.1/sims/{iccid}/subscription: stubbed',
    // next()'s answer is a Response and a request's headers a Headers to the runtime: every member, as the platform's answer it.
    response: {
      instance: true,
      tag: '[object Response]',
      differing: [],
      headers: { instance: true, tag: '[object Headers]', differing: [], asInit: true },
    },
    operations: ['auth.token', 'esim.provision', 'sims.list', 'sims.retrieveSubscription', 'transactions.retrieve'],
    delivery: 200,
    forged: 400,
    events: ['sms'],
    closed: true,
    // Outside Node a dispatcher is refused, naming the option; under Node it is undici's own.
    dispatcher: runtime === 'node' ? 'node' : 'dispatcher',
  });
  // The walk followed every page to the end.
  expect(report['total']).toBeGreaterThan(20);
  expect(report['walked']).toBe(report['total']);
}
