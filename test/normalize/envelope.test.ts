import { describe, expect, it } from 'vitest';
import { CalfeedError } from '../../src/errors.js';
import { findList, replaceList, unwrapRecord } from '../../src/normalize/index.js';

const A = [{ id: 1 }, { id: 2 }];

describe('findList', () => {
  it.each<[string, unknown, 'calendars' | 'events', string[]]>([
    ['bare array', A, 'events', []],
    ['data', { data: A, meta: { total: 2 } }, 'events', ['data']],
    ['items', { items: A, count: 2 }, 'events', ['items']],
    ['results', { results: A }, 'events', ['results']],
    ['content (Spring pages)', { content: A, totalPages: 1 }, 'events', ['content']],
    ['records', { records: A }, 'events', ['records']],
    ['value (OData)', { '@odata.context': 'x', value: A }, 'events', ['value']],
    ['events', { events: A }, 'events', ['events']],
    ['calendars', { calendars: A }, 'calendars', ['calendars']],
    ['eventCalendars', { eventCalendars: A }, 'calendars', ['eventCalendars']],
    ['case-insensitive Data', { Data: A }, 'events', ['Data']],
    ['snake event_calendars', { event_calendars: A }, 'calendars', ['event_calendars']],
    ['one level deeper', { data: { items: A, page: 1 } }, 'events', ['data', 'items']],
    ['HAL _embedded', { _embedded: { events: A }, _links: {} }, 'events', ['_embedded', 'events']],
    ['kind name beats a generic one', { data: [], events: A }, 'events', ['events']],
    ['calendar list holding both', { eventCalendars: A, events: [{ x: 1 }] }, 'calendars', ['eventCalendars']],
    ['single unusual array of records', { hits_total: 2, payloadList: A }, 'events', ['payloadList']],
    ['empty list is a list', { data: [] }, 'events', ['data']],
  ])('%s', (_name, body, kind, path) => {
    const found = findList(body, kind);
    expect(found.path).toEqual(path);
    expect(found.items).toEqual(_name.startsWith('empty') ? [] : A);
  });

  it('follows an explicit dotted path with array indexes', () => {
    const body = { response: [{ page: { rows: A } }] };
    expect(findList(body, 'events', 'response[0].page.rows')).toEqual({ items: A, path: ['response', '0', 'page', 'rows'] });
    expect(findList(body, 'events', 'Response.0.Page.Rows').items).toEqual(A);
  });

  it.each<[string, unknown, RegExp]>([
    ['an error object', { error: 'maintenance', status: 503 }, /found an object with keys "error", "status"/],
    ['a string', 'hello', /found a string \("hello"\)/],
    ['null', null, /found null/],
    ['an object of non-arrays', { data: { id: 5 } }, /no array under .*data/],
  ])('throws a RESPONSE error naming what it found: %s', (_name, body, message) => {
    const error = (() => {
      try {
        findList(body, 'calendars');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(CalfeedError);
    expect((error as CalfeedError).code).toBe('RESPONSE');
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain('fields.lists.calendars');
  });

  it('says what sits at a wrong explicit path', () => {
    expect(() => findList({ data: { id: 1 } }, 'events', 'data')).toThrow(/not at "data" \(fields\.lists\.events\): that holds an object with keys "id"/);
    expect(() => findList({ data: [] }, 'events', 'nope.deeper')).toThrow(/no such path/);
  });
});

describe('replaceList', () => {
  it('returns the items for a bare array', () => {
    expect(replaceList(A, [], [1, 2, 3])).toEqual([1, 2, 3]);
  });

  it('replaces a nested list without touching the original', () => {
    const body = { data: { items: [{ id: 1 }], page: 1 }, meta: { total: 3 } };
    const copy = structuredClone(body);
    const result = replaceList(body, ['data', 'items'], [{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(result).toEqual({ data: { items: [{ id: 1 }, { id: 2 }, { id: 3 }], page: 1 }, meta: { total: 3 } });
    expect(body).toEqual(copy);
  });

  it('round-trips with the path findList returned, arrays included', () => {
    const body = { response: [{ rows: [1] }] };
    const { path } = findList(body, 'events', 'response[0].rows');
    expect(replaceList(body, path, [1, 2])).toEqual({ response: [{ rows: [1, 2] }] });
  });
});

describe('unwrapRecord', () => {
  const record = { id: 7, title: 'Talk' };
  it.each<[string, unknown]>([
    ['the record itself', record],
    ['data', { data: record, meta: { language: 'en' } }],
    ['item', { item: record }],
    ['result', { result: record }],
    ['event', { event: record }],
    ['details', { details: record }],
    ['data holding a one-element array', { data: [record] }],
    ['two levels', { result: { data: record } }],
  ])('%s', (_name, body) => {
    expect(unwrapRecord(body)).toEqual(record);
  });

  it('does not unwrap a record that has a nested object field named like a wrapper', () => {
    const withDetails = { eventId: 1, title: 'x', details: { room: 'A' } };
    expect(unwrapRecord(withDetails)).toBe(withDetails);
  });

  it('throws a RESPONSE error for a non-object body', () => {
    expect(() => unwrapRecord('<html>oops</html>')).toThrow(CalfeedError);
    expect(() => unwrapRecord([1, 2])).toThrow(/Expected an event record/);
  });
});
