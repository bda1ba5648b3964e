import { ConfigurationError } from '../core/errors.js';

/**
 * Checks one option of a webhook-side constructor (a receiver, a store, a voice stream) when it
 * is given: throws ConfigurationError `invalid <owner> option <option>: <problem>`, naming it, so
 * a bad value stops the receiver when it is made rather than at a delivery.
 */
export function checkOption(owner: string, option: string, value: unknown, problem: (value: unknown) => string | undefined): void {
  const found = value === undefined ? undefined : problem(value);
  if (found) throw new ConfigurationError(`invalid ${owner} option ${option}: ${found}`, 'CONFIGURATION_ERROR', option);
}
