/**
 * The longest delay a timer takes, 2^31−1 ms (about 24.8 days): Node turns anything longer (and
 * NaN) into 1 ms with a TimeoutOverflowWarning, which makes a long wait a busy loop. Every option
 * bounded by a timer and every wait that arms one reads it from here.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;
