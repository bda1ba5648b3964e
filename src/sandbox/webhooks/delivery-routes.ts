import type { SandboxApp } from '../context.js';
import type { WebhookDomain } from './domain.js';
import { deliveryToWire } from './delivery-log.js';
import { redeliver } from './operator-deliveries.js';

export function registerDeliveryRoutes(app: SandboxApp, domain: WebhookDomain): void {
  const { ctx } = domain;
  // A page, newest first: spec part 1 rule 5 gives every list page/pageSize and totals in meta,
  // with the part 8 bounds (pageSize 1..100, default 20).
  app.get('/api/v1.1/webhook-deliveries', (c) => {
    const webhookId = c.req.query('webhookId');
    // spec part 4: "status (for example FAILED)": an open filter, matched exactly, so a status
    // the sandbox never records matches nothing. An empty filter is refused rather than read as
    // no filter, which would silently widen the list.
    const status = c.req.query('status');
    const errors = [...(webhookId === '' ? ['webhookId must not be empty'] : []), ...(status === '' ? ['status must not be empty'] : [])];
    if (errors.length > 0) return ctx.fail(c, 400, 'VALIDATION_ERROR', 'Invalid delivery filters', { validationErrors: errors });
    return ctx.paginate(c, domain.deliveries.list({ webhookId, status }), deliveryToWire);
  });

  app.post('/api/v1.1/webhook-deliveries/:deliveryId/redeliver', (c) => {
    const result = redeliver(domain, c.req.param('deliveryId'));
    switch (result.kind) {
      case 'not_found':
        return ctx.fail(c, 404, 'DELIVERY_NOT_FOUND', 'Delivery not found');
      case 'in_progress':
        return ctx.fail(c, 409, 'DELIVERY_ALREADY_IN_PROGRESS', 'A delivery of this event to this endpoint is still running');
      case 'started':
        return ctx.ok(c, deliveryToWire(result.record), { status: 202 });
    }
  });
}
