// Histories the generated differential test (differential.test.ts, npm run fuzz) found, or that
// pin a bug it is there to catch, replayed as they are: each step built incrementally and cold,
// compared byte for byte, warnings and counts included (test/support/differential/run.ts).
import { describe, it } from 'vitest';
import { modelEvent } from '../support/differential/model.js';
import { runHistory } from '../support/differential/run.js';

const event = modelEvent;

describe('incremental = cold: regressions', () => {
  it('an empty calendar does not crash the rebuild after a change elsewhere ("calendar rendered twice")', async () => {
    await runHistory({
      calendars: [
        { id: '44', title: 'Empty', validators: 'etag', pageSize: 0, events: [], brokenDetails: [], details: 'full' },
        { id: '45', title: 'Busy', validators: 'etag', pageSize: 0, events: [event('1'), event('2')], brokenDetails: [], details: 'full' },
      ],
      steps: [
        { mutations: [], advance: 0, checkUnchanged: false },
        { mutations: [{ kind: 'editEvent', cal: 1, at: 0, patch: { title: 'Renamed', start: 900 } }], advance: 5, checkUnchanged: true },
        { mutations: [{ kind: 'editEvent', cal: 1, at: 1, patch: { title: 'Renamed too' } }], advance: 5, checkUnchanged: false },
      ],
    });
  });

  it('feed items kept in the build store without its record: an unchanged event takes its row\'s, an edited one is rendered again', async () => {
    await runHistory({
      calendars: [
        { id: '3', title: 'Talks', validators: 'etag', pageSize: 0, events: [event('1', { categories: ['Physics'] }), event('2', { start: 700, categories: ['Physics'] })], brokenDetails: [], details: 'full' },
        { id: '4', title: 'Other', validators: 'none', pageSize: 0, events: [event('9', { start: 650, categories: ['Physics'] })], brokenDetails: [], details: 'full' },
      ],
      steps: [
        { mutations: [], advance: 0, checkUnchanged: false },
        { mutations: [{ kind: 'editEvent', cal: 0, at: 0, patch: { title: 'Renamed' } }], advance: 5, checkUnchanged: false, loseRecord: true },
        { mutations: [{ kind: 'editEvent', cal: 1, at: 0, patch: { location: 'Room 9' } }], advance: 5, checkUnchanged: true, loseRecord: true },
      ],
    });
  });

  it('regression (found by the fuzz, seed 487686415): a step lost the record of a store that had none, and the replay failed', async () => {
    const unreadable = event('1', { title: 'Seminar', start: 0, duration: null, location: null, omit: ['start'] });
    await runHistory({
      calendars: [{ id: '1', title: 'Seminar', validators: 'etag', pageSize: 0, events: [], brokenDetails: [], details: 'full' }],
      steps: [
        { mutations: [], advance: 0, checkUnchanged: false, loseRecord: true },
        { mutations: [{ kind: 'addEvent', cal: 0, event: unreadable }], advance: 0, checkUnchanged: false, loseRecord: true },
        { mutations: [], advance: 0, checkUnchanged: false, loseRecord: true },
      ],
    });
  });

  it('a duplicated event id: a change to the second entry only publishes what a cold build does', async () => {
    await runHistory({
      calendars: [
        {
          id: '1',
          title: 'Duplicates',
          validators: 'etag',
          pageSize: 0,
          events: [event('7', { location: 'Room 1' }), event('7', { location: 'Room 2', title: 'Second' })],
          brokenDetails: [],
          // Details that do not repeat the list's fields: the list entry chosen decides them.
          details: 'description',
        },
      ],
      steps: [
        { mutations: [], advance: 0, checkUnchanged: false },
        { mutations: [{ kind: 'editEvent', cal: 0, at: 1, patch: { location: 'Room 3', title: 'Second, changed' } }], advance: 1, checkUnchanged: true },
        { mutations: [{ kind: 'editEvent', cal: 0, at: 0, patch: { location: 'Room 4' } }], advance: 1, checkUnchanged: false },
      ],
    });
  });

  it('events taken from the last build give their warnings again and still count as unreadable', async () => {
    await runHistory({
      calendars: [
        {
          id: 'a',
          title: 'Unchanged',
          validators: 'etag',
          pageSize: 0,
          events: [event('1', { omit: ['start'] }), event('2', { omit: ['title'] }), event('3')],
          brokenDetails: [],
          details: 'description',
        },
        { id: 'b', title: 'Changing', validators: 'last-modified', pageSize: 2, events: [event('1'), event('2', { omit: ['title'] }), event('3')], brokenDetails: [], details: 'full' },
      ],
      steps: [
        { mutations: [], advance: 0, checkUnchanged: false },
        // b's list changes; a's is a 304 with every event's details fresh (taken whole).
        { mutations: [{ kind: 'editEvent', cal: 1, at: 2, patch: { title: 'Changed' } }], advance: 10, checkUnchanged: true },
        // Only "now" moves: every event is taken from the last build's row.
        { mutations: [], advance: 1440 * 2, checkUnchanged: false },
        // Details past --details-max-age (24h) are asked for again, one by one.
        { mutations: [{ kind: 'editEvent', cal: 1, at: 0, patch: { title: 'Changed again' } }], advance: 1440 * 2, checkUnchanged: false },
      ],
    });
  });

  it('a removed event of a calendar whose folder changed (a case twin appeared) links to where its page is', async () => {
    await runHistory({
      calendars: [{ id: 'Cal', title: 'Twin', validators: 'none', pageSize: 0, events: [event('a.b'), event('2')], brokenDetails: [], details: 'full' }],
      steps: [
        { mutations: [], advance: 0, checkUnchanged: false },
        {
          mutations: [
            { kind: 'removeEvent', cal: 0, at: 0 },
            { kind: 'addCalendar', calendar: { id: 'cal', title: 'Other twin', validators: 'etag', pageSize: 0, events: [event('1')], brokenDetails: [], details: 'full' } },
          ],
          advance: 4,
          checkUnchanged: true,
        },
        { mutations: [{ kind: 'removeCalendar', cal: 1 }], advance: 60, checkUnchanged: false },
      ],
    });
  });

  it('a calendar keeps its folder when a case twin of its id appears and goes (subscribers of its calendar.ics keep their URL)', async () => {
    const twin = (id: string) => ({ id, title: `Twin ${id}`, validators: 'etag' as const, pageSize: 0, events: [event('1')], brokenDetails: [], details: 'full' as const });
    await runHistory({
      calendars: [twin('Cal')],
      steps: [
        { mutations: [], advance: 0, checkUnchanged: false },
        { mutations: [{ kind: 'addCalendar', calendar: twin('cal') }], advance: 5, checkUnchanged: true },
        { mutations: [{ kind: 'removeCalendar', cal: 0 }], advance: 5, checkUnchanged: false },
        { mutations: [{ kind: 'addCalendar', calendar: twin('CAL') }], advance: 5, checkUnchanged: false },
      ],
    });
  });

  it('an unreadable event taken with its calendar whole counts as skipped for its reason: when every event is unreadable, the build fails as a cold one does', async () => {
    await runHistory({
      calendars: [
        { id: 'a', title: 'Unreadable', validators: 'etag', pageSize: 0, events: [event('u', { omit: ['start'] })], brokenDetails: [], details: 'full' },
        { id: 'b', title: 'Readable', validators: 'etag', pageSize: 0, events: [event('r')], brokenDetails: [], details: 'full' },
      ],
      steps: [
        { mutations: [], advance: 0, checkUnchanged: false },
        // Now no event can be read, each for want of a start: one reason, said once.
        { mutations: [{ kind: 'editEvent', cal: 1, at: 0, patch: { omit: ['start'] } }], advance: 5, checkUnchanged: false },
      ],
    });
  });

  it('a paging warning is given by every build that reads the list, fetched or taken unchanged, as a cold build gives it', async () => {
    await runHistory({
      calendars: [
        { id: 'loop', title: 'Looping pages', validators: 'etag', pageSize: -2, events: [event('1'), event('2'), event('3')], brokenDetails: [], details: 'full' },
        { id: 'b', title: 'Busy', validators: 'etag', pageSize: 0, events: [event('4')], brokenDetails: [], details: 'full' },
      ],
      steps: [
        { mutations: [], advance: 0, checkUnchanged: false },
        // Another calendar changes: the looping list is a 304.
        { mutations: [{ kind: 'editEvent', cal: 1, at: 0, patch: { title: 'Changed' } }], advance: 10, checkUnchanged: true },
        // Only "now" moves.
        { mutations: [], advance: 1440 * 2, checkUnchanged: false },
      ],
    });
  });

  it('regression (found by the fuzz, seed 447652318): the paging warning of a list of one page was dropped by the compact columns of the crawl cache, so a build that took the list unchanged did not give it', async () => {
    await runHistory({"calendars":[{"id":"1","title":"Seminar","validators":"etag","pageSize":-2,"events":[{"id":"1","title":"Seminar","start":0,"duration":null,"allDay":false,"location":null,"cancelled":false,"updatedAt":null,"categories":[],"omit":[]},{"id":"3","title":"Koncertas „Ruduo\"","start":-19614,"duration":90,"allDay":false,"location":null,"cancelled":true,"updatedAt":-4191,"categories":["Students","Ąžuolynas"],"omit":["title"]}],"brokenDetails":[],"details":"description"},{"id":"c/d","title":"Koncertas „Ruduo\"","validators":"last-modified","pageSize":5,"events":[{"id":"2","title":"Koncertas „Ruduo\"","start":49928,"duration":30,"allDay":false,"location":"Room 2","cancelled":true,"updatedAt":-20069,"categories":["Seminar","seminar","Ąžuolynas"],"omit":[]},{"id":"A","title":"Seminar","start":17606,"duration":30,"allDay":false,"location":null,"cancelled":false,"updatedAt":-41922,"categories":[],"omit":[]},{"id":"007","title":"Defence of a thesis","start":36843,"duration":90,"allDay":true,"location":null,"cancelled":true,"updatedAt":-24256,"categories":["seminar","Ąžuolynas"],"omit":["title"]}],"brokenDetails":["A"],"details":"description"}],"steps":[{"mutations":[{"kind":"moveToPast","cal":33,"at":6,"minutesAgo":30745},{"kind":"removeEvent","cal":28,"at":22},{"kind":"addEvent","cal":46,"event":{"id":"ä","title":"Koncertas „Ruduo\"","start":33735,"duration":90,"allDay":false,"location":null,"cancelled":false,"updatedAt":-33741,"categories":["Seminar","seminar","Ąžuolynas"],"omit":["title"]}}],"advance":25160,"checkUnchanged":true},{"mutations":[{"kind":"cancel","cal":24,"at":2,"cancelled":true}],"advance":1208,"checkUnchanged":true},{"mutations":[{"kind":"moveToPast","cal":28,"at":45,"minutesAgo":3232},{"kind":"validators","cal":15,"validators":"last-modified"}],"advance":10080,"checkUnchanged":false},{"mutations":[{"kind":"paging","cal":24,"pageSize":-2},{"kind":"breakDetails","cal":37,"at":17},{"kind":"editEvent","cal":28,"at":40,"patch":{"start":-23722,"duration":null,"location":null,"updatedAt":null,"omit":[]}},{"kind":"cancel","cal":47,"at":45,"cancelled":false}],"advance":60,"checkUnchanged":false},{"mutations":[],"advance":11,"checkUnchanged":false}]});
  });

  it('regression (found by the fuzz, seed 508380472): the home page\'s week ended at now + 168 h, which a DST change within the week moves off midnight, so a home page kept until midnight put a day-7 event under "Later" where a cold build put it under "This week"', async () => {
    await runHistory({"calendars":[{"id":"1","title":"Seminar","validators":"etag","pageSize":0,"events":[],"brokenDetails":[],"details":"full"},{"id":"Cal","title":"Seminar","validators":"etag","pageSize":0,"events":[{"id":"1","title":"Seminar","start":0,"duration":90,"allDay":true,"location":null,"cancelled":true,"updatedAt":-18143,"categories":["Seminar","Physics"],"omit":["start"]}],"brokenDetails":["2","a"],"details":"full"},{"id":"%20","title":"Seminar","validators":"none","pageSize":-2,"events":[{"id":"007","title":"Ąžuolas","start":29669,"duration":4320,"allDay":false,"location":"Room 2","cancelled":true,"updatedAt":null,"categories":["Seminar","seminar","Students"],"omit":[]},{"id":"a/b","title":" padded ","start":55850,"duration":4320,"allDay":false,"location":"Main hall, Universiteto g. 3","cancelled":true,"updatedAt":null,"categories":["Seminar","seminar","Students"],"omit":["start"]},{"id":"2","title":"<b>Bold</b> & co","start":1467,"duration":90,"allDay":false,"location":null,"cancelled":true,"updatedAt":-29303,"categories":["seminar","Ąžuolynas"],"omit":["start"]},{"id":"h#1","title":"Seminar","start":23468,"duration":4320,"allDay":true,"location":"Room 2","cancelled":true,"updatedAt":-34080,"categories":["Seminar","Students"],"omit":[]},{"id":"a.b","title":"Seminar","start":56063,"duration":90,"allDay":false,"location":"Room 2","cancelled":false,"updatedAt":-40152,"categories":["Students"],"omit":[]},{"id":"Ä","title":"Seminar","start":48716,"duration":90,"allDay":true,"location":"Online","cancelled":true,"updatedAt":-10921,"categories":["Seminar","seminar"],"omit":[]},{"id":"2","title":"Seminar","start":17416,"duration":4320,"allDay":true,"location":"Main hall, Universiteto g. 3","cancelled":true,"updatedAt":-9972,"categories":[],"omit":[]}],"brokenDetails":[],"details":"description"},{"id":"x y","title":"Line\nbreak","validators":"last-modified","pageSize":0,"events":[],"brokenDetails":[],"details":"full"},{"id":"2","title":"Defence of a thesis","validators":"etag","pageSize":-2,"events":[],"brokenDetails":[],"details":"description"}],"steps":[{"mutations":[],"advance":60,"checkUnchanged":false,"loseRecord":false},{"mutations":[{"kind":"editEvent","cal":23,"at":16,"patch":{"duration":120,"allDay":false,"location":"Room 2","updatedAt":84150,"categories":["Students","Physics"],"omit":["location"]}},{"kind":"breakDetails","cal":35,"at":6}],"advance":22337,"checkUnchanged":false,"loseRecord":false},{"mutations":[],"advance":1,"checkUnchanged":false,"loseRecord":false},{"mutations":[{"kind":"renameCalendar","cal":31,"title":"Open day"},{"kind":"editEvent","cal":26,"at":29,"patch":{"title":"Ąžuolas","start":41706,"duration":120,"allDay":true,"location":"Room 1","updatedAt":56495,"categories":[],"omit":["location"]}},{"kind":"cancel","cal":36,"at":49,"cancelled":true}],"advance":10080,"checkUnchanged":true,"loseRecord":false},{"mutations":[{"kind":"addEvent","cal":24,"event":{"id":"E-1","title":"Seminar","start":22031,"duration":30,"allDay":true,"location":"Room 2","cancelled":true,"updatedAt":-1311,"categories":["Seminar","Students"],"omit":[]}}],"advance":14,"checkUnchanged":false,"loseRecord":false}]});
  });
});
