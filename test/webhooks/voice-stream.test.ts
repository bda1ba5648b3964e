import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import {
  createVoiceStreamServer,
  PcmDecoder,
  toWav,
  VoiceStreamReceiver,
  wavHeader,
  writeWav,
  type VoiceCall,
  type VoiceStreamFrame,
  type VoiceStreamServer,
} from '../../src/webhooks/index.js';

/** One second of a 440 Hz tone at 8 kHz, as the reference samples and their little-endian bytes. */
function tone(samples = 8000): { samples: Int16Array; bytes: Buffer } {
  const values = new Int16Array(samples);
  const bytes = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) {
    values[i] = Math.round(Math.sin((2 * Math.PI * 440 * i) / 8000) * 20_000);
    bytes.writeInt16LE(values[i] ?? 0, i * 2);
  }
  return { samples: values, bytes };
}

/** Cuts bytes into frames of odd sizes, so samples straddle frame boundaries. */
function oddFrames(bytes: Buffer): Buffer[] {
  const sizes = [1, 3, 5, 161, 7, 321, 2, 999];
  const frames: Buffer[] = [];
  for (let offset = 0, i = 0; offset < bytes.length; i++) {
    const size = sizes[i % sizes.length] ?? 1;
    frames.push(bytes.subarray(offset, offset + size));
    offset += size;
  }
  return frames;
}

async function connect(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  const socket = new WebSocket(url, { headers });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return socket;
}

async function sendAll(socket: WebSocket, frames: Buffer[]): Promise<void> {
  for (const frame of frames) {
    await new Promise<void>((resolve, reject) => socket.send(frame, { binary: true }, (error) => (error ? reject(error) : resolve())));
  }
}

async function firstCall(server: { calls(): AsyncGenerator<VoiceCall> }): Promise<VoiceCall> {
  const next = await server.calls().next();
  if (next.done) throw new Error('no call');
  return next.value;
}

function concat(frames: Int16Array[]): Int16Array {
  const total = frames.reduce((sum, frame) => sum + frame.length, 0);
  const out = new Int16Array(total);
  let offset = 0;
  for (const frame of frames) {
    out.set(frame, offset);
    offset += frame.length;
  }
  return out;
}

let voice: VoiceStreamServer | undefined;
let plain: Server | undefined;
afterEach(async () => {
  await voice?.close();
  voice = undefined;
  if (plain) {
    plain.closeAllConnections();
    await new Promise<void>((resolve) => plain?.close(() => resolve()));
    plain = undefined;
  }
});

