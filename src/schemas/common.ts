import * as z from 'zod/mini';
import { looseObject, object, strictObject } from './objects.js';
import { lazy } from './lazy.js';
import { E164_MESSAGE, E164_PATTERN } from '../shared/e164.js';
import { EMAIL_MESSAGE, isEmailAddress } from './email.js';

/**
 * A string enum that stays open: the type lists the known values (and autocompletes them),
 * while any other string a newer server sends is accepted at runtime, so a new status never
 * breaks a partner's integration. Requests use strict enums instead (see `src/schemas/*`).
 */
export type OpenEnum<T extends readonly string[]> = T[number] | (string & {});

export function openEnum<const T extends readonly [string, ...string[]]>(_known: T): z.ZodMiniType<OpenEnum<T>, string> {
  return z.string();
}

/**
 * The schema of an answer object: parsed loosely, typed exactly. A field the SDK does not declare
 * (one a newer server added) reaches the caller at runtime, as sent; the inferred type has the
 * declared fields only, without the `[k: string]: unknown` of `z.looseObject`, so that reading a
 * misspelt field (`sim.iccd`) is a compile error rather than an `unknown`. `.extend()` and
 * `.partial()` keep the loose parsing (zod copies the definition, its catchall included).
 */
export function answerObject<const S extends z.core.$ZodLooseShape>(shape: S): z.ZodMiniObject<S, z.core.$strip> {
  // The declared return type is what makes the inferred type exact; zod accepts the loose
  // schema where the strip one is declared, since the two differ only in their config.
  return looseObject(shape);
}

/** ISO 8601 timestamps are kept as strings: no Date transform on the hot path (spec part 1 rule 4). */
export const timestamp = lazy(() => z.string());

/**
 * Answer of an asynchronous operation (spec part 1 rule 7): 202 (201 for top-up) with the id to
 * poll. Fields beyond these two are not shown and are kept as sent.
 */
export const asyncAcceptanceSchema = lazy(() =>
  answerObject({
    /** The transaction to poll: `handle.wait()`, or `client.transactions.retrieve(transactionId)`. */
    transactionId: z.string(),
    /** The path of the transaction's status, as the server named it. */
    statusEndpoint: z.string(),
  }),
);

/** What an asynchronous operation answers first: the transaction to poll (spec part 1 rule 7). */
export interface AsyncAcceptance extends z.infer<ReturnType<typeof asyncAcceptanceSchema>> {}

/**
 * The answer object of a record whose fields the spec does not show. The fields named are the
 * ones the sandbox answers (docs/shapes.md): typed `unknown` (any JSON value is kept, so a guess
 * never fails an answer; narrow before use) and optional; every other field is kept as sent too,
 * and read through a cast. The type holds the names only, so that a misspelt one does not compile.
 */
export function notShownRecord<const K extends readonly string[]>(names: K) {
  const shape: Record<string, z.ZodMiniOptional<z.ZodMiniUnknown>> = {};
  for (const name of names) shape[name] = z.optional(z.unknown());
  return answerObject(shape as { [N in K[number]]: z.ZodMiniOptional<z.ZodMiniUnknown> });
}

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
export function suggestedBody<const S extends z.core.$ZodLooseShape>(suggested: S) {
  return z.catchall(object(suggested), jsonValue());
}

/** E.164 phone number (spec part 2: SIM phoneNumber, port-in number, SMS numbers). */
export const e164 = lazy(() => z.string().check(z.regex(E164_PATTERN, E164_MESSAGE)));

/** An email address by the rule of docs/shapes.md: RFC 6531, so internationalized addresses are accepted. */
export const emailAddress = lazy(() => z.string().check(z.refine(isEmailAddress, EMAIL_MESSAGE)));

/**
 * A suggested field of a body the spec does not show (spec part 4, known by name only): typed
 * `T` for the caller, any JSON value at run time. The spec gives such a field no type, so the
 * server judges it; the client only refuses what JSON cannot carry.
 */
export function suggested<T>(): z.ZodMiniOptional<z.ZodMiniType<T, T>> {
  return z.optional(jsonValue()) as unknown as z.ZodMiniOptional<z.ZodMiniType<T, T>>;
}

/** Pagination input (spec part 8): page >= 1, pageSize 1..100. */
export const paginationParams = lazy(() => ({
  page: z.optional(z.number().check(z.int(), z.minimum(1))),
  pageSize: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(100))),
}));

export const paginationParamsSchema = lazy(() => strictObject(paginationParams()));

/** `page` (>= 1) and `pageSize` (1..100) of every list (spec part 8). */
export interface PaginationParams extends z.infer<ReturnType<typeof paginationParamsSchema>> {}
