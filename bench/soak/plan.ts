/**
 * The soak's operations: a fixed mix of reads, keyed writes, unkeyed writes and awaited async
 * operations, drawn from a seed so the same seed always plans the same run. Every operation has
 * its own id, sent as `X-Request-Id` on every attempt, so the sandbox's commit journal tells how
 * often its write was applied.
 */

/**
 * How a write is protected against applying twice:
 * - `spec`: the spec marks the route (idem); the client sends its own key.
 * - `caller`: the caller passes `idempotencyKey` (its assertion that the route honours it).
 * - `none`: no key from the caller; whether the client adds one is the client's business.
 */
type Keying = 'read' | 'spec' | 'caller' | 'none';

type OperationKind =
  | 'sims.list'
  | 'plans.retrieve'
  | 'billing.retrieveCreditBalance'
  | 'subscriptions.list'
  | 'teamMembers.retrieve'
  | 'sims.retrieveSubscription'
  | 'sms.send'
  | 'devices.assign'
  | 'subscriptions.cancel'
  | 'userGroups.delete'
  | 'plans.purchase'
  | 'teamMembers.create'
  | 'sims.renewNumber'
  | 'esim.provision+wait'
  | 'billing.topUp+wait'
  | 'plans.purchaseAsync+wait';

export interface Operation {
  /** Unique in the run; the `X-Request-Id` of every attempt. */
  id: string;
  kind: OperationKind;
  keying: Keying;
  /** The method's arguments except the options, as plain JSON. */
  args: unknown[];
  /** Set when keying is `caller`. */
  idempotencyKey?: string;
}

/** What the plan draws arguments from: identifiers of the sandbox's seeded account. */
export interface SoakInputs {
  phoneNumbers: string[];
  /** Lines whose subscription can be cancelled, each used at most once. */
  cancellableIccids: string[];
  /** Lines used for purchases and subscription reads. */
  iccids: string[];
  /** Lines whose numbers are renewed; none of them sends SMS, so renewals never break an SMS. */
  renewIccids: string[];
  /** Unassigned devices, each with the end user it is always assigned to (a repeat changes nothing). */
  devices: Array<{ imei: string; email: string }>;
  userGroupNames: string[];
  pricedPlanIds: string[];
  adminEmail: string;
}

/** Share of each kind in the mix (weights add up to 100): reads 35, spec-idempotent writes 23, caller-keyed writes 9, unkeyed writes 15, unkeyed async writes 18. */
const MIX: ReadonlyArray<[OperationKind, Keying, number]> = [
  ['sims.list', 'read', 8],
  ['plans.retrieve', 'read', 6],
  ['billing.retrieveCreditBalance', 'read', 6],
  ['subscriptions.list', 'read', 5],
  ['teamMembers.retrieve', 'read', 5],
  ['sims.retrieveSubscription', 'read', 5],
  ['sms.send', 'spec', 10],
  ['devices.assign', 'spec', 6],
  ['subscriptions.cancel', 'spec', 6],
  ['userGroups.delete', 'spec', 1],
  ['plans.purchase', 'caller', 3],
  ['teamMembers.create', 'caller', 3],
  ['billing.topUp+wait', 'caller', 3],
  ['plans.purchase', 'none', 6],
  ['teamMembers.create', 'none', 5],
  ['sims.renewNumber', 'none', 4],
  ['esim.provision+wait', 'none', 7],
  ['billing.topUp+wait', 'none', 6],
  ['plans.purchaseAsync+wait', 'none', 5],
];

/** mulberry32: small, seeded, and the same in every Node version. */
function createDice(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function planOperations(count: number, seed: number, inputs: SoakInputs): Operation[] {
  const dice = createDice(seed);
  const pick = <T>(items: readonly T[]): T => {
    const item = items[Math.floor(dice() * items.length)];
    if (item === undefined) throw new RangeError('the soak inputs have an empty list');
    return item;
  };
  const total = MIX.reduce((sum, [, , weight]) => sum + weight, 0);
  let cancelled = 0;
  const operations: Operation[] = [];
  for (let i = 0; i < count; i++) {
    let roll = dice() * total;
    let chosen = MIX[0] as (typeof MIX)[number];
    for (const entry of MIX) {
      chosen = entry;
      roll -= entry[2];
      if (roll < 0) break;
    }
    const [kind, keying] = chosen;
    const id = `soak-${seed}-${i}`;
    const args = argsFor(kind, id, i);
    operations.push({ id, kind, keying, args, ...(keying === 'caller' ? { idempotencyKey: `${id}-key` } : {}) });
  }
  return operations;

  function argsFor(kind: OperationKind, id: string, index: number): unknown[] {
    switch (kind) {
      case 'sims.list':
        return [{ pageSize: 20, page: 1 + Math.floor(dice() * 5) }];
      case 'plans.retrieve':
        return [pick(inputs.pricedPlanIds)];
      case 'billing.retrieveCreditBalance':
        return [];
      case 'subscriptions.list':
        return [{ pageSize: 20 }];
      case 'teamMembers.retrieve':
        return [inputs.adminEmail];
      case 'sims.retrieveSubscription':
        return [pick(inputs.iccids)];
      case 'sms.send':
        // The text carries the id, so an SMS applied twice would be two messages with one id.
        return [{ fromNumber: pick(inputs.phoneNumbers), toNumber: '+14155550100', text: `soak ${id}` }];
      case 'devices.assign': {
        const device = pick(inputs.devices);
        return [device.imei, { email: device.email }];
      }
      case 'subscriptions.cancel':
        // Each line once while lines last; later cancels meet 409 CONFLICT, a typed answer.
        return [inputs.cancellableIccids[cancelled++ % inputs.cancellableIccids.length]];
      case 'userGroups.delete':
        return [pick(inputs.userGroupNames)];
      case 'plans.purchase':
      case 'plans.purchaseAsync+wait':
        return [{ iccid: pick(inputs.iccids), planId: pick(inputs.pricedPlanIds) }];
      case 'teamMembers.create':
        return [{ name: `Soak ${index}`, email: `${id}@soak.example`, role: 'Admin' }];
      case 'sims.renewNumber':
        return [pick(inputs.renewIccids)];
      case 'esim.provision+wait':
        return [{ planId: pick(inputs.pricedPlanIds) }];
      case 'billing.topUp+wait':
        return [{ amount: 1 + (index % 100) / 100 }];
      default: {
        const unknown: never = kind;
        throw new Error(`unknown operation ${String(unknown)}`);
      }
    }
  }
}
