// Calendar dates (`YYYY-MM-DD`) and wall times counted in UTC, as normalize and render both need
// them. Date.UTC() reads the years 0 to 99 as 1900 to 1999; nothing here does.

const DAY_MS = 86_400_000;

/** Epoch ms of a date and time of day read as UTC, for any year from 0 to 9999. */
export function utcMs(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, millisecond = 0): number {
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day);
  return at.setUTCHours(hour, minute, second, millisecond);
}

/** The number of days in a month (1 to 12) of a year. */
export function daysInMonth(year: number, month: number): number {
  return new Date(utcMs(year, month + 1, 0)).getUTCDate();
}

/** A `YYYY-MM-DD` date `days` calendar days later (earlier when negative); no zone involved. */
export function addDays(date: string, days: number): string {
  const ms = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(ms)) throw new Error(`internal: not a calendar date: ${date}`);
  return new Date(ms + days * DAY_MS).toISOString().slice(0, 10);
}
