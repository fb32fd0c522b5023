import { describe, expect, it } from 'vitest';
import { EventFiles } from '../../src/pipeline/event-files.js';
import { dateDataVersions } from '../../src/pipeline/render-keys.js';
import { sampleCalendar, sampleEvent, sampleSite } from '../fixtures/sample.js';

// Only fingerprint() is exercised: the staging, page renderer and history are never touched.
function files(runtime?: Array<string | null>, templates = 'templates-1', site = sampleSite()): EventFiles {
  return new EventFiles(undefined as never, undefined as never, undefined as never, templates, site, undefined as never, undefined, runtime);
}

describe('EventFiles.fingerprint (when an event page and .ics may be kept)', () => {
  const cal = sampleCalendar();
  const json = JSON.stringify(sampleEvent());

  it('is the same for the same inputs, and by default takes the running ICU, tz and Unicode versions', () => {
    expect(files().fingerprint(cal, json)).toBe(files().fingerprint(cal, json));
    expect(files(dateDataVersions()).fingerprint(cal, json)).toBe(files().fingerprint(cal, json));
  });

  it('changes with the date data of the runtime (a Node.js upgrade may format dates differently), not with "now"', () => {
    const base = files(['74.1', '2024a', '15.1']).fingerprint(cal, json);
    expect(files(['75.1', '2024a', '15.1']).fingerprint(cal, json)).not.toBe(base);
    expect(files(['74.1', '2025b', '15.1']).fingerprint(cal, json)).not.toBe(base);
    expect(files(['74.1', '2024a', '16.0']).fingerprint(cal, json)).not.toBe(base);
    expect(files(['74.1', '2024a', '15.1'], 'templates-1', sampleSite({ now: Date.UTC(2030, 0, 1) })).fingerprint(cal, json)).toBe(base);
  });

  it('changes with the templates, the site settings it shows, the calendar and the event', () => {
    const base = files().fingerprint(cal, json);
    expect(files(undefined, 'templates-2').fingerprint(cal, json)).not.toBe(base);
    expect(files(undefined, 'templates-1', sampleSite({ locale: 'lt-LT' })).fingerprint(cal, json)).not.toBe(base);
    expect(files().fingerprint(sampleCalendar({ title: 'Other' }), json)).not.toBe(base);
    expect(files().fingerprint(cal, JSON.stringify(sampleEvent({ title: 'Other' })))).not.toBe(base);
  });
});
