import type { DedupeClaim } from '../webhooks/dedupe.js';
import { Script, StoreReplyError } from './connection.js';
import { describeReply, type Layout, layout, luaLayouts, place, type ScriptCall } from './script-layout.js';

/**
 * The dedupe store's scripts: one key per event, `p:` and the claiming delivery's token while it
 * is handled, anything else (`done`, or `1` from `setIfAbsent`) once it was. Each reads its KEYS
 * and ARGV by name, and has its encoder and decoder beside it.
 */

/** A script's text: its layouts' tables, then its own. */
function source(records: ReadonlyArray<Layout<string>>, body: string): string {
  return `${luaLayouts(records)}${body}`;
}

const EVENT_KEYS = layout('EVENT_KEYS', 'KEYS', ['event']);
const CLAIM_ARGS = layout('CLAIM_ARGS', 'ARGV', ['claimToken', 'leaseMs'], ['claimToken']);

/** The records of {@link claimScript}, in the order of the table beside it. */
export const CLAIM_LAYOUTS = [EVENT_KEYS, CLAIM_ARGS] as const;

/**
 * Claims an event for a delivery, unless it is claimed or done already.
 *
 * | Record | Places, in order     |
 * | ------ | -------------------- |
 * | KEYS   | event                |
 * | ARGV   | claimToken, leaseMs  |
 */
export const claimScript = new Script(
  source(
    CLAIM_LAYOUTS,
    `
local event = keys(EVENT_KEYS, 1).event
local claim = read(CLAIM_ARGS, 1)
local held = redis.call('GET', event)
if held then
  if string.sub(held, 1, 2) == 'p:' then return 'processing' end
  return 'done'
end
redis.call('SET', event, 'p:' .. claim.claimToken, 'PX', claim.leaseMs)
return 'claimed'
`,
  ),
);

export function encodeClaim(input: { event: string; claimToken: string; leaseMs: number }): ScriptCall {
  return { keys: place(EVENT_KEYS, { event: input.event }), args: place(CLAIM_ARGS, input) };
}

const CLAIMS: ReadonlySet<unknown> = new Set<DedupeClaim>(['claimed', 'processing', 'done']);

export function decodeClaim(reply: unknown): DedupeClaim {
  if (!CLAIMS.has(reply)) throw new StoreReplyError(`Redis answered the claim script with ${describeReply(reply)}, not claimed, processing or done`);
  return reply as DedupeClaim;
}

const DONE_ARGS = layout('DONE_ARGS', 'ARGV', ['ttlMs']);

/** The records of {@link markDoneScript}, in the order of the table beside it. */
export const MARK_DONE_LAYOUTS = [EVENT_KEYS, DONE_ARGS] as const;

/**
 * Records an event as handled, for `ttlMs`.
 *
 * | Record | Places, in order |
 * | ------ | ---------------- |
 * | KEYS   | event            |
 * | ARGV   | ttlMs            |
 */
export const markDoneScript = new Script(
  source(
    MARK_DONE_LAYOUTS,
    `
redis.call('SET', keys(EVENT_KEYS, 1).event, 'done', 'PX', read(DONE_ARGS, 1).ttlMs)
return 1
`,
  ),
);

export function encodeMarkDone(input: { event: string; ttlMs: number }): ScriptCall {
  return { keys: place(EVENT_KEYS, { event: input.event }), args: place(DONE_ARGS, input) };
}

const RELEASE_ARGS = layout('RELEASE_ARGS', 'ARGV', ['claimToken'], ['claimToken']);

/** The records of {@link releaseScript}, in the order of the table beside it. */
export const RELEASE_LAYOUTS = [EVENT_KEYS, RELEASE_ARGS] as const;

/**
 * Deletes the event's key only while it holds the delivery's claim: a late release never removes
 * another's claim or a done record.
 *
 * | Record | Places, in order |
 * | ------ | ---------------- |
 * | KEYS   | event            |
 * | ARGV   | claimToken       |
 */
export const releaseScript = new Script(
  source(
    RELEASE_LAYOUTS,
    `
local event = keys(EVENT_KEYS, 1).event
if redis.call('GET', event) == 'p:' .. read(RELEASE_ARGS, 1).claimToken then redis.call('DEL', event) end
return 1
`,
  ),
);

export function encodeRelease(input: { event: string; claimToken: string }): ScriptCall {
  return { keys: place(EVENT_KEYS, input), args: place(RELEASE_ARGS, input) };
}

/** Mark-done and release answer 1, their work done. */
export function decodeDone(reply: unknown, script: 'mark-done' | 'release'): void {
  if (reply !== 1) throw new StoreReplyError(`Redis answered the ${script} script with ${describeReply(reply)}, not 1`);
}
