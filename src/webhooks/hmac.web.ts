/**
 * hmac.ts without Node's crypto, for the build used by Workers, edge runtimes and browsers:
 * SHA-256 (FIPS 180-4) and HMAC (RFC 2104) in plain JavaScript, so that the synchronous
 * `signPayload`, `verifySignature` and `constructEvent` of the main entry work there too. Web
 * Crypto has no synchronous digest; the receiving side's `createFetchHandler` uses it through
 * `verifySignatureAsync`. A webhook body is small (the handler caps it at 1 MiB by default), so
 * speed here is not what decides.
 */

/** The first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
const ROUND_CONSTANTS = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/** The first 32 bits of the fractional parts of the square roots of the first 8 primes. */
const INITIAL_HASH = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

const BLOCK_BYTES = 64;

function rotr(value: number, bits: number): number {
  return (value >>> bits) | (value << (32 - bits));
}

function sha256(message: Uint8Array): Uint8Array {
  // The message, a 1 bit, zeros, and the message's length in bits as 64 bits big-endian.
  const blocks = new Uint8Array(Math.ceil((message.length + 9) / BLOCK_BYTES) * BLOCK_BYTES);
  blocks.set(message);
  blocks[message.length] = 0x80;
  const view = new DataView(blocks.buffer);
  const bits = message.length * 8;
  view.setUint32(blocks.length - 8, Math.floor(bits / 0x1_0000_0000));
  view.setUint32(blocks.length - 4, bits >>> 0);
  const hash = [...INITIAL_HASH];
  const schedule = new DataView(new ArrayBuffer(64 * 4));
  for (let offset = 0; offset < blocks.length; offset += BLOCK_BYTES) {
    for (let t = 0; t < 16; t++) schedule.setUint32(t * 4, view.getUint32(offset + t * 4));
    for (let t = 16; t < 64; t++) {
      const back15 = schedule.getUint32((t - 15) * 4);
      const back2 = schedule.getUint32((t - 2) * 4);
      const sigma0 = rotr(back15, 7) ^ rotr(back15, 18) ^ (back15 >>> 3);
      const sigma1 = rotr(back2, 17) ^ rotr(back2, 19) ^ (back2 >>> 10);
      schedule.setUint32(t * 4, (schedule.getUint32((t - 16) * 4) + sigma0 + schedule.getUint32((t - 7) * 4) + sigma1) >>> 0);
    }
    let [a, b, c, d, e, f, g, h] = hash as [number, number, number, number, number, number, number, number];
    for (let t = 0; t < 64; t++) {
      const sum1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const choose = (e & f) ^ (~e & g);
      const temp1 = (h + sum1 + choose + (ROUND_CONSTANTS[t] as number) + schedule.getUint32(t * 4)) | 0;
      const sum0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const majority = (a & b) ^ (a & c) ^ (b & c);
      const temp2 = (sum0 + majority) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + temp1) | 0;
      d = c;
      c = b;
      b = a;
      a = (temp1 + temp2) | 0;
    }
    const round = [a, b, c, d, e, f, g, h];
    for (let i = 0; i < 8; i++) hash[i] = ((hash[i] as number) + (round[i] as number)) | 0;
  }
  const digest = new Uint8Array(32);
  const out = new DataView(digest.buffer);
  for (let i = 0; i < 8; i++) out.setUint32(i * 4, (hash[i] as number) >>> 0);
  return digest;
}

const encoder = new TextEncoder();

function concat(first: Uint8Array, second: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(first.length + second.length);
  bytes.set(first);
  bytes.set(second, first.length);
  return bytes;
}

function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

export function hmacSha256Hex(key: string, prefix: string, body: string | Uint8Array): string {
  let keyBytes: Uint8Array = encoder.encode(key);
  if (keyBytes.length > BLOCK_BYTES) keyBytes = sha256(keyBytes);
  const inner = new Uint8Array(BLOCK_BYTES).fill(0x36);
  const outer = new Uint8Array(BLOCK_BYTES).fill(0x5c);
  keyBytes.forEach((byte, i) => {
    inner[i] = (inner[i] as number) ^ byte;
    outer[i] = (outer[i] as number) ^ byte;
  });
  const message = concat(encoder.encode(prefix), typeof body === 'string' ? encoder.encode(body) : body);
  return toHex(sha256(concat(outer, sha256(concat(inner, message)))));
}
