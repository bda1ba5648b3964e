/** In-memory records of the sandbox account. Wire shapes are built from these by the routes. */

export type SimStatus = 'ACTIVE' | 'INACTIVE' | 'EXPIRED';
type AssignedStatus = 'ASSIGNED' | 'UNASSIGNED';
export type SubscriptionStatus = 'ACTIVE' | 'PENDING' | 'SCHEDULED' | 'CANCELLED' | 'CANCEL_SCHEDULED';
export type PortInStatus = 'PENDING' | 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';
type TransactionStatus = 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED';
type PlanType = 'FLAT_RATE' | 'PAY_AS_YOU_GO';

/** A mobile operator and its networks; webhook registrations are keyed by operator + network. */
export interface OperatorRecord {
  name: string;
  networks: string[];
  /** false → POST /api/v1.1/sms from one of its lines answers 501 NOT_IMPLEMENTED. */
  outboundSms: boolean;
  /** false → a webhook registration with eventType sms is refused (spec part 4, registration rule 1). */
  inboundSms: boolean;
}

interface Person {
  email: string;
  name: string;
}

interface DeviceRef {
  imei: string;
  model: string;
}

export interface SimRecord {
  iccid: string;
  phoneNumber: string;
  status: SimStatus;
  assignedStatus: AssignedStatus;
  isEsim: boolean;
  operator: string;
  network: string;
  operatorStatus: string;
  assignedTo: Person | null;
  device: DeviceRef | null;
  group: string | null;
  createdAt: string;
  /** eSIM only; null when it was never persisted (spec part 2, eSIM activation). */
  activationCode: string | null;
  /** Whether the line's active plan includes voice (voice events arrive only then). */
  voiceEnabled: boolean;
}

export interface SubscriptionRecord {
  iccid: string;
  productName: string;
  planCode: string;
  status: SubscriptionStatus;
  startDate: string;
  endDate: string;
  autoTopUp: boolean;
  operator: string;
  network: string;
  scheduledDate: string | null;
  orderId: string;
  /** Orders "newest" for the SCHEDULED fallback. */
  createdAt: string;
}

export interface PlanRecord {
  productId: string;
  description: string;
  price: number;
  currency: string;
  validityDays: number;
  data: { value: number; unit: string };
  voiceMinutes: number;
  smsCount: number;
  operator: string;
  network: string;
  isEsim: boolean;
  planType: PlanType;
  recurring: boolean;
  tieredPricing?: Record<string, unknown>;
  volumeTierPricing?: Record<string, unknown>;
  /** false → purchases fail with PRICING_NOT_CONFIGURED. Never sent on the wire. */
  pricingConfigured: boolean;
}

interface PortInRecord {
  portInNumber: string;
  status: PortInStatus;
  iccid: string;
  submittedAt: string;
}

export interface TeamMemberRecord {
  name: string;
  email: string;
  role: string;
  status: string;
  invitedAt: string;
  departments?: string[];
}

interface SimGroupRecord {
  name: string;
  spendLimit: number;
  dataQuota: number;
  currency: string;
  dataUnit: string;
}

interface UserGroupRecord {
  name: string;
  description: string;
  status: 'ACTIVE' | 'DELETED';
  memberEmails: string[];
  createdAt: string;
}

export interface DeviceRecord {
  imei: string;
  model: string;
  assignedTo: Person | null;
}

export interface EndUserRecord {
  email: string;
  name: string;
  department: string;
  createdAt: string;
}

interface CreditRecord {
  currency: string;
  amount: number;
}

export interface OrderRecord {
  orderId: string;
  iccid: string;
  planId: string;
  status: 'COMPLETED' | 'PENDING' | 'FAILED';
  amount: number;
  currency: string;
  createdAt: string;
}

export interface TransactionRecord {
  transactionId: string;
  /** What started it, e.g. `esim.provision`; not on the wire. */
  kind: string;
  status: TransactionStatus;
  message: string;
  result: Record<string, unknown> | null;
  error: string | null;
  errorCode: string | null;
  createdAt: string;
  updatedAt: string;
  processingStartedAt: string | null;
  processingCompletedAt: string | null;
  scheduledDate: string | null;
}

export interface SandboxState {
  operators: OperatorRecord[];
  /** Insertion order is the list order. */
  sims: Map<string, SimRecord>;
  subscriptions: SubscriptionRecord[];
  plans: Map<string, PlanRecord>;
  portIns: PortInRecord[];
  teamMembers: Map<string, TeamMemberRecord>;
  simGroups: Map<string, SimGroupRecord>;
  userGroups: Map<string, UserGroupRecord>;
  devices: Map<string, DeviceRecord>;
  users: Map<string, EndUserRecord>;
  creditBalance: CreditRecord[];
  orders: Map<string, OrderRecord>;
  transactions: Map<string, TransactionRecord>;
}
