/** Access tokens of the sandbox: JWT-shaped, signed with a per-sandbox key, expiring on the sandbox clock. */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KeyTier } from '../context.js';

interface IssuedToken {
  accessToken: string;
  tier: KeyTier;
  expiresAtMs: number;
}

const b64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');

export interface TokenStore {
  issue(tier: KeyTier, nowMs: number, ttlSeconds: number): IssuedToken;
  /** The tier of a live token, or null when unknown, revoked, expired or malformed. */
  verify(token: string, nowMs: number): KeyTier | null;
  /** Revokes one token, or every token when none is given; returns how many were live. */
  revoke(token?: string): number;
}

export function createTokenStore(): TokenStore {
  const signingKey = randomBytes(32);
  const live = new Map<string, IssuedToken>();
  const sign = (data: string): string => createHmac('sha256', signingKey).update(data).digest('base64url');
  return {
    issue(tier, nowMs, ttlSeconds) {
      const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
      const payload = b64url(
        JSON.stringify({
          sub: 'sandbox-account',
          tier,
          iat: Math.floor(nowMs / 1000),
          exp: Math.floor(nowMs / 1000) + ttlSeconds,
          jti: randomBytes(8).toString('hex'),
        }),
      );
      const accessToken = `${header}.${payload}.${sign(`${header}.${payload}`)}`;
      const issued = { accessToken, tier, expiresAtMs: nowMs + ttlSeconds * 1000 };
      live.set(accessToken, issued);
      return issued;
    },
    verify(token, nowMs) {
      const parts = token.split('.');
      if (parts.length !== 3) return null;
      const expected = Buffer.from(sign(`${parts[0]}.${parts[1]}`));
      const given = Buffer.from(parts[2] ?? '');
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
      const issued = live.get(token);
      if (!issued) return null;
      if (issued.expiresAtMs <= nowMs) {
        // An expired token never comes back to life, and a long soak run should not hoard them.
        live.delete(token);
        return null;
      }
      return issued.tier;
    },
    revoke(token) {
      if (token === undefined) {
        const n = live.size;
        live.clear();
        return n;
      }
      return live.delete(token) ? 1 : 0;
    },
  };
}
