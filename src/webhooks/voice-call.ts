import type { IncomingMessage } from 'node:http';
import { positiveIntegerProblem } from '../shared/integer-option.js';
import { checkOption } from './options.js';
import { jsonObjectSchema } from './event-types.js';
import { PcmDecoder } from './pcm.js';
import { refuseUnknownOptions } from '../core/unknown-options.js';
import type { OptionNames } from '../shared/option-names.js';

/** A message as the `ws` library hands it over, depending on `binaryType` and fragmentation. */
export type VoiceSocketData = Buffer | ArrayBuffer | Buffer[];

/**
 * The part of a server-side WebSocket of the `ws` library (its `WebSocket`) that a
 * {@link VoiceCall} uses. Declared here so that the published types do not depend on `@types/ws`,
 * which partners need not install; a `ws` socket fits it as is.
 */
export interface VoiceSocket {
  binaryType: 'nodebuffer' | 'arraybuffer' | 'fragments';
  readonly readyState: number;
  readonly OPEN: number;
  readonly CONNECTING: number;
  readonly isPaused: boolean;
  /** Each message received. */
  on(event: 'message', listener: (data: VoiceSocketData, isBinary: boolean) => void): unknown;
  /** A socket error; the socket closes after it. */
  on(event: 'error', listener: (error: Error) => void): unknown;
  /** The connection closed, with the close frame's code and reason. */
  once(event: 'close', listener: (code: number, reason: Buffer) => void): unknown;
  /** Stops reading from the socket (backpressure). */
  pause(): void;
  /** Reads again after `pause()`. */
  resume(): void;
  /** Starts the closing handshake. */
  close(code?: number, reason?: string): void;
  /** Destroys the connection at once. */
  terminate(): void;
}

/**
 * The JSON frame the service sends first. Its content is not shown in the spec (part 6): the
 * fields the sandbox sends are named, any JSON value each; every field received is kept.
 */
export interface VoiceHandshake {
  /** The sandbox sends `stream.start`. */
  event?: unknown;
  callId?: unknown;
  operator?: unknown;
  network?: unknown;
  from?: unknown;
  to?: unknown;
  /** The sandbox sends `pcm_s16le`. */
  encoding?: unknown;
  sampleRate?: unknown;
  channels?: unknown;
  frameDurationMs?: unknown;
  startedAt?: unknown;
}

/**
 * One frame of a {@link VoiceCall}: the service's JSON handshake first, then audio as 16-bit
 * signed samples at 8 kHz mono; a text frame after the handshake is a `message`.
 */
export type VoiceStreamFrame =
  | { type: 'handshake'; data: VoiceHandshake }
  | { type: 'audio'; samples: Int16Array }
  /** A text frame after the handshake, parsed when it is JSON. */
  | { type: 'message'; data: unknown };

/** Options of {@link VoiceCall}. */
export interface VoiceCallOptions {
  /** Frames buffered before the socket is paused until the consumer catches up, a positive integer. Default 256 (~several seconds of audio). */
  maxQueuedFrames?: number;
}

/** The names {@link VoiceCallOptions} takes, refused otherwise (ConfigurationError). */
export const VOICE_CALL_OPTION_NAMES = { maxQueuedFrames: true } as const satisfies OptionNames<VoiceCallOptions>;

type Pending = { resolve: (result: IteratorResult<VoiceStreamFrame>) => void; reject: (error: unknown) => void };

function toBytes(data: VoiceSocketData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}

