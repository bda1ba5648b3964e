/** Bodies that refuse members they do not know. */
import * as z from 'zod';

/**
 * An object that refuses members it does not know, naming them and the allowed ones: a typo such
 * as `webhookUrl` or `stauts` would otherwise be dropped silently and the caller would never learn
 * the change did not happen. `where` prefixes nested field names (`webhookUrls.`).
 */
export function closedObject<Shape extends z.ZodRawShape>(shape: Shape, where = '') {
  const allowed = Object.keys(shape).join(', ') || 'none';
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') {
        const names = issue.keys.map((k) => `${where}${k}`).join(', ');
        return `unknown field${issue.keys.length > 1 ? 's' : ''} ${names} (allowed: ${allowed})`;
      }
      if (issue.code === 'invalid_type') return `${where ? where.slice(0, -1) : 'body'} must be a JSON object`;
      return undefined;
    },
  });
}
