import * as z from 'zod';
import { lazy } from './lazy.js';
import { E164_MESSAGE, E164_PATTERN } from '../shared/e164.js';

/**
 * A string enum that stays open: the type lists the known values (and autocompletes them),
 * while any other string a newer server sends is accepted at runtime, so a new status never
 * breaks a partner's integration. Requests use strict enums instead (see `src/schemas/*`).
 */
export type OpenEnum<T extends readonly string[]> = T[number] | (string & {});

export function openEnum<const T extends readonly [string, ...string[]]>(_known: T): z.ZodType<OpenEnum<T>, string> {
  return z.string();
}

/** ISO 8601 timestamps are kept as strings: no Date transform on the hot path (spec part 1 rule 4). */
export const timestamp = lazy(() => z.string());

/**
 * Answer of an asynchronous operation (spec part 1 rule 7): 202 (201 for top-up) with the id to
 * poll. Fields beyond these two are not shown and are kept as sent.
 */
export const asyncAcceptanceSchema = lazy(() =>
  z.looseObject({
    /** The transaction to poll: `handle.wait()`, or `client.transactions.retrieve(transactionId)`. */
    transactionId: z.string(),
    /** The path of the transaction's status, as the server named it. */
    statusEndpoint: z.string(),
  }),
);

/** What an asynchronous operation answers first: the transaction to poll (spec part 1 rule 7). */
export interface AsyncAcceptance extends z.infer<ReturnType<typeof asyncAcceptanceSchema>> {}

/** A record whose fields the spec does not show: an object, every field kept, any JSON value in each. */
export const openObjectSchema = lazy(() => z.looseObject({}));

export type OpenObject = z.infer<ReturnType<typeof openObjectSchema>>;

/**
 * A value whose shape the spec does not show; any JSON value is accepted and kept as sent, so a
 * shape the SDK did not guess never fails a whole answer. Typed `unknown`: narrow before use.
 */
export const notShown = lazy(() => z.unknown());

/** Any JSON value, on the request side: what a body can carry (no bigint, function, Date, undefined). */
export const jsonValue = lazy(() => z.json());

/**
 * Body of an endpoint known by name only (spec part 4: "request and response shapes … not
 * shown"). The suggested fields are typed and checked when given; none is required, and any
 * other field with a JSON value is sent as given.
 */
export function suggestedBody<const S extends z.ZodRawShape>(suggested: S) {
  return z.object(suggested).catchall(jsonValue());
}

/** E.164 phone number (spec part 2: SIM phoneNumber, port-in number, SMS numbers). */
export const e164 = lazy(() => z.string().regex(E164_PATTERN, E164_MESSAGE));

/** Pagination input (spec part 8): page >= 1, pageSize 1..100. */
export const paginationParams = lazy(() => ({
  page: z.number().int().min(1).optional(),
  pageSize: z.number().int().min(1).max(100).optional(),
}));

export const paginationParamsSchema = lazy(() => z.strictObject(paginationParams()));

/** `page` (>= 1) and `pageSize` (1..100) of every list (spec part 8). */
export interface PaginationParams extends z.infer<ReturnType<typeof paginationParamsSchema>> {}
