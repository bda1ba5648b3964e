import { ConfigurationError } from './errors.js';
import { unknownOption, unknownOptionMessage } from '../shared/option-names.js';

/**
 * Refuses a member of `options` that `names` lacks with a {@link ConfigurationError}:
 * `unknown <owner> option <path><name>: did you mean <path><nearest>?`, whose `option` is that
 * member, or the top-level option holding it when `path` says where a nested object sits
 * (`rateLimit.account.`). For the options objects given once, when something is built (a client,
 * an adapter, a store), and for those of the webhook checks; anything but an object is left to
 * the caller's own checks.
 */
export function refuseUnknownOptions(options: unknown, names: object, owner: string, path = ''): void {
  if (typeof options !== 'object' || options === null) return;
  const name = unknownOption(options, names);
  if (name === undefined) return;
  throw new ConfigurationError(unknownOptionMessage(`${owner} option`, name, names, path), 'CONFIGURATION_ERROR', path ? path.split('.')[0] : name);
}
