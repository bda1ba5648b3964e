/**
 * Grammar shared by the client and the sandbox: both read the same spec, and a value one accepts
 * the other must accept too. Modules here import nothing, so neither side pulls in the other.
 */

/**
 * An E.164 number (spec part 2: SIM phoneNumber, port-in number, SMS numbers): `+`, a country
 * code that does not start with 0, and 7 to 15 digits in all, the shortest numbers in service
 * being 7 digits long.
 */
export const E164_PATTERN = /^\+[1-9]\d{6,14}$/;

export const E164_MESSAGE = 'must be an E.164 phone number such as +14155550100 (7 to 15 digits after +)';
