import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { useSandbox } from '../helpers.js';
import { settle, useReceivers, waitFor } from './helpers.js';

const h = useSandbox();
const startReceiver = useReceivers();

describe('close()', () => {
  it('cancels pending retries, voice quality schedules and open voice streams', async () => {
    const failing = await startReceiver([500]);
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    let streamClosed = false;
    wss.on('connection', (socket) => socket.on('close', () => (streamClosed = true)));
    try {
      await h.api('POST', '/api/v1.1/webhooks', {
        operator: 'Telstra',
        network: 'Telstra 4G',
        eventType: 'both',
        webhookUrls: {
          messageUrl: failing.url,
          voiceStreamUrl: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/s`,
        },
      });
      await h.control('POST', '/_sandbox/voice-quality/webhooks', { url: failing.url });
      await h.control('POST', '/_sandbox/events/sms', { operator: 'Telstra', network: 'Telstra 4G' });
      await h.control('POST', '/_sandbox/voice-quality/tests', { iccid: h.sandbox.fixtures.physicalIccid });
      const stream = h.control('POST', '/_sandbox/voice-stream', { operator: 'Telstra', network: 'Telstra 4G', durationMs: 600_000 });
      stream.catch(() => undefined);
      await waitFor(() => failing.received.length === 2 && wss.clients.size === 1, 'deliveries and the stream to start');

      // A close that waited for the 10-minute stream would outlast the test's timeout.
      await h.sandbox.close();
      // Through the state: a closed sandbox answers no request, so the count GET /_sandbox/stats
      // reports (`pendingTimers`) can only be read there once it has closed.
      expect(h.sandbox.ctx.clock.pendingTimers).toBe(0);
      await waitFor(() => streamClosed, 'the stream socket to close');
      await settle(100);
      expect(failing.received).toHaveLength(2);
    } finally {
      await new Promise((resolve) => wss.close(resolve));
    }
  });
});