describe('voice stream receiver', () => {
  it('yields the handshake first, then exactly the samples sent, across odd frame boundaries', async () => {
    voice = await createVoiceStreamServer({ path: '/voice' });
    expect(voice.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/voice$/);
    const { samples, bytes } = tone();
    const client = await connect(voice.url);
    const call = await firstCall(voice);
    client.send(JSON.stringify({ event: 'start', callId: 'call_1', sampleRate: 8000 }));
    await sendAll(client, oddFrames(bytes));
    client.close(1000);

    const frames: VoiceStreamFrame[] = [];
    for await (const frame of call) frames.push(frame);
    expect(frames[0]).toEqual({ type: 'handshake', data: { event: 'start', callId: 'call_1', sampleRate: 8000 } });
    expect(frames.slice(1).every((frame) => frame.type === 'audio')).toBe(true);
    const received = concat(frames.flatMap((frame) => (frame.type === 'audio' ? [frame.samples] : [])));
    expect(received.length).toBe(8000);
    expect(received).toEqual(samples);
    expect(call.samplesReceived).toBe(8000);
    expect(await call.handshake).toEqual({ event: 'start', callId: 'call_1', sampleRate: 8000 });
    expect(call.closeCode).toBe(1000);
  });

  it('ends the iterator cleanly when the service hangs up mid-call', async () => {
    voice = await createVoiceStreamServer();
    const client = await connect(voice.url);
    const call = await firstCall(voice);
    client.send(JSON.stringify({ callId: 'call_2' }));
    await sendAll(client, [tone(100).bytes.subarray(0, 101)]);
    client.terminate();
    const audio: Int16Array[] = [];
    for await (const samples of call.audio()) audio.push(samples);
    expect(concat(audio).length).toBe(50);
    expect(await call.handshake).toEqual({ callId: 'call_2' });
  });

  it('ends cleanly with no handshake when the service hangs up before the first frame', async () => {
    voice = await createVoiceStreamServer();
    const client = await connect(voice.url);
    const call = await firstCall(voice);
    client.close(1011);
    const frames: VoiceStreamFrame[] = [];
    for await (const frame of call) frames.push(frame);
    expect(frames).toEqual([]);
    expect(await call.handshake).toBeUndefined();
    expect(call.closeCode).toBe(1011);
  });

  it('yields audio when a stream starts without a handshake, and later text frames as messages', async () => {
    voice = await createVoiceStreamServer();
    const client = await connect(voice.url);
    const call = await firstCall(voice);
    const { samples, bytes } = tone(10);
    await sendAll(client, [bytes]);
    client.send(JSON.stringify({ event: 'mark', at: 10 }));
    client.send('plain text');
    client.close();
    const frames: VoiceStreamFrame[] = [];
    for await (const frame of call) frames.push(frame);
    expect(frames).toEqual([
      { type: 'audio', samples },
      { type: 'message', data: { event: 'mark', at: 10 } },
      { type: 'message', data: 'plain text' },
    ]);
    expect(await call.handshake).toBeUndefined();
  });

  it('hangs up when the consumer leaves the loop early', async () => {
    voice = await createVoiceStreamServer();
    const client = await connect(voice.url);
    const call = await firstCall(voice);
    const closed = new Promise<number>((resolve) => client.once('close', (code) => resolve(code)));
    client.send(JSON.stringify({ callId: 'call_3' }));
    for await (const frame of call) {
      if (frame.type === 'handshake') break;
    }
    expect(await closed).toBe(1000);
  });

  it('pauses the socket while the consumer lags and delivers everything once it catches up', async () => {
    voice = await createVoiceStreamServer({ maxQueuedFrames: 8 });
    const client = await connect(voice.url);
    const call = await firstCall(voice);
    // 200 frames of 4001 bytes (odd, so samples straddle frames): far more than one socket read.
    const { samples, bytes } = tone(400_100);
    const frames = Array.from({ length: 200 }, (_, i) => bytes.subarray(i * 4001, (i + 1) * 4001));
    client.send(JSON.stringify({ callId: 'call_4' }));
    const sending = sendAll(client, frames).then(() => client.close());

    const deadline = Date.now() + 5_000;
    while (!call.paused && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(call.paused).toBe(true);
    // Frames already read from one socket chunk (≤ 64 KiB, ~17 frames) still arrive after the pause.
    expect(call.queuedFrames).toBeLessThan(40);

    const audio: Int16Array[] = [];
    for await (const frame of call.audio()) audio.push(frame);
    await sending;
    const received = concat(audio);
    expect(received.length).toBe(samples.length);
    expect(Buffer.from(received.buffer).equals(Buffer.from(samples.buffer))).toBe(true);
  });

  it('attaches to an existing server, keeps other paths for other listeners, and checks authorization', async () => {
    plain = createServer((_req, res) => res.end('ok'));
    const receiver = new VoiceStreamReceiver({
      path: '/voice',
      authorize: (request) => request.headers.authorization === 'Bearer partner-token',
    }).attach(plain);
    await new Promise<void>((resolve) => plain?.listen(0, '127.0.0.1', resolve));
    const { port } = plain.address() as AddressInfo;

    await expect(connect(`ws://127.0.0.1:${port}/voice`)).rejects.toThrow(/401/);
    await expect(connect(`ws://127.0.0.1:${port}/other`, { authorization: 'Bearer partner-token' })).rejects.toThrow(/404/);

    const client = await connect(`ws://127.0.0.1:${port}/voice?call=1`, { authorization: 'Bearer partner-token' });
    const call = await firstCall(receiver);
    expect(call.request.url).toBe('/voice?call=1');
    expect(inspect(call)).not.toContain('partner-token');
    expect(inspect(call)).toContain('"/voice"');
    client.send(JSON.stringify({ callId: 'call_5' }));
    expect(await call.handshake).toEqual({ callId: 'call_5' });
    await receiver.close();
    for await (const frame of call) expect(frame.type).toBe('handshake');
    expect(call.closeCode).toBe(1001);
  });

  it('refuses a call whose authorization was still pending when the receiver closed', async () => {
    let release!: (allowed: boolean) => void;
    let asked!: () => void;
    const authorizing = new Promise<void>((resolve) => (asked = resolve));
    const onCall = vi.fn();
    voice = await createVoiceStreamServer({
      onCall,
      authorize: () => {
        asked();
        return new Promise<boolean>((resolve) => (release = resolve));
      },
    });
    const connecting = connect(voice.url);
    await authorizing;
    const closing = voice.receiver.close();
    release(true);
    await expect(connecting).rejects.toThrow(/503/);
    await closing;
    expect(onCall).not.toHaveBeenCalled();
  });

  it('hands calls to onCall without queueing them', async () => {
    const handed: VoiceCall[] = [];
    voice = await createVoiceStreamServer({ onCall: (call) => void handed.push(call) });
    const client = await connect(voice.url);
    client.send(JSON.stringify({ callId: 'call_6' }));
    const handshake = await (async () => {
      while (handed.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      return handed[0]?.handshake;
    })();
    expect(handshake).toEqual({ callId: 'call_6' });
    client.close();
  });

  it('fails the iterator when the first text frame is not a JSON object', async () => {
    voice = await createVoiceStreamServer();
    const client = await connect(voice.url);
    const call = await firstCall(voice);
    client.send('not json');
    await expect(call.audio().next()).rejects.toThrow(/handshake/);
  });
});

describe('voice stream options', () => {
  const notCounts: unknown[] = [Number.NaN, '256', 0, -1, 2.5, Infinity, null];

  it.each(notCounts)('refuses a maxQueuedFrames or maxPayloadBytes of %o, naming it, before anything listens', async (bad) => {
    for (const option of ['maxQueuedFrames', 'maxPayloadBytes']) {
      const expected = expect.objectContaining({
        name: 'ConfigurationError',
        option,
        message: expect.stringMatching(new RegExp(`^invalid VoiceStreamReceiver option ${option}: must be an integer from 1 to \\d+ \\(got .+\\)$`)),
      });
      expect(() => new VoiceStreamReceiver({ [option]: bad })).toThrow(expected);
      await expect(createVoiceStreamServer({ [option]: bad })).rejects.toThrow(expected);
    }
  });

  it.each(['8080', ' 0 ', '0x50', -1, 65_536, 1.5, Number.NaN, null])('refuses a port of %o, naming it, before anything listens', async (port) => {
    await expect(createVoiceStreamServer({ port: port as never })).rejects.toThrow(
      expect.objectContaining({
        name: 'ConfigurationError',
        option: 'port',
        message: expect.stringMatching(/^invalid createVoiceStreamServer option port: must be an integer from 0 to 65535 \(got .+\)$/),
      }),
    );
  });
});

describe('PCM and WAV helpers', () => {
  it('decodes little-endian samples with negative values and carries an odd byte', () => {
    const decoder = new PcmDecoder();
    const bytes = Buffer.alloc(6);
    bytes.writeInt16LE(-2, 0);
    bytes.writeInt16LE(32767, 2);
    bytes.writeInt16LE(-32768, 4);
    expect(Array.from(decoder.decode(bytes.subarray(0, 3)))).toEqual([-2]);
    expect(decoder.pendingBytes).toBe(1);
    expect(decoder.decode(new Uint8Array(0))).toHaveLength(0);
    expect(decoder.pendingBytes).toBe(1);
    expect(Array.from(decoder.decode(bytes.subarray(3)))).toEqual([32767, -32768]);
    expect(decoder.pendingBytes).toBe(0);
  });

  it('writes a RIFF/WAVE header for 8 kHz 16-bit mono with the right sizes', async () => {
    const { samples, bytes } = tone(800);
    const file = await toWav([samples.subarray(0, 333), samples.subarray(333)]);
    expect(file.length).toBe(44 + 1600);
    expect(file.toString('ascii', 0, 4)).toBe('RIFF');
    expect(file.readUInt32LE(4)).toBe(36 + 1600);
    expect(file.toString('ascii', 8, 16)).toBe('WAVEfmt ');
    expect(file.readUInt32LE(16)).toBe(16);
    expect(file.readUInt16LE(20)).toBe(1);
    expect(file.readUInt16LE(22)).toBe(1);
    expect(file.readUInt32LE(24)).toBe(8000);
    expect(file.readUInt32LE(28)).toBe(16_000);
    expect(file.readUInt16LE(32)).toBe(2);
    expect(file.readUInt16LE(34)).toBe(16);
    expect(file.toString('ascii', 36, 40)).toBe('data');
    expect(file.readUInt32LE(40)).toBe(1600);
    expect(file.subarray(44)).toEqual(bytes);
    expect(wavHeader(1600)).toEqual(file.subarray(0, 44));
  });

  it('streams a WAV file to a path and to a writable stream with the same bytes', async () => {
    const { samples } = tone(1000);
    const directory = await mkdtemp(join(tmpdir(), 'wav-'));
    try {
      const path = join(directory, 'call.wav');
      async function* frames(): AsyncGenerator<Int16Array> {
        yield samples.subarray(0, 500);
        yield samples.subarray(500);
      }
      expect(await writeWav(path, frames())).toBe(1000);
      const stream = new PassThrough();
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      expect(await writeWav(stream, [samples])).toBe(1000);
      expect(await readFile(path)).toEqual(Buffer.concat(chunks));
      expect(await readFile(path)).toEqual(await toWav([samples]));
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
