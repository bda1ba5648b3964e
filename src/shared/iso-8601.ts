/**
 * ISO 8601 timestamps as the spec writes them (part 1 rule 4), one reading for the client (a
 * token's `expires_at`) and the sandbox (its `now` option). Imports nothing.
 *
 * `Date.parse()` is not that reading: it rolls `2025-02-30` over to 2 March and `T24:00` over to
 * the next day, and reads a date-time without a zone in the machine's local time.
 */

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:\d{2}))?$/;

/**
 * `text` as epoch milliseconds, or undefined when it is not a timestamp of the calendar: a date
 * (`2025-06-01`, midnight UTC) when `dateAlone` allows it, else a date-time with its zone
 * (`2025-06-01T09:30:00.123Z`, `2025-06-01T11:30+02:00`). Month 01–12, a day the month has,
 * hour 00–23, minute and second 00–59 (no leap second), an offset within ±23:59; fractions of a
 * millisecond are dropped.
 */
export function parseIsoTimestamp(text: string, dateAlone: boolean): number | undefined {
  const match = TIMESTAMP.exec(text);
  if (!match) return undefined;
  // Groups 1–3 always match; the time's groups together, when there is a time.
  const [, year = '', month = '', day = '', hour, minute = '', second = '00', fraction = '', zone = 'Z'] = match;
  if (hour === undefined && !dateAlone) return undefined;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: the latter maps years 0..99 to 1900..1999.
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  // 30 February rolls over into March, month 13 into the next year: such a date is no date.
  if (date.getUTCFullYear() !== Number(year) || date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day)) return undefined;
  if (hour === undefined) return date.getTime();
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return undefined;
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const offsetHours = Number(zone.slice(1, 3));
    const offsetRest = Number(zone.slice(4, 6));
    if (offsetHours > 23 || offsetRest > 59) return undefined;
    offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (offsetHours * 60 + offsetRest);
  }
  const milliseconds = Number(fraction.padEnd(3, '0').slice(0, 3));
  return date.getTime() + ((Number(hour) * 60 + Number(minute) - offsetMinutes) * 60 + Number(second)) * 1000 + milliseconds;
}
