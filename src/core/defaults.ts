/**
 * The default numbers of a call, the token, `wait()`, the webhook receiver and fleet mode, each
 * with why it is what it is. Modules import these from here; the "Default numbers" table of
 * docs/configuration.md is held to this file by a test. Not here: the spec's rate limits
 * (rate-limit.ts), and the defaults of the deduplicator's `leaseMs` and `maxEntries`, of
 * `maxHeaderLength` and of the voice stream's options, stated beside those options in
 * their own modules. Imports nothing.
 */

// ---- One call ----

/** `timeoutMs`: one attempt, answer body included. Long enough for the slowest synchronous route. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** `maxRetries`: retries after the first attempt, so at most three attempts of a retryable call. */
export const DEFAULT_MAX_RETRIES = 2;
/** Ceiling of `maxRetries`: past ten retries a call is waiting on an outage, not riding out a hiccup. */
export const MAX_RETRIES_LIMIT = 10;
/** First backoff step before a retry (full jitter, doubled per retry; spec part 7 "Retry guidance"). */
export const BACKOFF_BASE_MS = 500;
/** Largest backoff step, whatever the retry count. */
export const BACKOFF_CAP_MS = 8_000;
/** `maxServerWaitMs`: ceiling on a pause the server asks for (Retry-After, a rate-limit reset; spec part 8). */
export const DEFAULT_MAX_SERVER_WAIT_MS = 60_000;
/**
 * `maxResponseBytes`: 8 MiB. The largest answers of the API are pages of 100 records, tens of
 * kilobytes; this leaves two orders of magnitude of room while keeping a hostile or broken server
 * from filling the process's memory.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/**
 * Extra time a call's overall deadline grants beyond `timeoutMs × attempts`: enough for one
 * Retry-After of a 60-second window (spec part 8) plus backoffs.
 */
export const DEADLINE_SLACK_MS = 60_000;
/** First and longest pause before asking again about a keyed write still in progress on the server (spec part 7, 409 row). */
export const IN_FLIGHT_FIRST_WAIT_MS = 250;
export const IN_FLIGHT_MAX_WAIT_MS = 2_000;
/** `close({ timeoutMs })`: how long calls already started may run on before they are cut. */
export const DEFAULT_CLOSE_TIMEOUT_MS = 30_000;
/** Longest `idempotencyKey` accepted (a UUID is 36; room for a caller's own composite keys). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

// ---- Token (spec part 5) ----

/** Refresh this long before expiry, or 10 % of the lifetime for short-lived tokens. */
export const TOKEN_REFRESH_MARGIN_MS = 60_000;
/** Assumed when the token response states no usable lifetime: short, so a real expiry is found soon. */
export const FALLBACK_TOKEN_LIFETIME_MS = 60_000;

// ---- wait() on an asynchronous operation (spec part 1 rule 7) ----

/** `timeoutMs` of `wait()`: five minutes, past the slowest provisioning the spec describes. */
export const DEFAULT_WAIT_TIMEOUT_MS = 300_000;
/** `pollIntervalMs`: the first delay between two status polls (×1.5 per poll after it). */
export const DEFAULT_POLL_INTERVAL_MS = 1_000;
/** `maxPollIntervalMs`: the longest delay between two status polls. */
export const DEFAULT_MAX_POLL_INTERVAL_MS = 10_000;
/** Floor of `pollIntervalMs` / `maxPollIntervalMs`: a status poll more often than this is a busy loop. */
export const MIN_POLL_INTERVAL_MS = 100;

// ---- Webhook receiver ----

/** `toleranceSeconds`: how far a signed timestamp may be from now, in seconds (replay window). */
export const DEFAULT_TOLERANCE_SECONDS = 300;
/** `maxBodyBytes`: the largest webhook body read (events are a few kilobytes). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** `ttlMs` of the deduplicator: one day, past the sender's whole retry schedule. */
export const DEFAULT_DEDUPE_TTL_MS = 24 * 60 * 60 * 1000;

// ---- Fleet mode (mobile-partner-sdk/redis) ----

/**
 * Longest wait for one Redis command of the fleet's limiter or dedupe store: past it the store
 * counts as unavailable (fail-open or fail-closed), so no call hangs on a Redis that went away.
 * Loopback or LAN Redis answers in well under a millisecond; a second is an outage, not a hiccup.
 */
export const STORE_COMMAND_TIMEOUT_MS = 1_000;
/** After a store failure under fail-open, the in-process limiter is used this long before Redis is tried again. */
export const STORE_RETRY_AFTER_MS = 1_000;
/**
 * Longest sleep of a call waiting for a slot in the fleet's limiter before it asks Redis again:
 * a slot another process gave back early (its request never left) is found within this time.
 */
export const STORE_MAX_POLL_MS = 1_000;
