/**
 * The errors guide's table "Did the write happen?" is the rule: for every row of it, a write no
 * idempotency promise covers gets that answer from a loopback server, and its error carries
 * `mayHaveSucceeded` (and says so in its message) exactly where the table says the outcome is open.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/index.js';
import { root } from '../package/built.js';
import { fail, type Reply } from '../helpers/server.js';
import { useTestServer } from '../helpers/server-client.js';

const SMS = 'POST /api/v1.1/sms';
const t = useTestServer({ maxRetries: 0 });

interface Row {
  statuses: number[];
  /** The codes of the row; undefined for an answer that is not the envelope. */
  codes: string[] | undefined;
  open: boolean;
}

function tableRows(): Row[] {
  const page = readFileSync(join(root, 'docs/errors.md'), 'utf8');
  // From the heading to the next one: the table of that section only.
  const start = page.indexOf('### Did the write happen?');
  const next = page.slice(start).search(/\n#{1,6} /);
  const section = next === -1 ? page.slice(start) : page.slice(start, start + next);
  const lines = section.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| HTTP') && !line.startsWith('|---'));
  return lines.map((line) => {
    const [http = '', code = '', outcome = ''] = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    const statuses = http === '2xx' ? [200, 201, 202] : http.split(',').map((status) => Number(status.trim()));
    const codes = code.includes('`') ? [...code.matchAll(/`([A-Z_]+)`/g)].map((match) => match[1] as string) : undefined;
    return { statuses, codes, open: outcome.includes('**open**') };
  });
}

const rows = tableRows();
const cases = rows.flatMap((row) =>
  row.statuses.flatMap((status) =>
    (row.codes ?? [undefined]).map((code) => ({ status, code, open: row.open, name: `${status} ${code ?? '(no envelope)'}` })),
  ),
);

describe("the errors guide's table of write outcomes", () => {
  it('covers every status of spec part 7 and the answers that are not the envelope', () => {
    expect(new Set(cases.map((item) => item.status))).toEqual(new Set([400, 401, 403, 404, 409, 422, 429, 500, 501, 502, 503, 504, 200, 201, 202]));
    expect(cases.length).toBeGreaterThan(30);
  });

  // Codes the spec lists without a status follow their status.
  const others = [
    { status: 409, code: 'SIM_GROUP_NOT_EMPTY', open: false, name: '409 SIM_GROUP_NOT_EMPTY (an other code)' },
    { status: 503, code: 'PRICING_NOT_CONFIGURED', open: true, name: '503 PRICING_NOT_CONFIGURED (an other code)' },
  ];

  it.each([...cases, ...others])('$name leaves the outcome open: $open', async ({ status, code, open }) => {
    const reply: Reply =
      code === undefined ? { status, raw: '<html><body>Bad gateway</body></html>', headers: { 'content-type': 'text/html' } } : fail(status, code);
    t.server.on(SMS, reply);
    const error = await t.client.sms.send({ fromNumber: '+15550100001', toNumber: '+15550100002', text: 'hi' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).mayHaveSucceeded).toBe(open);
    expect((error as Error).message.includes('may have been applied')).toBe(open);
  });
});
