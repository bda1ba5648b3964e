import { z } from 'zod';
import { lazy } from './lazy.js';
import { E164_MESSAGE, E164_PATTERN } from '../shared/e164.js';

/**
 * A string enum that stays open: the type lists the known values (and autocompletes them),
 * while any other string a newer server sends is accepted at runtime, so a new status never
 * breaks a partner's integration. Requests use strict enums instead (see `src/schemas/*`).
 */
export type OpenEnum<T extends readonly string[]> = T[number] | (string & {});

export function openEnum<const T extends readonly [string, ...string[]]>(
  _known: T,
): z.ZodType<OpenEnum<T>, string> {
  return z.string() as unknown as z.ZodType<OpenEnum<T>, string>;
}

/** ISO 8601 timestamps are kept as strings: no Date transform on the hot path (spec part 1 rule 4). */
export const timestamp = lazy(() => z.string());

/** Envelope `meta` of a list answer (spec part 2). */
export const pageMetaSchema = lazy(() => z.looseObject({
  page: z.number(),
  pageSize: z.number(),
  total: z.number(),
  totalPages: z.number(),
}));

export type PageMetaData = z.infer<ReturnType<typeof pageMetaSchema>>;

/**
 * Answer of an asynchronous operation (spec part 1 rule 7): 202 (201 for top-up) with the id to
 * poll. Fields beyond these two are not shown and are kept as sent.
 */
export const asyncAcceptanceSchema = lazy(() => z.looseObject({
  transactionId: z.string(),
  statusEndpoint: z.string(),
}));

export type AsyncAcceptance = z.infer<ReturnType<typeof asyncAcceptanceSchema>>;

/** A record whose fields the spec does not show; every field of the object is kept. */
export const openObjectSchema = lazy(() => z.looseObject({}));

export type OpenObject = z.infer<ReturnType<typeof openObjectSchema>>;

/** E.164 phone number (spec part 2: SIM phoneNumber, port-in number, SMS numbers). */
export const e164 = lazy(() => z.string().regex(E164_PATTERN, E164_MESSAGE));

/** Pagination input (spec part 8): page >= 1, pageSize 1..100. */
export const paginationParams = lazy(() => ({
  page: z.number().int().min(1).optional(),
  pageSize: z.number().int().min(1).max(100).optional(),
}));

export const paginationParamsSchema = lazy(() => z.strictObject(paginationParams()));

export type PaginationParams = z.infer<ReturnType<typeof paginationParamsSchema>>;
