import { describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../src/index.js';
import { useTestServer } from '../helpers/server-client.js';

const t = useTestServer({ maxRetries: 0 });

/** Paths sent byte for byte as given. */
const exact = [
  '/api/v1.1/sims/8901',
  "/api/v1.1/things/a-b._~!$&'()*+,;=:@c",
  '/api/v1.1/sim-groups/Sales%2FEast',
  '/api/v1.1/team-members/ann%2Bops%40example.com',
  '/api/v1.1//double',
];

/** Paths the client percent-encodes (UTF-8) before sending, identically on both transports. */
const encoded: Array<[string, string]> = [
  ['/api/v1.1/sim-groups/Field Ops', '/api/v1.1/sim-groups/Field%20Ops'],
  ['/api/v1.1/sim-groups/Équipe Nord', '/api/v1.1/sim-groups/%C3%89quipe%20Nord'],
  ['/api/v1.1/sim-groups/🚀', '/api/v1.1/sim-groups/%F0%9F%9A%80'],
  ['/api/v1.1/x/a"b<c>d`e{f}g|h^i[j]k\\l', '/api/v1.1/x/a%22b%3Cc%3Ed%60e%7Bf%7Dg%7Ch%5Ei%5Bj%5Dk%5Cl'],
];

/** Paths no transport can send exactly: refused before anything is sent. */
const refused = [
  '/api/v1.1/sims/89\r01',
  '/api/v1.1/sims/89\n01',
  '/api/v1.1/sims/89\t01',
  '/api/v1.1/sims/89\u000001',
  '/api/v1.1/sims/89\u007f01',
  '/api/v1.1/sims/89\u008501',
  '/api/v1.1/sims/8901#fragment',
  '/api/v1.1/sims?page=2',
  'api/v1.1/sims',
  '',
  '/api/v1.1/sims/50%',
  '/api/v1.1/sims/%zz',
  '/api/v1.1/sims/../users',
  '/api/v1.1/./sims',
  '/api/v1.1/sims/..',
  '/api/v1.1/sims/\ud800',
];

for (const transport of ['undici', 'fetch'] as const) {
  describe(`client.request() paths on the ${transport} transport`, () => {
    const connect = () => t.connect(transport === 'fetch' ? { fetch: globalThis.fetch } : {});

    it('sends a path of RFC 3986 characters and %XX escapes exactly as given', async () => {
      const client = await connect();
      for (const path of exact) await client.request({ method: 'GET', path }).catch(() => undefined);
      expect(t.server.requests.filter((request) => request.method === 'GET').map((request) => request.path)).toEqual(exact);
    });

    it('percent-encodes spaces, non-ASCII text and the printable characters a path cannot carry raw', async () => {
      const client = await connect();
      for (const [path] of encoded) await client.request({ method: 'GET', path }).catch(() => undefined);
      const sent = t.server.requests.filter((request) => request.method === 'GET').map((request) => request.path);
      expect(sent).toEqual(encoded.map(([, wire]) => wire));
    });

    it('refuses control characters, fragments, queries, stray % and dot segments before sending anything', async () => {
      const client = await connect();
      for (const path of refused) {
        const error = await client.request({ method: 'POST', path, body: {} }).catch((caught: unknown) => caught);
        expect(error, JSON.stringify(path)).toBeInstanceOf(RequestValidationError);
        expect((error as RequestValidationError).issues[0]?.path).toBe('path');
      }
      expect(t.server.requests).toHaveLength(0);
    });

    it.each([
      ['auth', 'false'],
      ['envelope', 0],
      ['idempotent', 'yes'],
      ['query', 'page=2'],
      ['schema', { parse: () => 1 }],
    ])('refuses %s = %o before sending anything', async (field, value) => {
      const client = await connect();
      const error = await client.request({ method: 'GET', path: '/api/v1.1/ping', [field]: value }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RequestValidationError);
      expect((error as RequestValidationError).issues[0]?.path).toBe(field);
      expect(t.server.requests).toHaveLength(0);
    });

    it('refuses a method outside the HTTP methods of the API', async () => {
      const client = await connect();
      const error = await client.request({ method: 'TRACE' as 'GET', path: '/api/v1.1/ping' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RequestValidationError);
      expect(t.server.requests).toHaveLength(0);
    });
  });
}

describe("'.' and '..' spelled %2E", () => {
  const DOTS = '/api/v1.1/user-groups/%2E%2E';

  it('are sent exactly by the default transport, as the name of a record', async () => {
    await t.client.request({ method: 'DELETE', path: DOTS }).catch(() => undefined);
    await t.client.userGroups.delete('.').catch(() => undefined);
    expect(t.server.requests.filter((request) => request.method === 'DELETE').map((request) => request.path)).toEqual([
      DOTS,
      '/api/v1.1/user-groups/%2E',
    ]);
  });

  it('are refused by the fetch transport, whose URL parsing would resolve them, never sent elsewhere', async () => {
    const client = await t.connect({ fetch: globalThis.fetch });
    for (const call of [
      () => client.request({ method: 'DELETE', path: DOTS }),
      () => client.request({ method: 'DELETE', path: '/api/v1.1/user-groups/.%2e' }),
      () => client.userGroups.delete('..'),
      () => client.userGroups.delete('.'),
    ]) {
      await expect(call()).rejects.toBeInstanceOf(RequestValidationError);
    }
    expect(t.server.requests.filter((request) => request.method === 'DELETE')).toHaveLength(0);
  });
});
