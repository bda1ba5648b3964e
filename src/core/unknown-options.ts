import { ConfigurationError } from './errors.js';
import { unknownOption, unknownOptionMessage } from '../shared/option-names.js';

/**
 * Refuses a member of `options` that `names` lacks with a {@link ConfigurationError} whose
 * `option` is that member: `unknown <owner> option <name>: did you mean <nearest>?`. For the
 * options objects given once, when something is built (a deduplicator, an adapter, a store), and
 * for those of the webhook checks; anything but an object is left to the caller's own checks.
 */
export function refuseUnknownOptions(options: unknown, names: object, owner: string): void {
  if (typeof options !== 'object' || options === null) return;
  const name = unknownOption(options, names);
  if (name !== undefined) throw new ConfigurationError(unknownOptionMessage(`${owner} option`, name, names), 'CONFIGURATION_ERROR', name);
}
