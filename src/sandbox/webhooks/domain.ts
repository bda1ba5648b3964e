import type { SandboxContext } from '../context.js';
import { DeliveryLog } from './delivery-log.js';
import { InFlight } from './in-flight.js';
import { RegistrationStore } from './registrations.js';
import { clockScheduler, type Scheduler } from './scheduler.js';
import type { FetchLike } from './send.js';

/** The webhook domain's own state for one sandbox: the context knows nothing of it. */
export interface WebhookDomain {
  ctx: SandboxContext;
  scheduler: Scheduler;
  /** Resolved at call time, so a fetch patched later (msw in a partner's tests) is honoured. */
  fetch: FetchLike;
  inFlight: InFlight;
  registrations: RegistrationStore;
  deliveries: DeliveryLog;
}

export function createWebhookDomain(ctx: SandboxContext): WebhookDomain {
  return {
    ctx,
    scheduler: clockScheduler(ctx.clock),
    fetch: (url, init) => globalThis.fetch(url, init),
    inFlight: new InFlight(),
    registrations: new RegistrationStore(),
    deliveries: new DeliveryLog(),
  };
}
