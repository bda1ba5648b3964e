import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox/index.js';
import { call, tokenFor, useSandbox } from './helpers.js';
import { startReceiver } from './webhooks/helpers.js';

const s = useSandbox({ timeScale: 1e-6, tokenTtlSeconds: 1e9 }, { resetEach: true });

describe('control methods in-process, on the object startSandbox() returns', () => {
  it('force() stores a rule the next matching call answers, and clearForced() drops it', async () => {
    const rule = s.sandbox.force({ method: 'GET', path: '/api/v1.1/sims', status: 503, times: 2 });
    expect(rule).toMatchObject({ id: expect.stringMatching(/^force_/), status: 503, remaining: 2 });
    expect((await s.get('/api/v1.1/sims')).status).toBe(503);
    s.sandbox.clearForced();
    expect((await s.get('/api/v1.1/sims')).status).toBe(200);
  });

  it('advanceTime() moves the sandbox clock and answers { now, scale }', async () => {
    const before = Date.parse((await s.control('GET', '/_sandbox/time')).body.now);
    const time = s.sandbox.advanceTime(3_600_000);
    expect(Date.parse(time.now) - before).toBeGreaterThanOrEqual(3_600_000);
    expect(time.scale).toBe(1e-6);
    expect((await s.control('GET', '/_sandbox/time')).body.now).toBe(time.now);
  });

  it('revokeTokens() revokes one token or all, and answers how many were live', async () => {
    const other = await tokenFor(s.sandbox);
    expect(s.sandbox.revokeTokens(other)).toBe(1);
    expect((await call(s.sandbox, 'GET', '/api/v1.1/sims', { token: other })).status).toBe(401);
    expect(s.sandbox.revokeTokens()).toBeGreaterThanOrEqual(1);
    expect((await s.get('/api/v1.1/sims')).status).toBe(401);
    s.token = await tokenFor(s.sandbox);
  });

  it('sendSmsEvent() and sendVoiceEvent() deliver to the subscribed registration', async () => {
    const receiver = await startReceiver();
    try {
      const created = await s.post('/api/v1.1/webhooks', {
        operator: 'Telstra',
        network: 'Telstra 4G',
        eventType: 'both',
        webhookUrls: { messageUrl: `${receiver.url}/sms`, voiceUrl: `${receiver.url}/voice` },
      });
      const sms = s.sandbox.sendSmsEvent({ operator: 'Telstra', network: 'Telstra 4G', text: 'typed' });
      expect(sms.event).toMatchObject({ event: 'sms.received', text: 'typed' });
      expect(sms.deliveries).toEqual([{ deliveryId: expect.any(String), webhookId: created.body.data.id, target: 'messageUrl' }]);
      const voice = s.sandbox.sendVoiceEvent({ operator: 'Telstra', network: 'Telstra 4G', kind: 'missed' });
      expect(voice.deliveries.map((d) => d.target)).toEqual(['voiceUrl']);
      await expect.poll(() => receiver.received.map((r) => r.path).sort()).toEqual(['/sms', '/voice']);
    } finally {
      await receiver.close();
    }
  });

  it('runVoiceQualityTest() reports for a line of the account, and throws a RangeError for any other ICCID', () => {
    const result = s.sandbox.runVoiceQualityTest({ iccid: s.sandbox.fixtures.physicalIccid, mos: 4.2 });
    expect(result.event).toMatchObject({ event: 'voice.test.completed', iccid: s.sandbox.fixtures.physicalIccid, mos: 4.2 });
    expect(() => s.sandbox.runVoiceQualityTest({ iccid: '8900000000000000000' })).toThrow(RangeError);
  });

  it('setAccount() changes the account state the partner API sees', async () => {
    expect(s.sandbox.setAccount({ customerMissing: true })).toEqual({ apiAccess: true, customerMissing: true });
    expect((await s.get('/api/v1.1/credit-balance')).status).toBe(404);
  });
});

describe('control methods refuse bad input as the routes do', () => {
  const sandbox = createSandbox();

  it('throws a TypeError naming unknown members and the allowed ones', () => {
    expect(() => sandbox.force({ path: '/api/v1.1/sims', stauts: 503 } as never)).toThrow(
      new TypeError(
        'force: rule: unknown field stauts (allowed: method, path, status, code, message, details, body, html, headers, delayMs, reset, resetAfter, times)',
      ),
    );
    expect(() => sandbox.sendSmsEvent({ operator: 'Telstra', network: 'Telstra 4G', txt: 'x' } as never)).toThrow(
      new TypeError('sendSmsEvent: event: unknown field txt (allowed: operator, network, from, to, text)'),
    );
    expect(() => sandbox.setAccount({ apiAcess: false } as never)).toThrow(TypeError);
    expect(() => sandbox.sendVoiceEvent({ operator: 'Telstra' } as never)).toThrow(/^sendVoiceEvent: network: /);
    expect(() => sandbox.force({ path: '/api/v1.1/sims', status: 204 })).toThrow(/status: must be 200\.\.599/);
    expect(sandbox.requests()).toEqual([]);
  });

  it('throws a RangeError for a clock jump out of bounds, and the clock keeps working', () => {
    expect(() => sandbox.advanceTime(1e16)).toThrow(RangeError);
    expect(() => sandbox.advanceTime(-1)).toThrow(RangeError);
    expect(() => sandbox.advanceTime('1' as never)).toThrow(TypeError);
    expect(sandbox.advanceTime(1000).now).toMatch(/^\d{4}-/);
  });
});
