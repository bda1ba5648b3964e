import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Page, PartnerError, RequestValidationError, ResponseValidationError, type Sim } from '../../src/index.js';
import { type ResourcesServer, envelope, makeSims, pagedSims, startResourcesServer } from '../helpers/resources-server.js';

let server: ResourcesServer;
beforeEach(async () => {
  server = await startResourcesServer();
});
afterEach(async () => {
  await server.close();
});

const simPages = () => server.requests.filter((request) => request.path === '/api/v1.1/sims');

/** 100 SIMs, except that page 2 answers the given error. */
function failingSecondPage(status: number, code: string): void {
  server.handle('GET', '/api/v1.1/sims', (request) =>
    request.query['page'] === '2' ? { status, body: { success: false, error: { code, message: 'page 2 failed' } } } : pagedSims(100)(request),
  );
}

describe('list() pages', () => {
  it('awaits to the first page with data, meta and the next-page link', async () => {
    server.handle('GET', '/api/v1.1/sims', pagedSims(45));
    const client = server.client();
    const page = await client.sims.list({ pageSize: 20, status: 'ACTIVE' });
    expect(page).toBeInstanceOf(Page);
    expect(page.data).toHaveLength(20);
    expect(page.meta).toMatchObject({ page: 1, pageSize: 20, total: 45, totalPages: 3 });
    expect(page.hasNextPage()).toBe(true);
    const second = await page.getNextPage();
    expect(second.pageNumber).toBe(2);
    expect(second.data[0]?.iccid).toBe(makeSims(1, 20)[0]?.iccid);
    const third = await second.getNextPage();
    expect(third.data).toHaveLength(5);
    expect(third.hasNextPage()).toBe(false);
    await expect(third.getNextPage()).rejects.toThrow(/no next page/);
    expect(simPages().map((request) => request.query)).toEqual([
      { pageSize: '20', status: 'ACTIVE' },
      { pageSize: '20', status: 'ACTIVE', page: '2' },
      { pageSize: '20', status: 'ACTIVE', page: '3' },
    ]);
  });

  it('withResponse() gives the page together with the response status', async () => {
    server.handle('GET', '/api/v1.1/sims', pagedSims(3));
    const { data, response } = await server.client().sims.list().withResponse();
    expect(data.data).toHaveLength(3);
    expect(response.status).toBe(200);
  });

  it('falls back to "a full page means more" when the server sends no meta', async () => {
    server.handle('GET', '/api/v1.1/sims', pagedSims(25, { withMeta: false }));
    const client = server.client();
    const first = await client.sims.list({ pageSize: 10 });
    expect(first.meta).toBeUndefined();
    expect(first.hasNextPage()).toBe(true);
    const seen: string[] = [];
    for await (const sim of client.sims.list({ pageSize: 10 })) seen.push(sim.iccid);
    expect(seen).toHaveLength(25);
  });
});