function parseText(data: VoiceSocketData): unknown {
  const text = Buffer.from(toBytes(data)).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * One live call streamed by the service (spec part 4, registration rule 2). Iterate it for the
 * handshake then audio; the iterator ends when the service closes the connection, at any point.
 * Frames are queued up to `maxQueuedFrames`; past that the socket is paused (TCP pushes back on
 * the sender) and resumed once the consumer has drained half of the queue.
 */
export class VoiceCall implements AsyncIterable<VoiceStreamFrame> {
  /** The upgrade request, for its headers (the registration's authentication credential, spec part 5 rule 8). */
  readonly request: IncomingMessage;
  /** Resolves with the handshake, or undefined when the stream started with audio or closed first. */
  readonly handshake: Promise<VoiceHandshake | undefined>;
  /** Samples received so far. */
  samplesReceived = 0;
  /** The close code once the connection has closed. */
  closeCode: number | undefined;

  readonly #socket: VoiceSocket;
  readonly #decoder = new PcmDecoder();
  readonly #queue: VoiceStreamFrame[] = [];
  readonly #highWater: number;
  #pending: Pending | undefined;
  #failure: Error | undefined;
  #ended = false;
  #sawFirstFrame = false;
  #resolveHandshake!: (handshake: VoiceHandshake | undefined) => void;

  constructor(socket: VoiceSocket, request: IncomingMessage, options: VoiceCallOptions = {}) {
    refuseUnknownOptions(options, VOICE_CALL_OPTION_NAMES, 'VoiceCall');
    this.#socket = socket;
    this.request = request;
    // Compared with the queue's length: NaN or a string would never be reached, and the queue would grow without bound.
    checkOption('VoiceCall', 'maxQueuedFrames', options.maxQueuedFrames, positiveIntegerProblem);
    this.#highWater = options.maxQueuedFrames ?? 256;
    this.handshake = new Promise((resolve) => {
      this.#resolveHandshake = resolve;
    });
    socket.binaryType = 'nodebuffer';
    socket.on('message', (data, isBinary) => this.#onMessage(data, isBinary));
    socket.once('close', (code) => {
      this.closeCode = code;
      this.#end();
    });
    socket.on('error', (error) => {
      this.#failure ??= error;
      this.#end();
    });
  }

  /** Frames waiting for the consumer. */
  get queuedFrames(): number {
    return this.#queue.length;
  }

  /** True while the socket is paused because the consumer lags. */
  get paused(): boolean {
    return this.#socket.isPaused;
  }

  #onMessage(data: VoiceSocketData, isBinary: boolean): void {
    if (this.#ended) return;
    const first = !this.#sawFirstFrame;
    this.#sawFirstFrame = true;
    if (isBinary) {
      if (first) this.#resolveHandshake(undefined);
      const samples = this.#decoder.decode(toBytes(data));
      if (samples.length === 0) return;
      this.samplesReceived += samples.length;
      this.#push({ type: 'audio', samples });
      return;
    }
    const parsed = parseText(data);
    if (first) {
      const handshake = jsonObjectSchema().safeParse(parsed);
      if (!handshake.success) {
        this.#failure = new Error('the voice stream handshake frame is not a JSON object');
        this.#resolveHandshake(undefined);
        this.#socket.close(1007, 'handshake is not a JSON object');
        this.#end();
        return;
      }
      this.#resolveHandshake(handshake.data);
      this.#push({ type: 'handshake', data: handshake.data });
      return;
    }
    this.#push({ type: 'message', data: parsed });
  }

  #push(frame: VoiceStreamFrame): void {
    const pending = this.#pending;
    if (pending) {
      this.#pending = undefined;
      pending.resolve({ value: frame, done: false });
      return;
    }
    this.#queue.push(frame);
    if (this.#queue.length >= this.#highWater && !this.#socket.isPaused) this.#socket.pause();
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#resolveHandshake(undefined);
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending && this.#queue.length === 0) {
      if (this.#failure) pending.reject(this.#failure);
      else pending.resolve({ value: undefined, done: true });
    }
  }

  #next(): Promise<IteratorResult<VoiceStreamFrame>> {
    const frame = this.#queue.shift();
    if (frame) {
      if (this.#socket.isPaused && this.#queue.length <= this.#highWater >> 1) this.#socket.resume();
      return Promise.resolve({ value: frame, done: false });
    }
    if (this.#ended) {
      const failure = this.#failure;
      this.#failure = undefined;
      return failure ? Promise.reject(failure) : Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve, reject) => {
      this.#pending = { resolve, reject };
    });
  }

  /** Closes the connection; frames already queued are dropped. */
  close(code = 1000, reason = ''): void {
    this.#queue.length = 0;
    // A paused socket could never read the peer's answer to the close frame.
    if (this.#socket.isPaused) this.#socket.resume();
    if (this.#socket.readyState === this.#socket.OPEN || this.#socket.readyState === this.#socket.CONNECTING) {
      this.#socket.close(code, reason);
    }
    this.#end();
  }

  /** Drops the connection without a closing handshake. */
  terminate(): void {
    this.#queue.length = 0;
    this.#socket.terminate();
    this.#end();
  }

  /** The call's frames in order: `for await (const frame of call)`. Ends when the connection closes. */
  [Symbol.asyncIterator](): AsyncIterator<VoiceStreamFrame> {
    return {
      next: () => this.#next(),
      // Leaving a for-await early hangs up: nobody is listening any more.
      return: async () => {
        this.close();
        return { value: undefined, done: true };
      },
    };
  }

  /** What a log line may show: never the upgrade request, whose headers may carry the registration's credential. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    // The query string is left out too: a voiceStreamUrl may carry a token there.
    const path = (this.request.url ?? '').split('?')[0] ?? '';
    return `VoiceCall { path: ${JSON.stringify(path)}, samplesReceived: ${this.samplesReceived}, queuedFrames: ${this.#queue.length}, closeCode: ${String(this.closeCode)} }`;
  }

  /** Only the audio, as `Int16Array` frames of 8 kHz samples; the handshake stays on `call.handshake`. */
  async *audio(): AsyncGenerator<Int16Array, void, undefined> {
    for await (const frame of this) {
      if (frame.type === 'audio') yield frame.samples;
    }
  }
}
