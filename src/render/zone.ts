// Zone offsets without a luxon DateTime per call: a big calendar asks for the same few hundred days
// over and over. The offset luxon gives is remembered per (zone, UTC day) when it is the same at
// both ends of that day (offsets do not change twice within a day, as src/normalize/time.ts also
// assumes), and asked of luxon's zone object otherwise, so output stays byte-identical.

import { DateTime, IANAZone, type Zone } from 'luxon';
import { remember, type RenderContext } from './context.js';

const DAY_MS = 86_400_000;
const MAX_DAYS = 100_000;

export interface ZoneInfo {
  zone: Zone;
  /** UTC day number -> offset in minutes, or NaN when the offset changes within that day. */
  days: Map<number, number>;
}

/** Whether Intl (and so luxon) accepts `zone` as an IANA zone name (remembered: asked once per event). */
export function isZone(ctx: RenderContext, zone: string): boolean {
  return remember(ctx.validZones, zone, 1000, (name) => IANAZone.isValidZone(name));
}

// The zone luxon itself would use for a name (DateTime.fromMillis(ms, { zone: name })), or null for
// the kinds left to luxon entirely (system zone, invalid names).
function infoOf(ctx: RenderContext, name: string): ZoneInfo | null {
  return remember(ctx.zones, name, 1000, () => {
    const { zone, isValid } = DateTime.fromMillis(0, { zone: name });
    return isValid && (zone.type === 'iana' || zone.type === 'fixed') ? { zone, days: new Map() } : null;
  });
}

/** luxon's offset (minutes east of UTC) of a zone at an instant; undefined for zones luxon handles differently. */
export function offsetMinutes(ctx: RenderContext, name: string, ms: number): number | undefined {
  const info = infoOf(ctx, name);
  if (!info || !Number.isFinite(ms)) return undefined;
  const offset = remember(info.days, Math.floor(ms / DAY_MS), MAX_DAYS, (day) => {
    const first = info.zone.offset(day * DAY_MS);
    return first === info.zone.offset(day * DAY_MS + DAY_MS - 1) ? first : NaN;
  });
  return Number.isNaN(offset) ? info.zone.offset(ms) : offset;
}

/** True when luxon writes this zone's zero offset as "Z" (fixed UTC), not "+00:00". */
export function isUniversalZone(ctx: RenderContext, name: string): boolean {
  return infoOf(ctx, name)?.zone.isUniversal ?? false;
}

/**
 * An instant's wall time in a zone as epoch ms of the same wall time in UTC (read with getUTC*);
 * undefined outside 1900-9999 or for offsets not in whole minutes (callers fall back to luxon/Intl).
 */
export function wallMs(ctx: RenderContext, name: string, ms: number): { wall: number; offset: number } | undefined {
  const offset = offsetMinutes(ctx, name, ms);
  if (offset === undefined || !Number.isInteger(offset)) return undefined;
  const wall = ms + offset * 60_000;
  // 1900-01-01 and 10000-01-01 UTC.
  if (!(wall >= -2_208_988_800_000 && wall < 253_402_300_800_000)) return undefined;
  return { wall, offset };
}
