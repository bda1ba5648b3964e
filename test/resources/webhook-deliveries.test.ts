import { describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../src/index.js';
import { type RouteHandler, type SeenRequest, envelope } from '../helpers/resources-server.js';
import { useResourcesServer } from './use-server.js';

const use = useResourcesServer();
const ROUTE = '/api/v1.1/webhook-deliveries';

function deliveries(count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, index) => ({
    deliveryId: `dlv_${index + 1}`,
    webhookId: 'wh_1',
    eventType: 'sms.received',
    status: 'FAILED',
    responseCode: 500,
    attempt: 1,
  }));
}

/** A server that pages the log and says so in meta (spec part 1 rule 5). */
function paged(all: Record<string, unknown>[]): RouteHandler {
  return (request) => {
    const page = Number(request.query['page'] ?? '1');
    const pageSize = Number(request.query['pageSize'] ?? '20');
    const data = all.slice((page - 1) * pageSize, page * pageSize);
    return { body: envelope(data, { page, pageSize, total: all.length, totalPages: Math.ceil(all.length / pageSize) }) };
  };
}

/** A server that knows nothing of paging: the whole log as a plain array, whatever the query. */
function plainArray(all: Record<string, unknown>[]): RouteHandler {
  return () => ({ body: envelope(all) });
}

const queries = (requests: SeenRequest[]): Record<string, string>[] => requests.map((request) => request.query);

describe('webhooks.deliveries.list pages', () => {
  it('walks every page when the answer carries page meta, filters and pageSize on every request', async () => {
    const { server, client } = use();
    server.handle('GET', ROUTE, paged(deliveries(5)));
    const seen: string[] = [];
    for await (const delivery of client.webhooks.deliveries.list({ webhookId: 'wh_1', status: 'FAILED', pageSize: 2 })) {
      seen.push(delivery.deliveryId);
    }
    expect(seen).toEqual(['dlv_1', 'dlv_2', 'dlv_3', 'dlv_4', 'dlv_5']);
    expect(queries(server.requests)).toEqual([
      { webhookId: 'wh_1', status: 'FAILED', pageSize: '2' },
      { webhookId: 'wh_1', status: 'FAILED', pageSize: '2', page: '2' },
      { webhookId: 'wh_1', status: 'FAILED', pageSize: '2', page: '3' },
    ]);
  });

  it('gives the meta and the next page by hand', async () => {
    const { server, client } = use();
    server.handle('GET', ROUTE, paged(deliveries(3)));
    const first = await client.webhooks.deliveries.list({ pageSize: 2 });
    expect(first.meta).toMatchObject({ page: 1, pageSize: 2, total: 3, totalPages: 2 });
    expect(first.hasNextPage()).toBe(true);
    const second = await first.getNextPage();
    expect(second.data.map((delivery) => delivery.deliveryId)).toEqual(['dlv_3']);
    expect(second.hasNextPage()).toBe(false);
  });

  it('takes a plain array (no meta) as the whole log: one page, never a request for page 2', async () => {
    const { server, client } = use();
    // a full page (as many records as pageSize) from a server that would repeat them for any page
    server.handle('GET', ROUTE, plainArray(deliveries(2)));
    const seen: string[] = [];
    for await (const delivery of client.webhooks.deliveries.list({ webhookId: 'wh_1', pageSize: 2 })) seen.push(delivery.deliveryId);
    expect(seen).toEqual(['dlv_1', 'dlv_2']);
    expect(queries(server.requests)).toEqual([{ webhookId: 'wh_1', pageSize: '2' }]);

    const page = await client.webhooks.deliveries.list({ pageSize: 2 });
    expect(page.meta).toBeUndefined();
    expect(page.hasNextPage()).toBe(false);
  });

  it('a plain array without any paging parameter is one request and every record', async () => {
    const { server, client } = use();
    server.handle('GET', ROUTE, plainArray(deliveries(30)));
    const page = await client.webhooks.deliveries.list();
    expect(page.data).toHaveLength(30);
    expect(queries(server.requests)).toEqual([{}]);
  });

  it.each([
    ['pageSize over 100', { pageSize: 101 }, 'pageSize'],
    ['page 0', { page: 0 }, 'page'],
    ['a fractional page', { page: 1.5 }, 'page'],
    ['an unknown parameter', { limit: 10 }, ''],
  ])('refuses %s before sending', async (_name, params, path) => {
    const error = await client()
      .webhooks.deliveries.list(params as never)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((issue) => issue.path)).toEqual([path]);
    expect(use().server.requests).toHaveLength(0);
  });
});

function client() {
  return use().client;
}
