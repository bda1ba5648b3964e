/** spec part 4, registration rule 2: the voice stream is 8 kHz, 16-bit, mono PCM. */
export const VOICE_SAMPLE_RATE = 8000;
const VOICE_BYTES_PER_SAMPLE = 2;

/**
 * Turns a stream of binary frames into 16-bit little-endian samples. Frames need not hold a
 * whole number of samples: an odd last byte is kept and joined to the next frame. Samples are
 * read as little-endian whatever the host's byte order.
 */
export class PcmDecoder {
  #carry: number | undefined;

  /** A byte left over from the last frame, waiting for its partner. */
  get pendingBytes(): number {
    return this.#carry === undefined ? 0 : 1;
  }

  /** The whole samples of `frame` (with a byte carried from the previous frame); an odd last byte waits for the next. */
  decode(frame: Uint8Array): Int16Array {
    if (frame.byteLength === 0) return new Int16Array(0);
    const carried = this.#carry === undefined ? 0 : 1;
    const total = carried + frame.byteLength;
    const samples = new Int16Array(total >> 1);
    let i = 0;
    let s = 0;
    if (carried === 1 && samples.length > 0) {
      samples[s++] = ((((frame[0] ?? 0) << 8) | (this.#carry ?? 0)) << 16) >> 16;
      i = 1;
    }
    for (; s < samples.length; s++, i += 2) {
      // Low byte first (little-endian); the shifts sign-extend the 16-bit value.
      samples[s] = ((((frame[i + 1] ?? 0) << 8) | (frame[i] ?? 0)) << 16) >> 16;
    }
    this.#carry = total % 2 === 1 ? frame[frame.byteLength - 1] : undefined;
    return samples;
  }
}

/** Samples as little-endian bytes, for files and sockets. */
export function encodePcm16le(samples: Int16Array): Buffer {
  const bytes = Buffer.allocUnsafe(samples.length * VOICE_BYTES_PER_SAMPLE);
  for (let i = 0; i < samples.length; i++) bytes.writeInt16LE(samples[i] ?? 0, i * 2);
  return bytes;
}
