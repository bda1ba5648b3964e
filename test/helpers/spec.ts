import { existsSync, readFileSync } from 'node:fs';

/** The suite's copy of the spec (test/fixtures/), which a test holds equal to the shared original. */
const SPEC_COPY = new URL('../fixtures/partner-api.md', import.meta.url);
/** The shared original beside the repository, where there is one (a clone with ../shared). */
const SHARED_SPEC = new URL('../../../shared/spec/partner-api.md', import.meta.url);

/** The spec's text, from the suite's copy. */
export function specText(): string {
  return readFileSync(SPEC_COPY, 'utf8');
}

/** The shared original's text, or undefined where the repository has none beside it. */
export function sharedSpecText(): string | undefined {
  return existsSync(SHARED_SPEC) ? readFileSync(SHARED_SPEC, 'utf8') : undefined;
}

/** One row of spec part 4's endpoint tables. */
export interface SpecEndpoint {
  method: string;
  /** The path template, as the table writes it (`/api/v1.1/sims/{iccid}/subscription`). */
  path: string;
  /** The Response cell; undefined in the "known by name only" table, which has none. */
  response: string | undefined;
}

/** Every row of spec part 4's tables, in order: a route added to the spec is found here. */
export function specEndpoints(spec: string = specText()): SpecEndpoint[] {
  const start = spec.indexOf('## 4. Endpoints');
  const part4 = spec.slice(start, spec.indexOf('\n## 5.', start));
  const rows: SpecEndpoint[] = [];
  for (const line of part4.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const method = cells[1] ?? '';
    if (!/^(GET|POST|PUT|DELETE|PATCH)$/.test(method)) continue;
    rows.push({ method, path: (cells[2] ?? '').split(/\s/)[0] ?? '', response: cells[4] });
  }
  return rows;
}
