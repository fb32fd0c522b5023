/* calfeed widget: <div data-calfeed-calendar="ID"></div> + this script. No dependencies.
   Optional: data-calfeed-limit="5", data-calfeed-locale="en". Data is set with textContent only. */
(function () {
  'use strict';
  var me = document.currentScript;
  var base = new URL('.', (me && me.src) || location.href);
  // The site's language and the widget's messages in each language (put here by calfeed build).
  var TEXT = /*calfeed:messages*/null || { lang: 'en', messages: {} };

  // The catalog of a locale ("lt" for "lt-LT"), or none.
  function catalogFor(locale) {
    var tag = String(locale).toLowerCase();
    for (var lang in TEXT.messages) {
      if (lang.toLowerCase() === tag || lang.toLowerCase() === tag.split('-')[0]) return lang;
    }
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  }

  function fmt(locale, zone, opts, date) {
    try { opts.timeZone = zone; return new Intl.DateTimeFormat(locale, opts).format(date); }
    catch (e) { delete opts.timeZone; return new Intl.DateTimeFormat(locale, opts).format(date); }
  }

  // Today's date (YYYY-MM-DD) in a zone, to drop all-day events that ended since the build.
  function today(zone) {
    try { return new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(new Date()); }
    catch (e) { return new Date().toISOString().slice(0, 10); }
  }

  function when(x, locale) {
    var day = { weekday: 'short', month: 'short', day: 'numeric' };
    if (x.allDay) {
      var s = fmt(locale, 'UTC', day, new Date(x.startDate + 'T00:00:00Z'));
      if (x.endDate && x.endDate !== x.startDate) s += ' – ' + fmt(locale, 'UTC', day, new Date(x.endDate + 'T00:00:00Z'));
      return s;
    }
    day.hour = 'numeric';
    day.minute = '2-digit';
    return fmt(locale, x.timeZone, day, new Date(x.start));
  }

  function upcoming(x, now) {
    if (x.allDay) return (x.endDate || x.startDate) >= today(x.timeZone);
    return new Date(x.end || x.start).getTime() >= now;
  }

  function render(box, feed, limit, locale, msg) {
    var now = Date.now();
    var items = (feed.items || []).filter(function (it) {
      return it && it._calfeed && upcoming(it._calfeed, now);
    }).slice(0, limit);
    var list = el('ul', 'calfeed-list');
    items.forEach(function (it) {
      var x = it._calfeed;
      var li = el('li', 'calfeed-event');
      var t = el('time', 'calfeed-when', when(x, locale));
      t.setAttribute('datetime', x.allDay ? x.startDate : x.start);
      li.appendChild(t);
      li.appendChild(document.createTextNode(' '));
      var title = x.title || it.title || '';
      var link = /^https?:\/\//i.test(it.url || '') ? el('a', 'calfeed-title', title) : el('span', 'calfeed-title', title);
      if (link.tagName === 'A') link.href = it.url;
      if (x.status === 'cancelled') {
        li.className += ' calfeed-cancelled';
        li.appendChild(el('strong', 'calfeed-badge', msg('status.cancelled') + ' '));
      }
      li.appendChild(link);
      var where = x.location && (typeof x.location === 'string' ? x.location : x.location.text || x.location.name);
      if (where) {
        li.appendChild(document.createTextNode(' '));
        li.appendChild(el('span', 'calfeed-where', String(where)));
      }
      list.appendChild(li);
    });
    box.textContent = '';
    box.appendChild(items.length ? list : el('p', 'calfeed-empty', msg('calendar.noUpcoming')));
  }

  function load(box) {
    var id = box.getAttribute('data-calfeed-calendar') || '';
    var limit = parseInt(box.getAttribute('data-calfeed-limit'), 10) || 5;
    var asked = box.getAttribute('data-calfeed-locale') || document.documentElement.lang || TEXT.lang;
    // Dates in the locale asked for when its language has a catalog, else all in the site's language.
    var lang = catalogFor(asked) || TEXT.lang;
    var locale = catalogFor(asked) ? asked : lang;
    var msg = function (key) { return (TEXT.messages[lang] || {})[key] || ''; };
    box.setAttribute('lang', lang);
    function fail() {
      box.textContent = '';
      box.appendChild(el('p', 'calfeed-error', msg('widget.error')));
    }
    // Slugs are single safe path segments (see the output layout); anything else is a typo or a trick.
    if (!/^[A-Za-z0-9_][A-Za-z0-9._-]*$/.test(id)) return fail();
    box.setAttribute('aria-busy', 'true');
    fetch(new URL('calendars/' + id + '/feed.json', base).href, { credentials: 'omit' })
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
      .then(function (feed) { render(box, feed, limit, locale, msg); })
      .catch(fail)
      .then(function () { box.removeAttribute('aria-busy'); });
  }

  function init() {
    document.querySelectorAll('div[data-calfeed-calendar]').forEach(function (box) {
      if (box.calfeedDone) return;
      box.calfeedDone = true;
      load(box);
    });
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
