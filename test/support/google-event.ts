// What Google's Event rich results require of a schema.org Event (Search Central, "Event structured
// data"): name, startDate, and a location that is a Place with an address or a VirtualLocation with
// a url; and the values its enumerations allow. Returns the problems found: none when it passes.

const ATTENDANCE = ['Offline', 'Online', 'Mixed'].map((m) => `https://schema.org/${m}EventAttendanceMode`);
const STATUS = ['EventScheduled', 'EventCancelled', 'EventMovedOnline', 'EventPostponed', 'EventRescheduled'].map((s) => `https://schema.org/${s}`);
/** A date, or a date-time with its UTC offset (Google asks for the offset). */
const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown): boolean => typeof v === 'string' && v.trim() !== '';
const isHttpUrl = (v: unknown): boolean => typeof v === 'string' && /^https?:\/\/[^\s]+$/.test(v);

export function googleEventProblems(ld: unknown): string[] {
  if (!isObject(ld)) return ['not an object'];
  const problems: string[] = [];
  if (ld['@type'] !== 'Event') problems.push(`@type is ${String(ld['@type'])}`);
  if (!isText(ld.name)) problems.push('no name');
  for (const key of ['startDate', 'endDate'] as const) {
    if (key === 'startDate' || ld[key] !== undefined) if (typeof ld[key] !== 'string' || !ISO.test(ld[key])) problems.push(`${key} ${JSON.stringify(ld[key])} is not ISO 8601 with an offset`);
  }
  problems.push(...locationProblems(ld.location));
  if (ld.eventAttendanceMode !== undefined && !ATTENDANCE.includes(String(ld.eventAttendanceMode))) problems.push(`eventAttendanceMode ${String(ld.eventAttendanceMode)}`);
  if (ld.eventStatus !== undefined && !STATUS.includes(String(ld.eventStatus))) problems.push(`eventStatus ${String(ld.eventStatus)}`);
  if (ld.image !== undefined && !(Array.isArray(ld.image) && ld.image.length > 0 && ld.image.every(isHttpUrl))) problems.push('image is not a list of URLs');
  return problems;
}

function locationProblems(location: unknown): string[] {
  if (!isObject(location)) return ['no location'];
  if (location['@type'] === 'VirtualLocation') return isHttpUrl(location.url) ? [] : ['a VirtualLocation without a url'];
  if (location['@type'] !== 'Place') return [`location @type is ${String(location['@type'])}`];
  const address = location.address;
  if (isText(address)) return [];
  if (isObject(address) && address['@type'] === 'PostalAddress') {
    const parts = ['streetAddress', 'addressLocality', 'postalCode', 'addressRegion', 'addressCountry'].filter((k) => isText(address[k]));
    return parts.length > 0 ? [] : ['a PostalAddress with no parts'];
  }
  return ['a Place without an address'];
}
