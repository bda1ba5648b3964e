// undici's WHATWG WebSocket (a dependency already) rather than `ws`: the sandbox then needs no
// WebSocket library of its own, and undici's constructor takes the registration's headers.
import { WebSocket } from 'undici';
import type { Scheduler } from './scheduler.js';

/** spec part 4 registration rule 2: 8 kHz, 16-bit little-endian, mono PCM. */
export const SAMPLE_RATE = 8000;
export const FRAME_MS = 20;
const SAMPLES_PER_FRAME = (SAMPLE_RATE * FRAME_MS) / 1000;
const AMPLITUDE = 0.5 * 32767;

/** The first frame of every stream; the spec does not show it (part 6), this shape is the sandbox's. */
export interface StreamHandshake {
  event: 'stream.start';
  callId: string;
  operator: string;
  network: string;
  from: string;
  to: string;
  encoding: 'pcm_s16le';
  sampleRate: number;
  channels: 1;
  frameDurationMs: number;
  startedAt: string;
}

export interface StreamResult {
  url: string;
  connected: boolean;
  framesSent: number;
  samplesSent: number;
}

export interface StreamOptions {
  url: string;
  headers: Record<string, string>;
  handshake: StreamHandshake;
  durationMs: number;
  toneHz: number;
  /** Real milliseconds the receiver gets to accept the connection. */
  connectTimeoutMs: number;
  scheduler: Scheduler;
  signal: AbortSignal;
}

/** http(s) URLs are dialled as ws(s) (spec part 2: voiceStreamUrl is always a WebSocket). */
function toWebSocketUrl(url: string): string {
  return url.replace(/^http(s?):/i, 'ws$1:');
}

/** One frame of a continuous sine tone starting at sample `offset`. */
function toneFrame(toneHz: number, offset: number, samples: number): Buffer {
  const frame = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) {
    const value = Math.round(AMPLITUDE * Math.sin((2 * Math.PI * toneHz * (offset + i)) / SAMPLE_RATE));
    frame.writeInt16LE(value, i * 2);
  }
  return frame;
}

/** Real time, like a delivery's answer: the receiver accepts in real time whatever the clock's scale. */
function opened(socket: WebSocket, options: StreamOptions): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (value: boolean): void => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', fail);
      socket.removeEventListener('open', succeed);
      socket.removeEventListener('error', fail);
      socket.removeEventListener('close', fail);
      resolve(value);
    };
    const fail = (): void => done(false);
    const succeed = (): void => done(true);
    const timer = setTimeout(fail, options.connectTimeoutMs);
    options.signal.addEventListener('abort', fail, { once: true });
    socket.addEventListener('open', succeed);
    socket.addEventListener('error', fail);
    socket.addEventListener('close', fail);
  });
}

/** Bytes queued on the socket above which sending waits, which paces us to the receiver (back-pressure). */
const HIGH_WATER_BYTES = 64 * 1024;

async function send(socket: WebSocket, data: string | Buffer, signal: AbortSignal): Promise<boolean> {
  if (socket.readyState !== WebSocket.OPEN) return false;
  socket.send(data);
  while (socket.bufferedAmount > HIGH_WATER_BYTES && socket.readyState === WebSocket.OPEN && !signal.aborted) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  return socket.readyState === WebSocket.OPEN;
}

/**
 * Dials one voiceStreamUrl, sends the JSON handshake, then the tone as 20 ms PCM frames paced on
 * the sandbox clock (real time at scale 1), then closes normally.
 */
export async function streamCall(options: StreamOptions): Promise<StreamResult> {
  const result: StreamResult = { url: options.url, connected: false, framesSent: 0, samplesSent: 0 };
  const socket = new WebSocket(toWebSocketUrl(options.url), { headers: options.headers });
  socket.binaryType = 'arraybuffer';
  const stop = (): void => socket.close();
  options.signal.addEventListener('abort', stop, { once: true });
  try {
    result.connected = await opened(socket, options);
    if (!result.connected || !(await send(socket, JSON.stringify(options.handshake), options.signal))) return result;
    const totalSamples = Math.round((options.durationMs * SAMPLE_RATE) / 1000);
    const startMs = options.scheduler.now();
    while (result.samplesSent < totalSamples) {
      const dueMs = startMs + result.framesSent * FRAME_MS;
      const waitMs = dueMs - options.scheduler.now();
      if (waitMs > 0) await options.scheduler.sleep(waitMs, options.signal);
      const samples = Math.min(SAMPLES_PER_FRAME, totalSamples - result.samplesSent);
      if (!(await send(socket, toneFrame(options.toneHz, result.samplesSent, samples), options.signal))) return result;
      result.framesSent += 1;
      result.samplesSent += samples;
    }
    await closed(socket);
    return result;
  } finally {
    options.signal.removeEventListener('abort', stop);
    if (socket.readyState !== WebSocket.CLOSED) socket.close();
  }
}

/** Closes with 1000 and waits briefly for the receiver's close frame. */
function closed(socket: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    if (socket.readyState !== WebSocket.OPEN) {
      resolve();
      return;
    }
    const timer = setTimeout(resolve, 1000);
    timer.unref();
    socket.addEventListener(
      'close',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
    socket.close(1000, 'call ended');
  });
}
