// The human report of `calfeed inspect`. Pure: an Inspection in, text out.

import type { Explanation } from '../normalize/index.js';
import type { Inspection } from './inspect.js';

const show = (value: unknown, max = 60): string => {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
};

function section(title: string, url: string, meta: string, ex: Explanation): string[] {
  const lines = [`${title}`, `  GET ${url}`, `  ${meta}`, '  fields:'];
  for (const f of ex.fields) {
    const from = f.path === null ? '(not found)' : Array.isArray(f.path) ? f.path.join(' + ') : f.path;
    lines.push(`    ${f.field.padEnd(12)} <- ${from.padEnd(28)} ${f.sample !== undefined ? show(f.sample) : ''}${f.note ? `  (${f.note})` : ''}`.trimEnd());
  }
  if (ex.times.length) {
    lines.push('  times:');
    for (const t of ex.times) lines.push(`    ${t.field.padEnd(12)} ${show(t.sample, 40)} read as ${t.reading}`);
  }
  lines.push(`  unused raw fields: ${ex.unused.length ? ex.unused.join(', ') : '(none)'}`);
  for (const w of ex.warnings) lines.push(`  warning: ${w}`);
  return lines;
}

/** Format an inspection for a terminal. */
export function formatInspection(i: Inspection): string {
  const lines = [`Inspecting ${i.source}`, ''];
  lines.push(...section('Calendar list', i.calendars.url, `${i.calendars.envelope}, ${i.calendars.count} calendars`, i.calendars.explanation), '');
  if (i.events) {
    const paging = i.events.nextPage ? ` on the first page; paged: next page ${i.events.nextPage} (the build follows every page)` : '';
    lines.push(...section(`Event list of calendar "${i.events.calendarId}"`, i.events.url, `${i.events.envelope}, ${i.events.count} events${paging}`, i.events.explanation), '');
  } else {
    lines.push('No calendar id found, so no event list was fetched.', '');
  }
  if (i.details) lines.push(...section(`Details of event "${i.details.eventId}"`, i.details.url, 'one record', i.details.explanation), '');
  lines.push('Paste and edit this block in calfeed.config.json if a field is wrong or missing:');
  lines.push(JSON.stringify({ fields: i.fields }, null, 2));
  return lines.join('\n') + '\n';
}
