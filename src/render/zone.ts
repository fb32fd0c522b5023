// Zone offsets without a luxon DateTime per call. luxon asks Intl for every offset (formatToParts,
// several microseconds) and builds a DateTime object around it; a big calendar asks for the same few
// hundred days over and over. So the offset luxon gives is remembered per (zone, UTC day) when it
// is the same at both ends of that day (no transition that day; the rule wallToEpoch in
// src/normalize/time.ts also relies on: offsets do not change twice within a day), and asked of
// luxon's own zone object otherwise. The results are luxon's, so output stays byte-identical.

import { DateTime, IANAZone, type Zone } from 'luxon';
import { remember, type RenderContext } from './context.js';

const DAY_MS = 86_400_000;
const MAX_DAYS = 100_000;

export interface ZoneInfo {
  zone: Zone;
  /** UTC day number -> offset in minutes, or NaN when the offset changes within that day. */
  days: Map<number, number>;
}

// Checking a zone name builds an Intl object (tens of microseconds); pages and feeds ask once per
// event, so the answer is remembered (ctx.validZones).
/** Whether Intl (and so luxon) accepts `zone` as an IANA zone name. */
export function isZone(ctx: RenderContext, zone: string): boolean {
  return remember(ctx.validZones, zone, 1000, (name) => IANAZone.isValidZone(name));
}

// Per zone name (ctx.zones): the zone luxon itself would use for it (DateTime.fromMillis(ms, { zone:
// name })), or null for the kinds we leave to luxon entirely (system zone, invalid names).
function infoOf(ctx: RenderContext, name: string): ZoneInfo | null {
  let info = ctx.zones.get(name);
  if (info === undefined) {
    const probe = DateTime.fromMillis(0, { zone: name });
    const zone = probe.zone;
    info = probe.isValid && (zone.type === 'iana' || zone.type === 'fixed') ? { zone, days: new Map() } : null;
    if (ctx.zones.size >= 1000) ctx.zones.clear();
    ctx.zones.set(name, info);
  }
  return info;
}

/** luxon's offset (minutes east of UTC) of a zone at an instant; undefined for zones luxon handles differently. */
export function offsetMinutes(ctx: RenderContext, name: string, ms: number): number | undefined {
  const info = infoOf(ctx, name);
  if (!info || !Number.isFinite(ms)) return undefined;
  const day = Math.floor(ms / DAY_MS);
  let offset = info.days.get(day);
  if (offset === undefined) {
    const first = info.zone.offset(day * DAY_MS);
    const last = info.zone.offset(day * DAY_MS + DAY_MS - 1);
    offset = first === last ? first : NaN;
    if (info.days.size >= MAX_DAYS) info.days.clear();
    info.days.set(day, offset);
  }
  return Number.isNaN(offset) ? info.zone.offset(ms) : offset;
}

/** True when luxon writes this zone's zero offset as "Z" (fixed UTC), not "+00:00". */
export function isUniversalZone(ctx: RenderContext, name: string): boolean {
  return infoOf(ctx, name)?.zone.isUniversal ?? false;
}

/**
 * Wall-clock fields of an instant in a zone, as epoch ms of the same wall time in UTC (read them
 * with getUTC*), or undefined outside the years 1900-9999 or for offsets that are not whole minutes
 * (local mean time before 1900), where callers fall back to luxon or Intl.
 */
export function wallMs(ctx: RenderContext, name: string, ms: number): { wall: number; offset: number } | undefined {
  const offset = offsetMinutes(ctx, name, ms);
  if (offset === undefined || !Number.isInteger(offset)) return undefined;
  const wall = ms + offset * 60_000;
  // 1900-01-01 and 10000-01-01 UTC.
  if (!(wall >= -2_208_988_800_000 && wall < 253_402_300_800_000)) return undefined;
  return { wall, offset };
}
