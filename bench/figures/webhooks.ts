/**
 * Figure 4: verifySignature on 1 KB deliveries (Buffer bodies, as express.raw gives them) against
 * the bare receiver code: createHmac over `<t>.<body>`, hex digest, timingSafeEqual with the
 * header's v1 hex. The baseline parses nothing; the header parsing is part of what we pay for.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { loadVerifySignature } from '../lib/client.js';
import type { FigureConfig } from '../lib/figure.js';
import { type Row, skippedRow } from '../lib/report.js';
import { median, rotate } from '../lib/stats.js';

const SIGNING_SECRET = 'whsec_bench_0123456789abcdef0123456789abcdef';

function payloadOf(bytes: number): Buffer {
  const event = { id: 'evt_bench', type: 'voice.test.completed', data: { note: '' } };
  const filler = bytes - Buffer.byteLength(JSON.stringify(event));
  event.data.note = 'x'.repeat(Math.max(0, filler));
  return Buffer.from(JSON.stringify(event));
}

function perSecond(fn: () => void, count: number): number {
  const start = performance.now();
  for (let i = 0; i < count; i++) fn();
  return count / ((performance.now() - start) / 1000);
}

export async function measure(config: FigureConfig): Promise<Row[]> {
  const count = config.quick ? 5_000 : 50_000;
  const rounds = config.quick ? 3 : 9;
  const payload = payloadOf(1024);
  const timestamp = Math.floor(Date.now() / 1000);
  const v1 = createHmac('sha256', SIGNING_SECRET).update(`${timestamp}.`).update(payload).digest('hex');
  const header = `t=${timestamp},v1=${v1}`;
  const expectedHex = Buffer.from(v1);
  const now = new Date(timestamp * 1000);

  const variants: Record<string, () => void> = {
    bare: () => {
      const digest = createHmac('sha256', SIGNING_SECRET).update(`${timestamp}.`).update(payload).digest('hex');
      if (!timingSafeEqual(Buffer.from(digest), expectedHex)) throw new Error('bare check failed');
    },
  };
  const loaded = await loadVerifySignature();
  let problem = loaded.ok ? undefined : loaded.reason;
  if (loaded.ok) {
    const verify = loaded.value;
    try {
      verify(payload, header, SIGNING_SECRET, { toleranceSeconds: 300, now });
      variants.verifySignature = () => {
        verify(payload, header, SIGNING_SECRET, { toleranceSeconds: 300, now });
      };
    } catch (error) {
      problem = `verifySignature rejects a valid delivery (${(error as Error).message})`;
    }
  }

  const names = Object.keys(variants);
  for (const name of names) perSecond(variants[name] as () => void, Math.min(count, 20_000));
  const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const name of rotate(names, round)) samples[name]?.push(perSecond(variants[name] as () => void, count));
  }
  const bare = median(samples.bare ?? []);
  const figure = '4. webhook verifications/s, 1 KB body';
  const label = 'createHmac + timingSafeEqual';
  if (!samples.verifySignature) return [skippedRow('webhooks', figure, '≥ 0.9', problem ?? 'not measured', { value: bare, unit: '/s', label })];
  const ours = median(samples.verifySignature);
  // Each round runs both back to back; the ratio within a round sees the same machine load.
  const ratio = median(samples.verifySignature.map((rate, round) => rate / (samples.bare?.[round] ?? Number.NaN)));
  return [
    {
      id: 'webhooks',
      figure,
      value: ours,
      baseline: bare,
      unit: '/s',
      baselineLabel: label,
      ratio,
      goal: '≥ 0.9',
      met: ratio >= 0.9,
      note: `ratio = median over ${rounds} rounds of the ratio within each round; values are median rates`,
    },
  ];
}
