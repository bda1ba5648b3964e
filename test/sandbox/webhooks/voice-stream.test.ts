import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocketServer, type RawData } from 'ws';
import { useHarness } from './helpers.js';

interface Session {
  path: string;
  authorization: string | undefined;
  frames: { text: boolean; data: Buffer }[];
  closeCode: number | null;
}

// Scaled so a second of audio is paced out in about 10 ms.
const h = useHarness({ timeScale: 100 });
let wss: WebSocketServer;
let wsUrl: string;
const sessions: Session[] = [];

beforeAll(async () => {
  wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  wsUrl = `127.0.0.1:${(wss.address() as AddressInfo).port}`;
  wss.on('connection', (socket, request) => {
    const session: Session = { path: request.url ?? '', authorization: request.headers.authorization, frames: [], closeCode: null };
    sessions.push(session);
    socket.on('message', (data: RawData, isBinary: boolean) => {
      session.frames.push({ text: !isBinary, data: Buffer.from(data as Buffer) });
    });
    socket.on('close', (code) => {
      session.closeCode = code;
    });
  });
});

afterAll(async () => {
  for (const client of wss.clients) client.terminate();
  await new Promise((resolve) => wss.close(resolve));
});

describe('POST /_sandbox/voice-stream', () => {
  it('streams the handshake, then 8 kHz 16-bit mono PCM frames of the tone, to every voiceStreamUrl of the operator and network', async () => {
    await h.api('POST', '/api/v1.1/webhooks', {
      operator: 'Telstra',
      network: 'Telstra 4G',
      eventType: 'voice',
      authentication: { type: 'bearer', token: 'stream-token' },
      webhookUrls: { voiceStreamUrl: `http://${wsUrl}/from-http` },
    });
    await h.api('POST', '/api/v1.1/webhooks', {
      operator: 'Telstra',
      network: 'Telstra 5G',
      eventType: 'sms',
      webhookUrls: { voiceStreamUrl: `ws://${wsUrl}/other-network` },
    });
    const res = await h.control('POST', '/_sandbox/voice-stream', {
      operator: 'Telstra',
      network: 'Telstra 4G',
      durationMs: 1000,
      toneHz: 440,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ connections: 1, samplesSent: 8000 });
    expect(res.body.streams[0]).toMatchObject({ connected: true, framesSent: 50, samplesSent: 8000 });

    expect(sessions).toHaveLength(1);
    const [session] = sessions;
    expect(session!.path).toBe('/from-http');
    expect(session!.authorization).toBe('Bearer stream-token');
    const [first, ...audio] = session!.frames;
    expect(first?.text).toBe(true);
    expect(JSON.parse(first!.data.toString('utf8'))).toMatchObject({
      event: 'stream.start',
      callId: res.body.callId,
      operator: 'Telstra',
      network: 'Telstra 4G',
      encoding: 'pcm_s16le',
      sampleRate: 8000,
      channels: 1,
    });
    expect(audio.every((f) => !f.text && f.data.length === 320)).toBe(true);
    const pcm = Buffer.concat(audio.map((f) => f.data));
    expect(pcm.length / 2).toBe(8000);
    expect(pcm.readInt16LE(0)).toBe(0);
    expect(pcm.readInt16LE(2)).toBe(Math.round(0.5 * 32767 * Math.sin((2 * Math.PI * 440) / 8000)));
    // The receiver sees the TCP close a moment after the sandbox's socket reports the close handshake done.
    await vi.waitFor(() => expect(session!.closeCode).toBe(1000));
  });

  it('reports zero connections when the receiver is unreachable, and skips registrations without a voiceStreamUrl', async () => {
    await h.api('POST', '/api/v1.1/webhooks', {
      operator: 'Optus',
      network: 'Optus 4G',
      eventType: 'voice',
      webhookUrls: { voiceStreamUrl: 'ws://127.0.0.1:9/closed' },
    });
    await h.api('POST', '/api/v1.1/webhooks', { operator: 'Optus', network: 'Optus 5G', eventType: 'voice' });
    const res = await h.control('POST', '/_sandbox/voice-stream', { operator: 'Optus', network: 'Optus 4G', durationMs: 100 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ connections: 0, samplesSent: 0 });
    expect(res.body.streams).toHaveLength(1);
  });
});