describe('for await over list()', () => {
  it('walks every item of every page in order, 250+ items', async () => {
    server.handle('GET', '/api/v1.1/sims', pagedSims(257));
    const iccids: string[] = [];
    for await (const sim of server.client().sims.list({ pageSize: 100 })) iccids.push(sim.iccid);
    expect(iccids).toEqual(makeSims(257).map((sim) => sim.iccid));
    expect(simPages()).toHaveLength(3);
  });

  it('fetches page n + 1 while the caller is still consuming page n', async () => {
    server.handle('GET', '/api/v1.1/sims', pagedSims(30, { delayMs: 40 }));
    const arrivedBeforeConsumed: number[] = [];
    let index = 0;
    for await (const _sim of server.client().sims.list({ pageSize: 10 })) {
      index += 1;
      if (index % 10 === 0) {
        // the caller is slow with the last item of each page: the next page arrives meanwhile
        await new Promise((resolve) => setTimeout(resolve, 80));
        arrivedBeforeConsumed.push(simPages().length);
      }
    }
    expect(arrivedBeforeConsumed).toEqual([2, 3, 3]);
  });

  it('stops fetching when the loop breaks early', async () => {
    server.handle('GET', '/api/v1.1/sims', pagedSims(1000));
    let count = 0;
    for await (const _sim of server.client().sims.list({ pageSize: 10 })) {
      count += 1;
      if (count === 15) break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    // page 2 was being consumed and page 3 prefetched at most; nothing after that
    expect(simPages().length).toBeLessThanOrEqual(3);
  });

  it('drops a failing prefetch after an early break without an unhandled rejection', async () => {
    failingSecondPage(400, 'VALIDATION_ERROR');
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    try {
      for await (const _sim of server.client().sims.list({ pageSize: 10 })) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('surfaces an error of a later page to the loop', async () => {
    failingSecondPage(404, 'NOT_FOUND');
    const seen: Sim[] = [];
    await expect(
      (async () => {
        for await (const sim of server.client().sims.list({ pageSize: 10 })) seen.push(sim);
      })(),
    ).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(seen).toHaveLength(10);
  });

  it("the request options' signal stops the iteration between pages", async () => {
    server.handle('GET', '/api/v1.1/sims', pagedSims(100, { delayMs: 30 }));
    const controller = new AbortController();
    const reason = new Error('stop listing');
    let count = 0;
    await expect(
      (async () => {
        for await (const _sim of server.client().sims.list({ pageSize: 10 }, { signal: controller.signal })) {
          count += 1;
          if (count === 10) controller.abort(reason);
        }
      })(),
    ).rejects.toBe(reason);
    expect(count).toBe(10);
    expect(simPages().length).toBeLessThanOrEqual(2);
  });

  it('ends after totalPages even when the server echoes a wrong meta.page', async () => {
    server.handle('GET', '/api/v1.1/sims', () => ({ body: envelope(makeSims(10), { page: 1, pageSize: 10, total: 30, totalPages: 3 }) }));
    let count = 0;
    for await (const _sim of server.client().sims.list({ pageSize: 10 })) count += 1;
    expect(count).toBe(30);
    expect(simPages().map((request) => request.query['page'])).toEqual([undefined, '2', '3']);
  });

  it('iterPages() yields whole pages', async () => {
    server.handle('GET', '/api/v1.1/sims', pagedSims(35));
    const sizes: number[] = [];
    for await (const page of server.client().sims.list({ pageSize: 10 }).iterPages()) sizes.push(page.data.length);
    expect(sizes).toEqual([10, 10, 10, 5]);
  });
});

describe('servers that would make iteration spin', () => {
  it('ends on an empty page even when meta claims a billion pages', async () => {
    server.handle('GET', '/api/v1.1/sims', () => ({ body: envelope([], { page: 1, pageSize: 10, total: 1e10, totalPages: 1e9 }) }));
    let count = 0;
    for await (const _sim of server.client().sims.list({ pageSize: 10 })) count += 1;
    expect(count).toBe(0);
    expect(simPages()).toHaveLength(1);
  });

  it('ends on the first empty page after full ones', async () => {
    server.handle('GET', '/api/v1.1/sims', (request) => {
      const page = Number(request.query['page'] ?? '1');
      return { body: envelope(page <= 2 ? makeSims(10, (page - 1) * 10) : [], { page, pageSize: 10, total: 1e9, totalPages: 1e8 }) };
    });
    let count = 0;
    for await (const _sim of server.client().sims.list({ pageSize: 10 })) count += 1;
    expect(count).toBe(20);
    expect(simPages()).toHaveLength(3);
  });

  it.each([
    ['a fractional count', { page: 1, pageSize: 10, total: 30, totalPages: 2.5 }],
    ['a negative count', { page: 1, pageSize: 10, total: 30, totalPages: -1 }],
    ['a string count', { page: 1, pageSize: 10, total: 30, totalPages: '3' }],
    ['a count past 2^53', { page: 1, pageSize: 10, total: 30, totalPages: 2 ** 60 }],
  ])('treats meta with %s as absent: a full page means more, a short one ends', async (_name, meta) => {
    server.handle('GET', '/api/v1.1/sims', (request) => {
      const page = Number(request.query['page'] ?? '1');
      return { body: envelope(makeSims(page === 1 ? 10 : 4, (page - 1) * 10), meta) };
    });
    const client = server.client({ validateResponses: 'off' });
    const first = await client.sims.list({ pageSize: 10 });
    expect(first.meta).toBeUndefined();
    let count = 0;
    for await (const _sim of client.sims.list({ pageSize: 10 })) count += 1;
    expect(count).toBe(14);
  });

  it.each([
    ['an object', { iccid: '1' }],
    ['null', null],
    ['a string', 'sims'],
    ['a number', 3],
  ])("with validateResponses 'off', ends data that is %s in a typed error, in every mode of use", async (_name, data) => {
    server.handle('GET', '/api/v1.1/sims', () => ({ body: envelope(data, { page: 1, pageSize: 10, total: 30, totalPages: 3 }) }));
    const client = server.client({ validateResponses: 'off' });
    const awaited = await client.sims.list({ pageSize: 10 }).catch((caught: unknown) => caught);
    expect(awaited).toBeInstanceOf(ResponseValidationError);
    expect((awaited as ResponseValidationError).issues[0]?.path).toBe('data');
    const iterated = await (async () => {
      for await (const _sim of client.sims.list({ pageSize: 10 })) void _sim;
    })().catch((caught: unknown) => caught);
    expect(iterated).toBeInstanceOf(PartnerError);
    expect(iterated).toBeInstanceOf(ResponseValidationError);
    const pages = await (async () => {
      for await (const _page of client.sims.list({ pageSize: 10 }).iterPages()) void _page;
    })().catch((caught: unknown) => caught);
    expect(pages).toBeInstanceOf(ResponseValidationError);
  });

  it("with validateResponses 'off', a later page with non-array data ends the loop in a typed error", async () => {
    server.handle('GET', '/api/v1.1/sims', (request) =>
      request.query['page'] === '2' ? { body: envelope({ not: 'a list' }) } : pagedSims(30)(request),
    );
    let count = 0;
    const error = await (async () => {
      for await (const _sim of server.client({ validateResponses: 'off' }).sims.list({ pageSize: 10 })) count += 1;
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(count).toBe(10);
  });
});

describe('list() input', () => {
  it.each([
    [{ pageSize: 0 }, 'pageSize'],
    [{ pageSize: 101 }, 'pageSize'],
    [{ pageSize: 2.5 }, 'pageSize'],
    [{ page: 0 }, 'page'],
  ])('refuses %o before sending anything', async (params, path) => {
    server.handle('GET', '/api/v1.1/sims', pagedSims(10));
    const client = server.client();
    const error = await client.sims.list(params).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((issue) => issue.path)).toEqual([path]);
    await expect(
      (async () => {
        for await (const _sim of client.sims.list(params)) break;
      })(),
    ).rejects.toBeInstanceOf(RequestValidationError);
    expect(simPages()).toHaveLength(0);
  });

  it('maps assignedStatus and search to their wire names', async () => {
    server.handle('GET', '/api/v1.1/sims', () => ({ body: envelope([], { page: 1, pageSize: 20, total: 0, totalPages: 0 }) }));
    await server.client().sims.list({ assignedStatus: 'ASSIGNED', search: 'acme', assignedTo: 'a+b@example.com' });
    expect(simPages()[0]?.query).toEqual({ assignedStatus: 'ASSIGNED', search: 'acme', assignedTo: 'a+b@example.com' });
  });
});
