/** Runs the planned operations through the public client and records how each one ended. */
import type {
  DeviceAssignParams,
  EsimProvisionParams,
  PartnerClient,
  PlanPurchaseParams,
  RequestOptions,
  SimListParams,
  SmsSendParams,
  SubscriptionListParams,
  TeamMemberCreateParams,
  TopUpParams,
  TransactionHandle,
  WaitOptions,
} from '../../src/index.js';
import { PartnerError } from '../../src/index.js';
import type { Operation } from './plan.js';
import { REQUEST_ID_HEADER } from './sandbox.js';

/** How one operation ended, as the caller saw it. */
export interface Outcome {
  id: string;
  /** `ok`, or the class name of the error (`ConnectionError`, `ConflictError` …; `untyped:TypeError` for anything not a PartnerError). */
  result: string;
  status?: number;
  code?: string;
  /** The error's `mayHaveSucceeded`, when it has one. */
  mayHaveSucceeded?: boolean;
  /** For async operations that failed: whether the write itself failed (`call`) or only the wait after it (`wait`). */
  phase?: 'call' | 'wait';
}

export interface RunOptions {
  /** Operations in flight at once. */
  concurrency: number;
  /** Options of every `wait()`. */
  wait: WaitOptions;
}

const str = (value: unknown): string => value as string;

/** Calls the method of one operation; resolves when the call (and for async ones, the wait) settled. */
async function perform(client: PartnerClient, op: Operation, wait: WaitOptions, progress: { phase: 'call' | 'wait' }): Promise<void> {
  const options: RequestOptions = { headers: { [REQUEST_ID_HEADER]: op.id } };
  if (op.idempotencyKey !== undefined) options.idempotencyKey = op.idempotencyKey;
  const [first, second] = op.args;
  const waitFor = (handle: TransactionHandle): Promise<unknown> => {
    progress.phase = 'wait';
    return handle.wait(wait);
  };
  switch (op.kind) {
    case 'sims.list':
      await client.sims.list(first as SimListParams, options);
      return;
    case 'plans.retrieve':
      await client.plans.retrieve(str(first), options);
      return;
    case 'billing.retrieveCreditBalance':
      await client.billing.retrieveCreditBalance(options);
      return;
    case 'subscriptions.list':
      await client.subscriptions.list(first as SubscriptionListParams, options);
      return;
    case 'teamMembers.retrieve':
      await client.teamMembers.retrieve(str(first), options);
      return;
    case 'sims.retrieveSubscription':
      await client.sims.retrieveSubscription(str(first), options);
      return;
    case 'sms.send':
      await client.sms.send(first as SmsSendParams, options);
      return;
    case 'devices.assign':
      await client.devices.assign(str(first), second as DeviceAssignParams, options);
      return;
    case 'subscriptions.cancel':
      await client.subscriptions.cancel(str(first), options);
      return;
    case 'userGroups.delete':
      await client.userGroups.delete(str(first), options);
      return;
    case 'plans.purchase':
      await client.plans.purchase(first as PlanPurchaseParams, options);
      return;
    case 'teamMembers.create':
      await client.teamMembers.create(first as TeamMemberCreateParams, options);
      return;
    case 'sims.renewNumber':
      await client.sims.renewNumber(str(first), {}, options);
      return;
    case 'esim.provision+wait':
      await waitFor(await client.esim.provision(first as EsimProvisionParams, options));
      return;
    case 'billing.topUp+wait':
      await waitFor(await client.billing.topUp(first as TopUpParams, options));
      return;
    case 'plans.purchaseAsync+wait':
      await waitFor(await client.plans.purchaseAsync(first as PlanPurchaseParams, options));
      return;
    default: {
      const unknown: never = op.kind;
      throw new Error(`unknown operation ${String(unknown)}`);
    }
  }
}

function outcomeOf(op: Operation, error: unknown, phase: 'call' | 'wait'): Outcome {
  const base: Outcome = { id: op.id, result: '' };
  if (op.kind.endsWith('+wait')) base.phase = phase;
  if (!(error instanceof PartnerError)) {
    return { ...base, result: `untyped:${error instanceof Error ? error.name : typeof error}` };
  }
  const fields = error as PartnerError & { status?: unknown; code?: unknown; mayHaveSucceeded?: unknown };
  const outcome: Outcome = { ...base, result: error.name };
  if (typeof fields.status === 'number') outcome.status = fields.status;
  if (typeof fields.code === 'string') outcome.code = fields.code;
  // Read by name: the property arrives with the money-safe writes and is absent before them.
  if (typeof fields.mayHaveSucceeded === 'boolean') outcome.mayHaveSucceeded = fields.mayHaveSucceeded;
  return outcome;
}

async function runOne(client: PartnerClient, op: Operation, wait: WaitOptions): Promise<Outcome> {
  const progress: { phase: 'call' | 'wait' } = { phase: 'call' };
  try {
    await perform(client, op, wait, progress);
    return { id: op.id, result: 'ok' };
  } catch (error) {
    return outcomeOf(op, error, progress.phase);
  }
}

/** Runs every operation with at most `concurrency` in flight; `onOutcome` sees each as it settles. */
export async function runOperations(
  client: PartnerClient,
  operations: readonly Operation[],
  options: RunOptions,
  onOutcome: (outcome: Outcome) => void,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < operations.length) {
      const op = operations[next++] as Operation;
      onOutcome(await runOne(client, op, options.wait));
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, operations.length) }, worker));
}
