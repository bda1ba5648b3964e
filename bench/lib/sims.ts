/**
 * Realistic SIM records (spec part 2) and their list answers, shared by the bench server and the
 * in-process transport of the overhead figure, so every variant parses the same bytes.
 */

const STATUSES = ['ACTIVE', 'ACTIVE', 'INACTIVE', 'EXPIRED'] as const;
const OPERATORS = ['Telefonica', 'Vodafone', 'Orange', 'T-Mobile'] as const;
const NETWORKS = ['Movistar ES', 'Vodafone DE', 'Orange FR', 'T-Mobile US'] as const;
const MODELS = ['iPhone 15', 'Pixel 8', 'Galaxy S24'] as const;
const CREATED_BASE_MS = Date.UTC(2025, 0, 1);

export const BENCH_KEY = 'bench-key';
export const BENCH_SECRET = 'bench-secret';
/** The bench server's fixed bearer; a throwaway value of a loopback-only test server. */
export const BENCH_TOKEN = 'bench-token';

function simAt(index: number): Record<string, unknown> {
  const assigned = index % 3 !== 0;
  const digits = String(index).padStart(11, '0');
  return {
    iccid: `89014103${digits}`,
    phoneNumber: `+1415${String(index % 10_000_000).padStart(7, '0')}`,
    status: STATUSES[index % STATUSES.length],
    assignedStatus: assigned ? 'ASSIGNED' : 'UNASSIGNED',
    isEsim: index % 2 === 0,
    operator: OPERATORS[index % OPERATORS.length],
    network: NETWORKS[index % NETWORKS.length],
    operatorStatus: assigned ? 'Active on network' : 'Ready for activation',
    assignedTo: assigned ? { email: `employee.${index}@fleet.example.com`, name: `Employee ${index}` } : null,
    device: assigned ? { imei: `35${String(index).padStart(13, '0')}`, model: MODELS[index % MODELS.length] } : null,
    group: assigned ? `Field team ${index % 12}` : null,
    createdAt: new Date(CREATED_BASE_MS + index * 60_000).toISOString(),
  };
}

/** The success envelope of GET /api/v1.1/sims for one page (spec part 1 rules 2 and 5). */
export function simPageBody(page: number, pageSize: number, total: number): string {
  const first = (page - 1) * pageSize;
  const count = Math.max(0, Math.min(pageSize, total - first));
  const data = Array.from({ length: count }, (_, i) => simAt(first + i));
  return JSON.stringify({
    success: true,
    data,
    meta: { page, pageSize, total, totalPages: Math.ceil(total / pageSize) },
  });
}

export function tokenBody(): string {
  return JSON.stringify({
    success: true,
    data: {
      access_token: BENCH_TOKEN,
      token_type: 'Bearer',
      expires_in: 3600,
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    },
    meta: { timezone: 'UTC' },
  });
}

/**
 * How the same-run throughput figures sample GET /api/v1.1/sims?pageSize=20 of the bench server:
 * short rounds, many of them, each running every variant back to back. On a shared machine the
 * load changes from second to second, so a ratio is taken within a round and the median of the
 * rounds' ratios is reported.
 */
export function simListRounds(config: { apiUrl: string; quick: boolean }): {
  durationMs: number;
  warmupMs: number;
  rounds: number;
  url: string;
  headers: Record<string, string>;
} {
  return {
    durationMs: config.quick ? 300 : 1_000,
    warmupMs: config.quick ? 200 : 1_000,
    rounds: config.quick ? 3 : 9,
    url: `${config.apiUrl}/api/v1.1/sims?pageSize=20`,
    headers: { authorization: `Bearer ${BENCH_TOKEN}`, accept: 'application/json' },
  };
}
