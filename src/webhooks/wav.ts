import { open } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { refuseUnknownOptions } from '../core/unknown-options.js';
import type { OptionNames } from '../shared/option-names.js';
import { encodePcm16le, VOICE_SAMPLE_RATE } from './pcm.js';

/** The format written by {@link toWav}, {@link writeWav} and {@link wavHeader}; samples are always 16-bit. */
export interface WavOptions {
  /** Samples per second; default 8000, the voice stream's rate. */
  sampleRate?: number;
  /** Channels, interleaved; default 1. */
  channels?: number;
}

/** Refused otherwise, with a ConfigurationError naming the option and the nearest known one. */
const WAV_OPTION_NAMES = { sampleRate: true, channels: true } as const satisfies OptionNames<WavOptions>;

const HEADER_BYTES = 44;

/** The 44-byte RIFF/WAVE header of 16-bit PCM with `dataBytes` of samples after it. */
export function wavHeader(dataBytes: number, options: WavOptions = {}): Buffer {
  refuseUnknownOptions(options, WAV_OPTION_NAMES, 'wavHeader');
  const sampleRate = options.sampleRate ?? VOICE_SAMPLE_RATE;
  const channels = options.channels ?? 1;
  const blockAlign = channels * 2;
  const header = Buffer.alloc(HEADER_BYTES);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // size of the fmt chunk
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * blockAlign, 28); // byte rate
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

/** A whole WAV file in memory, from chunks of samples (such as `call.audio()` of a {@link VoiceCall}). */
export async function toWav(samples: Iterable<Int16Array> | AsyncIterable<Int16Array>, options: WavOptions = {}): Promise<Buffer> {
  refuseUnknownOptions(options, WAV_OPTION_NAMES, 'toWav');
  const parts: Buffer[] = [];
  let size = 0;
  for await (const frame of samples) {
    const bytes = encodePcm16le(frame);
    parts.push(bytes);
    size += bytes.length;
  }
  return Buffer.concat([wavHeader(size, options), ...parts]);
}

function waitWritable(stream: Writable, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const ok = stream.write(chunk, (error) => {
      if (error) reject(error);
    });
    if (ok) resolve();
    else stream.once('drain', resolve);
  });
}

/**
 * Writes samples as a WAV file. To a path, the samples stream to disk and the header's sizes
 * are filled in at the end, so a long call never sits in memory; to a stream, which cannot be
 * rewound, the samples are gathered first. Returns the number of samples written.
 */
export async function writeWav(
  destination: string | Writable,
  samples: Iterable<Int16Array> | AsyncIterable<Int16Array>,
  options: WavOptions = {},
): Promise<number> {
  refuseUnknownOptions(options, WAV_OPTION_NAMES, 'writeWav');
  if (typeof destination !== 'string') {
    const file = await toWav(samples, options);
    await waitWritable(destination, file);
    return (file.length - HEADER_BYTES) / 2;
  }
  const handle = await open(destination, 'w');
  try {
    let size = 0;
    await handle.write(wavHeader(0, options), 0, HEADER_BYTES, 0);
    for await (const frame of samples) {
      const bytes = encodePcm16le(frame);
      await handle.write(bytes, 0, bytes.length, HEADER_BYTES + size);
      size += bytes.length;
    }
    await handle.write(wavHeader(size, options), 0, HEADER_BYTES, 0);
    return size / 2;
  } finally {
    await handle.close();
  }
}
