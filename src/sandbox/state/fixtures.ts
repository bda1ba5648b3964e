import type { SandboxState } from './types.js';

/** Identifiers with known traits, so tests and demos need not search the seeded data. */
export interface SandboxFixtures {
  /** Physical, ACTIVE, assigned to a user with a device, in group "Sales/East", on an operator with outbound SMS. */
  physicalIccid: string;
  phoneNumber: string;
  /** eSIM with an activation code. */
  esimIccid: string;
  /** eSIM whose activation code was never persisted (activationCode null). */
  esimWithoutActivationCodeIccid: string;
  /** Line on an operator without outbound SMS (POST /api/v1.1/sms → 501). */
  noOutboundSmsIccid: string;
  noOutboundSmsNumber: string;
  /** SIM without any subscription (404 SUBSCRIPTION_NOT_FOUND). */
  noSubscriptionIccid: string;
  /** SIM with only SCHEDULED subscriptions (single read falls back to the newest). */
  scheduledOnlyIccid: string;
  /** SIM whose subscription is ACTIVE (cancel → 201 then 409). */
  activeSubscriptionIccid: string;
  /** Line whose plan has no voice: voice events to its number are skipped, not delivered. */
  noVoiceIccid: string;
  noVoiceNumber: string;
  /** Line with voice on the same operator and network as `noVoiceIccid`. */
  voiceIccid: string;
  voiceNumber: string;
  pricedPlanId: string;
  paygPlanId: string;
  unpricedPlanId: string;
  adminEmail: string;
  standardAdminEmail: string;
  plusTeamMemberEmail: string;
  endUserEmail: string;
  plusEndUserEmail: string;
  unassignedImei: string;
  assignedImei: string;
  simGroupNames: string[];
  userGroupNames: string[];
  orderId: string;
}

export function fixturesOf(state: SandboxState): SandboxFixtures {
  const sims = [...state.sims.values()];
  const at = (i: number): NonNullable<(typeof sims)[number]> => {
    const sim = sims[i];
    if (!sim) throw new Error(`seeded SIM ${i} is missing`);
    return sim;
  };
  const devices = [...state.devices.values()];
  const users = [...state.users.values()];
  const mute = sims.find(
    (sim) => !sim.voiceEnabled && sims.some((other) => other.voiceEnabled && other.operator === sim.operator && other.network === sim.network),
  );
  const voiced = mute && sims.find((sim) => sim.voiceEnabled && sim.operator === mute.operator && sim.network === mute.network);
  const members = [...state.teamMembers.values()];
  return {
    physicalIccid: at(0).iccid,
    phoneNumber: at(0).phoneNumber,
    esimIccid: at(1).iccid,
    esimWithoutActivationCodeIccid: at(2).iccid,
    noOutboundSmsIccid: at(3).iccid,
    noOutboundSmsNumber: at(3).phoneNumber,
    noSubscriptionIccid: at(4).iccid,
    scheduledOnlyIccid: at(5).iccid,
    activeSubscriptionIccid: at(1).iccid,
    noVoiceIccid: mute?.iccid ?? '',
    noVoiceNumber: mute?.phoneNumber ?? '',
    voiceIccid: voiced?.iccid ?? '',
    voiceNumber: voiced?.phoneNumber ?? '',
    pricedPlanId: 'Business 5GB',
    paygPlanId: 'Data Pool PAYG',
    unpricedPlanId: 'Legacy Voice 2GB',
    adminEmail: members.find((m) => m.role === 'Admin')?.email ?? '',
    standardAdminEmail: members.find((m) => m.role === 'Standard Admin')?.email ?? '',
    plusTeamMemberEmail: members.find((m) => m.email.includes('+'))?.email ?? '',
    endUserEmail: users[1]?.email ?? '',
    plusEndUserEmail: users.find((u) => u.email.includes('+'))?.email ?? '',
    unassignedImei: devices.find((d) => d.assignedTo === null)?.imei ?? '',
    assignedImei: at(0).device?.imei ?? '',
    simGroupNames: [...state.simGroups.keys()],
    userGroupNames: [...state.userGroups.keys()],
    orderId: state.subscriptions[0]?.orderId ?? '',
  };
}
