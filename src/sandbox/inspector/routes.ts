/**
 * The inspector's control routes: the page itself, its snapshot, its live feed, request details
 * and redelivery. Plain JSON without the partner envelope, like the rest of /_sandbox/.
 */
import type { SandboxApp, SandboxContext } from '../context.js';
import { type NumberRule, parseNumberText } from '../option-grammar.js';
import type { LoggedRequestSummary, RequestLog } from '../middleware/request-log.js';
import { redeliver } from '../webhooks/operator-deliveries.js';
import { deliveryCounts, deliveryView } from './deliveries.js';
import { FEED_PATH } from './feed.js';
import { hubOf } from './hub.js';
import { INSPECTOR_CSP, INSPECTOR_HTML } from './page.js';
import { transactionView } from './transactions.js';

/** Items of each list in the page's snapshot, newest first. */
const SNAPSHOT_ITEMS = 200;

export interface InspectorDeps {
  log: RequestLog;
  /** The forced rules as GET /_sandbox/force lists them. */
  forceRules: () => unknown[];
}

/** The row of a request in the page's list; details (headers, bodies) come from /_sandbox/requests/:id. */
function requestSummary(entry: LoggedRequestSummary): Record<string, unknown> {
  return {
    id: entry.id,
    method: entry.method,
    path: entry.path,
    status: entry.status,
    latencyMs: entry.latencyMs,
    receivedAt: entry.receivedAt,
    rateLimit: entry.rateLimit,
    idempotency: entry.idempotency,
    forced: entry.forced,
  };
}

/** Ids of the request log count from 1 (middleware/request-log.ts). */
const REQUEST_ID: NumberRule = { integer: true, min: 1, max: Number.MAX_SAFE_INTEGER };

const NOT_FOUND = (what: string): Response => Response.json({ error: `${what} not found` }, { status: 404 });

export function registerInspectorRoutes(app: SandboxApp, ctx: SandboxContext, deps: InspectorDeps): void {
  const hub = hubOf(ctx);
  const { feed } = hub;

  const counters = (): Record<string, number> => {
    const tally = deps.log.tally();
    return {
      requests: tally.total,
      rateLimited: tally.rateLimited,
      serverErrors: tally.serverErrors,
      ...deliveryCounts(hub.webhooks),
    };
  };
  const live = (): Record<string, unknown> => ({
    now: ctx.nowIso(),
    counters: counters(),
    forceRules: deps.forceRules(),
  });
  feed.setExtras(live);
  deps.log.onChange((entry) => feed.touch('requests', entry.id, () => requestSummary(entry)));
  ctx.onReset(() => feed.resync());
  ctx.onClose(() => feed.close());

  const deliveries = (): Record<string, unknown>[] => {
    const domain = hub.webhooks;
    if (!domain) return [];
    return domain.deliveries
      .list()
      .slice(0, SNAPSHOT_ITEMS)
      .map((record) => deliveryView(domain, record));
  };
  const transactions = (): Record<string, unknown>[] => [...ctx.state.transactions.values()].slice(-SNAPSHOT_ITEMS).reverse().map(transactionView);

  const page = (): Response =>
    new Response(INSPECTOR_HTML, {
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': INSPECTOR_CSP,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-store',
      },
    });
  app.get('/_sandbox', (c) => c.redirect('/_sandbox/', 308));
  app.get('/_sandbox/', page);

  app.get('/_sandbox/overview', (c) =>
    c.json({
      ...live(),
      requests: deps.log.latest(SNAPSHOT_ITEMS).map(requestSummary).reverse(),
      deliveries: deliveries(),
      transactions: transactions(),
    }),
  );

  app.get(FEED_PATH, () => {
    const stream = feed.open();
    if (!stream) return Response.json({ error: 'too many inspector pages are open; close one' }, { status: 503 });
    return new Response(stream, {
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
      },
    });
  });

  app.get('/_sandbox/requests/:id', (c) => {
    const raw = c.req.param('id');
    const id = parseNumberText(raw, REQUEST_ID);
    if (typeof id !== 'number') return NOT_FOUND(`request ${JSON.stringify(raw.slice(0, 40))} (an id is ${id.expected})`);
    const entry = deps.log.get(id);
    return entry ? c.json(entry) : NOT_FOUND('request (the log keeps the newest entries only)');
  });

  app.get('/_sandbox/deliveries', (c) => c.json({ deliveries: deliveries() }));

  app.post('/_sandbox/deliveries/:deliveryId/redeliver', (c) => {
    const domain = hub.webhooks;
    if (!domain) return NOT_FOUND('delivery');
    const result = redeliver(domain, c.req.param('deliveryId'));
    switch (result.kind) {
      case 'not_found':
        return NOT_FOUND('delivery');
      case 'in_progress':
        return c.json({ error: 'a delivery of this event to this endpoint is still running' }, 409);
      case 'started':
        return c.json(deliveryView(domain, result.record), 202);
    }
  });

  app.get('/_sandbox/transactions', (c) => c.json({ transactions: transactions() }));
}
