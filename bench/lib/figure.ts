import type { Row } from './report.js';

/** What run.ts hands every figure (as JSON on the child's command line). */
export interface FigureConfig {
  quick: boolean;
  /** Bench server listener answering at once. */
  apiUrl: string;
  /** Bench server listener answering each SIM page after `pageLatencyMs`. */
  pagedUrl: string;
  pageLatencyMs: number;
  paginationTotal: number;
  /** Real sandbox with scaled rate-limit windows, when started. */
  sandbox?: { url: string; key: string; secret: string; rateLimitWindowMs: number };
}

export type Measure = (config: FigureConfig) => Promise<Row[]>;
