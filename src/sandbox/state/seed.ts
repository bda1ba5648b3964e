/** Builds the account's initial state from the seed: same seed, same data, byte for byte. */
import { createRng } from '../rng.js';
import type {
  DeviceRecord,
  EndUserRecord,
  OperatorRecord,
  OrderRecord,
  PlanRecord,
  PortInStatus,
  SandboxState,
  SimRecord,
  SimStatus,
  SubscriptionRecord,
  SubscriptionStatus,
  TeamMemberRecord,
} from './types.js';
import { PLANS } from './plans.js';

/** Seeded timestamps hang off a fixed day so they do not depend on when the sandbox starts. */
const DAY_MS = 86_400_000;

const pad = (value: number, width: number): string => String(value).padStart(width, '0');

/**
 * `new Date(ms).toISOString()` by arithmetic, for the whole milliseconds of years 1970–9999 the
 * seed writes (anything else goes through Date): a seed writes over a thousand timestamps, and
 * this takes a fraction of Date's time. The calendar is Howard Hinnant's `civil_from_days`.
 */
export function iso(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms >= 253_402_300_800_000) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY_MS);
  const time = ms - days * DAY_MS;
  const shifted = days + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1_460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(time / 3_600_000);
  const minutes = Math.floor(time / 60_000) % 60;
  const seconds = Math.floor(time / 1_000) % 60;
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}.${pad(time % 1_000, 3)}Z`;
}

const OPERATORS: readonly OperatorRecord[] = [
  { name: 'Telstra', networks: ['Telstra 4G', 'Telstra 5G'], outboundSms: true, inboundSms: true },
  { name: 'Optus', networks: ['Optus 4G', 'Optus 5G'], outboundSms: true, inboundSms: true },
  { name: 'Vodafone', networks: ['Vodafone 4G'], outboundSms: false, inboundSms: true },
  { name: 'Lebara', networks: ['Lebara 4G'], outboundSms: true, inboundSms: false },
];

export const TEAM_ROLES = ['Admin', 'Standard Admin'] as const;
export const DEPARTMENTS = ['Sales', 'Support', 'Engineering', 'Finance', 'Operations'] as const;

const FIRST = ['Ava', 'Noah', 'Mia', 'Liam', 'Zoe', 'Ethan', 'Chloe', 'Lucas', 'Isla', 'Oliver', 'Ruby', 'Jack', 'Aisha', 'Kenji', 'Léa', 'Mateo'];
const LAST = ['Nguyen', 'Smith', 'Patel', 'Brown', 'Wilson', 'Taylor', 'Kim', 'Garcia', 'Rossi', 'Müller', 'Chen', "O'Brien"];
const MODELS = ['iPhone 15', 'iPhone 14', 'Galaxy S24', 'Pixel 8', 'Galaxy A54', 'Moto G84', 'iPad Air (cellular)'];
const SIM_GROUPS = [
  { name: 'Sales/East', spendLimit: 1500, dataQuota: 200, currency: 'aud', dataUnit: 'GB' },
  { name: 'Field Ops', spendLimit: 3000, dataQuota: 500, currency: 'aud', dataUnit: 'GB' },
  { name: 'Équipe Montréal 📱', spendLimit: 800, dataQuota: 50, currency: 'usd', dataUnit: 'GB' },
  { name: 'Engineering', spendLimit: 2000, dataQuota: 1024, currency: 'aud', dataUnit: 'GB' },
  { name: 'engineering', spendLimit: 100, dataQuota: 10, currency: 'aud', dataUnit: 'GB' },
];
const USER_GROUPS = ['Sales Team', 'Remote/Contractors', 'Führung', 'Support'];

/** Every SIM status, spread so each filter has matches. */
function simStatus(roll: number): SimStatus {
  return roll < 0.7 ? 'ACTIVE' : roll < 0.9 ? 'INACTIVE' : 'EXPIRED';
}

function subscriptionStatus(roll: number): SubscriptionStatus {
  if (roll < 0.55) return 'ACTIVE';
  if (roll < 0.65) return 'PENDING';
  if (roll < 0.75) return 'CANCEL_SCHEDULED';
  if (roll < 0.9) return 'CANCELLED';
  return 'SCHEDULED';
}

/**
 * `anchorMs` is the day the data hangs off (the sandbox clock's start, at UTC midnight): the same
 * seed and day give the same data, and serving subscriptions are current whenever it runs.
 */
export function seedState(seed: number, simCount: number, anchorMs: number): SandboxState {
  const ANCHOR_MS = anchorMs - (anchorMs % DAY_MS);
  const rng = createRng(seed);
  const usedIccids = new Set<string>();
  const usedNumbers = new Set<string>();
  const newIccid = (): string => {
    for (;;) {
      const id = `8961${rng.digits(rng.next() < 0.5 ? 15 : 16)}`;
      if (!usedIccids.has(id)) return (usedIccids.add(id), id);
    }
  };
  const newNumber = (): string => {
    for (;;) {
      const n = `+614${rng.digits(8)}`;
      if (!usedNumbers.has(n) && !n.endsWith('0000')) return (usedNumbers.add(n), n);
    }
  };

  const users = new Map<string, EndUserRecord>();
  for (let i = 0; users.size < 48; i++) {
    const first = rng.pick(FIRST);
    const last = rng.pick(LAST);
    const local = `${first}.${last}`
      .toLowerCase()
      .normalize('NFD')
      .replace(/[^a-z.]/g, '');
    const email = users.size === 0 ? 'ops+fleet@acme.example' : `${local}${i}@acme.example`;
    users.set(email, {
      email,
      name: users.size === 0 ? 'Fleet Operations' : `${first} ${last}`,
      department: rng.pick(DEPARTMENTS),
      createdAt: iso(ANCHOR_MS - rng.int(400) * DAY_MS - rng.int(DAY_MS)),
    });
  }
  const userList = [...users.values()];

  const devices = new Map<string, DeviceRecord>();
  const newDevice = (): DeviceRecord => {
    for (;;) {
      const imei = `35${rng.digits(13)}`;
      if (!devices.has(imei)) {
        const device: DeviceRecord = { imei, model: rng.pick(MODELS), assignedTo: null };
        devices.set(imei, device);
        return device;
      }
    }
  };

  const sims = new Map<string, SimRecord>();
  for (let i = 0; i < simCount; i++) {
    // The first lines are fixtures with known traits (see fixtures.ts).
    const operator = i === 0 ? OPERATORS[0]! : i === 3 ? OPERATORS[2]! : rng.pick(OPERATORS);
    const isEsim = i === 0 ? false : i === 1 || i === 2 ? true : rng.next() < 0.4;
    const assigned = i === 0 || (i > 5 && rng.next() < 0.6);
    const user = assigned ? rng.pick(userList) : null;
    let device: DeviceRecord | null = null;
    if (user && (i === 0 || rng.next() < 0.5)) {
      device = newDevice();
      device.assignedTo = { name: user.name, email: user.email };
    }
    const status = i < 6 ? 'ACTIVE' : simStatus(rng.next());
    const sim: SimRecord = {
      iccid: newIccid(),
      phoneNumber: newNumber(),
      status,
      assignedStatus: user ? 'ASSIGNED' : 'UNASSIGNED',
      isEsim,
      operator: operator.name,
      network: rng.pick(operator.networks),
      operatorStatus: status === 'ACTIVE' ? 'Connected' : status === 'INACTIVE' ? 'Suspended by operator' : 'Deactivated',
      assignedTo: user ? { email: user.email, name: user.name } : null,
      device: device ? { imei: device.imei, model: device.model } : null,
      group: i === 0 ? 'Sales/East' : rng.next() < 0.5 ? rng.pick(SIM_GROUPS).name : null,
      createdAt: iso(ANCHOR_MS - rng.int(700) * DAY_MS - rng.int(DAY_MS)),
      activationCode: isEsim && i !== 2 && rng.next() < 0.85 ? `LPA:1$smdp.sandbox.example$${rng.hex(24).toUpperCase()}` : null,
      voiceEnabled: rng.next() < 0.8,
    };
    if (i === 1 && sim.activationCode === null) sim.activationCode = `LPA:1$smdp.sandbox.example$${rng.hex(24).toUpperCase()}`;
    sims.set(sim.iccid, sim);
  }
  for (let i = 0; i < 12; i++) newDevice();
  const simList = [...sims.values()];

  const plans = new Map<string, PlanRecord>(PLANS.map((p) => [p.productId, structuredClone(p)]));
  const planList = [...plans.values()];
  const pricedByOperator = new Map<string, PlanRecord[]>();
  const pricedPlans = (operator: string): PlanRecord[] => {
    let priced = pricedByOperator.get(operator);
    if (priced === undefined) {
      priced = planList.filter((p) => p.operator === operator && p.pricingConfigured);
      pricedByOperator.set(operator, priced);
    }
    return priced;
  };
  const subscriptions: SubscriptionRecord[] = [];
  const orders = new Map<string, OrderRecord>();
  const addSubscription = (sim: SimRecord, status: SubscriptionStatus, createdMs: number): void => {
    const priced = pricedPlans(sim.operator);
    const plan = rng.pick(priced.length > 0 ? priced : planList);
    const orderId = `ord_${rng.hex(12)}`;
    const scheduled = status === 'SCHEDULED';
    // Serving subscriptions run in the current billing period; a cancelled one ended long ago.
    const serving = status === 'ACTIVE' || status === 'PENDING' || status === 'CANCEL_SCHEDULED';
    const startMs = scheduled
      ? ANCHOR_MS + (5 + rng.int(40)) * DAY_MS
      : serving
        ? ANCHOR_MS - (Math.floor(createdMs / DAY_MS) % plan.validityDays) * DAY_MS - (createdMs % DAY_MS)
        : createdMs;
    subscriptions.push({
      iccid: sim.iccid,
      productName: plan.productId,
      planCode: plan.productId.toUpperCase().replace(/[^A-Z0-9]+/g, '_'),
      status,
      startDate: iso(startMs),
      endDate: iso(startMs + plan.validityDays * DAY_MS),
      autoTopUp: rng.next() < 0.3,
      operator: sim.operator,
      network: sim.network,
      scheduledDate: scheduled ? iso(startMs) : null,
      orderId,
      createdAt: iso(createdMs),
    });
    orders.set(orderId, {
      orderId,
      iccid: sim.iccid,
      planId: plan.productId,
      status: 'COMPLETED',
      amount: plan.price,
      currency: plan.currency,
      createdAt: iso(createdMs),
    });
  };
  simList.forEach((sim, i) => {
    const created = Date.parse(sim.createdAt);
    if (i === 4) return; // fixture: a SIM with no subscription at all
    if (i === 5) {
      // fixture: only SCHEDULED subscriptions, the later-created one must win (spec part 3 rule 2)
      addSubscription(sim, 'SCHEDULED', ANCHOR_MS - 10 * DAY_MS);
      addSubscription(sim, 'SCHEDULED', ANCHOR_MS - 2 * DAY_MS);
      return;
    }
    // fixtures: the first lines serve; lines 6..9 cover the other statuses whatever the seed
    const forced: Partial<Record<number, SubscriptionStatus>> = {
      0: 'ACTIVE',
      1: 'ACTIVE',
      2: 'ACTIVE',
      3: 'ACTIVE',
      6: 'PENDING',
      7: 'CANCEL_SCHEDULED',
      8: 'CANCELLED',
      9: 'SCHEDULED',
    };
    addSubscription(sim, forced[i] ?? subscriptionStatus(rng.next()), created);
    if (i > 5 && rng.next() < 0.12) addSubscription(sim, 'SCHEDULED', created + DAY_MS);
  });

  const portStatuses: PortInStatus[] = ['PENDING', 'IN_PROGRESS', 'COMPLETED', 'FAILED'];
  const portIns = Array.from({ length: 16 }, (_, i) => ({
    portInNumber: newNumber(),
    status: portStatuses[i % 4]!,
    iccid: rng.pick(simList).iccid,
    submittedAt: iso(ANCHOR_MS - rng.int(90) * DAY_MS - rng.int(DAY_MS)),
  }));

  const teamMembers = new Map<string, TeamMemberRecord>();
  const member = (m: TeamMemberRecord): void => void teamMembers.set(m.email, m);
  member({ name: 'Alex Morgan', email: 'alex.morgan@acme.example', role: 'Admin', status: 'active', invitedAt: iso(ANCHOR_MS - 500 * DAY_MS) });
  member({
    name: 'Sam Rivera',
    email: 'sam.rivera@acme.example',
    role: 'Standard Admin',
    status: 'active',
    invitedAt: iso(ANCHOR_MS - 200 * DAY_MS),
    departments: ['Sales', 'Support'],
  });
  member({ name: 'Priya Shah', email: 'it+admin@acme.example', role: 'Admin', status: 'active', invitedAt: iso(ANCHOR_MS - 120 * DAY_MS) });
  member({
    name: 'Tom Becker',
    email: 'tom.becker@acme.example',
    role: 'Standard Admin',
    status: 'invited',
    invitedAt: iso(ANCHOR_MS - 3 * DAY_MS),
    departments: ['Finance'],
  });

  const userGroups = new Map(
    USER_GROUPS.map((name, i) => [
      name,
      {
        name,
        description: `${name} group`,
        status: 'ACTIVE' as const,
        memberEmails: userList.slice(i * 4, i * 4 + 4).map((u) => u.email),
        createdAt: iso(ANCHOR_MS - (30 + i) * DAY_MS),
      },
    ]),
  );

  return {
    operators: OPERATORS.map((o) => ({ ...o, networks: [...o.networks] })),
    sims,
    subscriptions,
    plans,
    portIns,
    teamMembers,
    simGroups: new Map(SIM_GROUPS.map((g) => [g.name, { ...g }])),
    userGroups,
    devices,
    users,
    creditBalance: [
      { currency: 'aud', amount: 1250.5 },
      { currency: 'usd', amount: 310 },
    ],
    orders,
    transactions: new Map(),
  };
}
