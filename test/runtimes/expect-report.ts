import { expect } from 'vitest';

/** What fixtures/smoke-run.ts reports in every runtime when everything went as it should. */
export function expectCompleteSmokeRun(report: Record<string, unknown>): void {
  expect(report).toMatchObject({
    token: true,
    page: 5,
    notFound: 404,
    esim: 'COMPLETED',
    delivery: 200,
    forged: 400,
    events: ['sms'],
    closed: true,
    dispatcher: 'dispatcher',
  });
  // The walk followed every page to the end.
  expect(report['total']).toBeGreaterThan(20);
  expect(report['walked']).toBe(report['total']);
}
