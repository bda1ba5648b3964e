/**
 * One inspector per sandbox, found from the sandbox context. Modules that own state the page
 * shows (the webhook domain, the transaction engine) report changes here; the hub never holds a
 * second copy of that state, only the per-attempt details no record keeps.
 */
import type { SandboxContext } from '../context.js';
import type { WebhookDomain } from '../webhooks/domain.js';
import { InspectorFeed } from './feed.js';

export interface InspectorHub {
  feed: InspectorFeed;
  /** Set by the webhook module when it starts; the delivery views and Redeliver need it. */
  webhooks: WebhookDomain | null;
}

const hubs = new WeakMap<SandboxContext, InspectorHub>();

export function hubOf(ctx: SandboxContext): InspectorHub {
  let hub = hubs.get(ctx);
  if (!hub) {
    hub = { feed: new InspectorFeed(), webhooks: null };
    hubs.set(ctx, hub);
  }
  return hub;
}

/** Called once by the webhook module with its per-sandbox domain. */
export function attachWebhookDomain(domain: WebhookDomain): void {
  hubOf(domain.ctx).webhooks = domain;
}
