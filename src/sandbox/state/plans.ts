/** The plan catalog of the sandbox account; plan ids are display names (spec part 2, Plan). */
import type { PlanRecord } from './types.js';

const payg = (perGb: number): Record<string, unknown> => ({
  unit: 'GB',
  tiers: [
    { upTo: 1, pricePerUnit: perGb },
    { upTo: 10, pricePerUnit: Math.round(perGb * 0.7 * 100) / 100 },
    { upTo: null, pricePerUnit: Math.round(perGb * 0.5 * 100) / 100 },
  ],
});

const volume = (): Record<string, unknown> => ({
  basis: 'activeLines',
  tiers: [
    { minLines: 1, maxLines: 49, discountPercent: 0 },
    { minLines: 50, maxLines: 199, discountPercent: 10 },
    { minLines: 200, maxLines: null, discountPercent: 18 },
  ],
});

const base = {
  currency: 'aud',
  validityDays: 30,
  recurring: true,
  isEsim: false,
  pricingConfigured: true,
} as const;

export const PLANS: readonly PlanRecord[] = [
  {
    ...base,
    productId: 'Business 5GB',
    description: '5 GB of data, unlimited national calls and SMS',
    price: 35,
    data: { value: 5, unit: 'GB' },
    voiceMinutes: 10_000,
    smsCount: 10_000,
    operator: 'Telstra',
    network: 'Telstra 4G',
    planType: 'FLAT_RATE',
  },
  {
    ...base,
    productId: 'Business 40GB',
    description: '40 GB on 5G, unlimited national calls and SMS',
    price: 65,
    data: { value: 40, unit: 'GB' },
    voiceMinutes: 10_000,
    smsCount: 10_000,
    operator: 'Telstra',
    network: 'Telstra 5G',
    planType: 'FLAT_RATE',
    volumeTierPricing: volume(),
  },
  {
    ...base,
    productId: 'Unlimited 5G',
    description: 'Unlimited data on 5G',
    price: 89,
    data: { value: 1000, unit: 'GB' },
    voiceMinutes: 10_000,
    smsCount: 10_000,
    operator: 'Optus',
    network: 'Optus 5G',
    planType: 'FLAT_RATE',
    volumeTierPricing: volume(),
  },
  {
    ...base,
    productId: 'Travel eSIM 10GB',
    description: 'Prepaid eSIM, 10 GB for 14 days',
    price: 29,
    validityDays: 14,
    recurring: false,
    isEsim: true,
    data: { value: 10, unit: 'GB' },
    voiceMinutes: 0,
    smsCount: 0,
    operator: 'Optus',
    network: 'Optus 4G',
    planType: 'FLAT_RATE',
  },
  {
    ...base,
    productId: 'Data Pool PAYG',
    description: 'Pay as you go data, tiered per GB',
    price: 0,
    data: { value: 0, unit: 'GB' },
    voiceMinutes: 0,
    smsCount: 0,
    operator: 'Telstra',
    network: 'Telstra 4G',
    planType: 'PAY_AS_YOU_GO',
    tieredPricing: payg(10),
  },
  {
    ...base,
    productId: 'IoT PAYG 1MB',
    description: 'Metered IoT data',
    price: 1.5,
    currency: 'usd',
    data: { value: 1, unit: 'MB' },
    voiceMinutes: 0,
    smsCount: 100,
    operator: 'Vodafone',
    network: 'Vodafone 4G',
    planType: 'PAY_AS_YOU_GO',
    tieredPricing: payg(4),
    volumeTierPricing: volume(),
  },
  {
    ...base,
    productId: 'Vodafone Business 10GB',
    description: '10 GB, national calls',
    price: 45,
    data: { value: 10, unit: 'GB' },
    voiceMinutes: 10_000,
    smsCount: 500,
    operator: 'Vodafone',
    network: 'Vodafone 4G',
    planType: 'FLAT_RATE',
  },
  {
    ...base,
    productId: 'Lebara Starter 3GB',
    description: 'Entry plan',
    price: 15,
    data: { value: 3, unit: 'GB' },
    voiceMinutes: 300,
    smsCount: 300,
    operator: 'Lebara',
    network: 'Lebara 4G',
    planType: 'FLAT_RATE',
  },
  {
    ...base,
    productId: 'Legacy Voice 2GB',
    description: 'Retired plan without a price for this account',
    price: 0,
    data: { value: 2, unit: 'GB' },
    voiceMinutes: 500,
    smsCount: 500,
    operator: 'Telstra',
    network: 'Telstra 4G',
    planType: 'FLAT_RATE',
    pricingConfigured: false,
  },
];

/** A plan as sent: internal flags dropped, pricing objects only when they apply (spec part 2). */
export function planToWire(plan: PlanRecord): Record<string, unknown> {
  const { pricingConfigured: _internal, tieredPricing, volumeTierPricing, ...rest } = plan;
  const wire: Record<string, unknown> = { ...rest };
  if (plan.planType === 'PAY_AS_YOU_GO' && tieredPricing) wire.tieredPricing = tieredPricing;
  if (volumeTierPricing) wire.volumeTierPricing = volumeTierPricing;
  return wire;
}
