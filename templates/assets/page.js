// calfeed page enhancements, loaded with defer; the pages work without it. Every word it shows
// comes from the page (its text is in the page's language, from the message catalog).
// 1. Event pages: show the event's time in the visitor's own time zone, named in the page's language.
// 2. Subscribe boxes: a button that copies the calendar address.
// 3. Home and calendar pages: search and filters over search.json, loaded when first used; the
//    state is in the URL's query (q, calendar, category), so a filtered view can be shared and
//    Back returns to the view before.
// 4. The widget page in a frame: tells the embedding page its height (docs/pages.md's snippet applies it).
// 5. Event pages: say that the event has ended, once it has (the page may be older than that).
(function () {
  'use strict';
  var lang = document.documentElement.lang || undefined;

  function formatter(locale, options) {
    try { return new Intl.DateTimeFormat(locale, options); }
    catch (e) { return new Intl.DateTimeFormat(undefined, options); }
  }

  // "Eastern European Standard Time" rather than "Europe/Vilnius"; the IANA id when Intl has no name.
  function zoneName(date, zone) {
    try {
      var parts = formatter(lang, { timeZoneName: 'long' }).formatToParts(date);
      for (var i = 0; i < parts.length; i++) if (parts[i].type === 'timeZoneName') return parts[i].value;
    } catch (e) { /* an old engine: the id */ }
    return zone;
  }

  function localTimes() {
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    document.querySelectorAll('[data-calfeed-local]').forEach(function (box) {
      var start = new Date(box.getAttribute('data-start') || '');
      var end = new Date(box.getAttribute('data-end') || '');
      if (isNaN(start.getTime())) return;
      // Dates in the site's date locale (--locale's first), as on the rest of the page.
      var f = formatter(box.getAttribute('data-locale') || lang, { dateStyle: 'full', timeStyle: 'short' });
      var text = !isNaN(end.getTime()) && end > start ? f.formatRange(start, end) : f.format(start);
      box.querySelector('[data-calfeed-local-zone]').textContent = zoneName(start, zone);
      box.querySelector('[data-calfeed-local-time]').textContent = text;
      box.hidden = false;
    });
  }

  function copyButtons() {
    document.querySelectorAll('button[data-calfeed-copy]').forEach(function (button) {
      var input = document.getElementById(button.getAttribute('data-calfeed-copy'));
      if (!input) return;
      var label = button.textContent;
      var copied = button.getAttribute('data-calfeed-copied') || label;
      button.hidden = false;
      button.addEventListener('click', function () {
        var done = function () {
          button.textContent = copied;
          setTimeout(function () { button.textContent = label; }, 2000);
        };
        input.select();
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(input.value).then(done, function () { document.execCommand('copy') && done(); });
        } else if (document.execCommand('copy')) {
          done();
        }
      });
    });
  }

  // Lower case without accents, so "zodis" finds "žodis" and "CAFE" finds "Café".
  function fold(text) {
    text = String(text || '');
    // Most text is ASCII: decomposing it would change nothing and costs most of the index's preparation.
    if (/[^\x00-\x7f]/.test(text)) text = text.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
    return text.toLowerCase();
  }

  function search() {
    var box = document.querySelector('[data-calfeed-search]');
    if (!box || !window.fetch || !window.URLSearchParams || !history.pushState) return;
    var q = box.querySelector('[name="q"]');
    var calendarSelect = box.querySelector('[name="calendar"]');
    var categorySelect = box.querySelector('[name="category"]');
    var status = box.querySelector('.search-status');
    var results = box.querySelector('.search-results');
    var listings = document.querySelectorAll('[data-calfeed-listing]');
    var messages = JSON.parse(box.getAttribute('data-messages') || '{}');
    var locale = box.getAttribute('data-locale') || lang;
    var own = box.getAttribute('data-calendar') || '';
    var indexUrl = new URL(box.getAttribute('data-calfeed-search'), location.href);
    var plural = new Intl.PluralRules(lang);
    var number = new Intl.NumberFormat(lang);
    var SHOWN = 100;
    var index = null;
    var loading = null;
    var wanted = { calendar: own, category: '' };
    var typing = false;
    var timer = 0;

    function msg(key, params) {
      var m = messages[key];
      if (m && typeof m === 'object') m = m[plural.select(params.count)] || m.other;
      return String(m || '').replace(/\{(\w+)\}/g, function (all, name) {
        return params && name in params ? number.format(params[name]) : all;
      });
    }

    function load() {
      if (!loading) {
        loading = fetch(indexUrl.href).then(function (response) {
          if (!response.ok) throw new Error(response.status);
          return response.json();
        }).then(function (data) {
          if (!data || data.version !== 1) throw new Error('search.json version');
          data.events.forEach(function (e) { e.text = fold([e.title, e.place, e.description].join('\n')); });
          index = data;
          fillSelects();
        });
        loading.catch(function () { loading = null; });
      }
      return loading;
    }

    function option(select, value, label) {
      var o = document.createElement('option');
      o.value = value;
      o.textContent = label;
      select.appendChild(o);
    }

    // The calendars and categories the index names; a calendar page's own option stays (the form's default).
    function fillSelects() {
      index.calendars.forEach(function (cal) { if (cal.slug !== own) option(calendarSelect, cal.slug, cal.title); });
      var collator = new Intl.Collator(lang);
      index.categories.slice().sort(function (a, b) { return collator.compare(a.name, b.name); })
        .forEach(function (cat) { option(categorySelect, cat.slug, cat.name); });
      calendarSelect.value = wanted.calendar;
      categorySelect.value = wanted.category;
    }

    function state() {
      return { q: q.value.trim(), calendar: index ? calendarSelect.value : wanted.calendar, category: index ? categorySelect.value : wanted.category };
    }

    function fromUrl() {
      var params = new URLSearchParams(location.search);
      q.value = params.get('q') || '';
      wanted = { calendar: params.has('calendar') ? params.get('calendar') : own, category: params.get('category') || '' };
      calendarSelect.value = wanted.calendar;
      categorySelect.value = wanted.category;
    }

    function toUrl(s, push) {
      var params = new URLSearchParams();
      if (s.q) params.set('q', s.q);
      if (s.calendar !== own) params.set('calendar', s.calendar);
      if (s.category) params.set('category', s.category);
      var query = params.toString();
      var url = location.pathname + (query ? '?' + query : '') + location.hash;
      if (url === location.pathname + location.search + location.hash) return;
      if (push) history.pushState(null, '', url);
      else history.replaceState(null, '', url);
    }

    function showResults(on) {
      for (var i = 0; i < listings.length; i++) listings[i].hidden = on;
      results.hidden = !on;
    }

    // write: 'push' or 'replace' the URL with the form's state, or leave it (it is where the state came from).
    function run(write) {
      var s = state();
      wanted = { calendar: s.calendar, category: s.category };
      if (write) toUrl(s, write === 'push');
      if (!s.q && s.calendar === own && !s.category) {
        showResults(false);
        status.textContent = '';
        return;
      }
      if (!index) status.textContent = msg('search.loading');
      load().then(function () { render(state()); }, function () { status.textContent = msg('search.error'); });
    }

    function render(s) {
      var words = fold(s.q).split(/\s+/).filter(Boolean);
      var calendar = s.calendar === '' ? -1 : slugIndex(index.calendars, s.calendar);
      var category = s.category === '' ? -1 : slugIndex(index.categories, s.category);
      var found = index.events.filter(function (e) {
        if (calendar !== -1 && e.calendar !== calendar) return false;
        if (category !== -1 && e.categories.indexOf(category) === -1) return false;
        for (var i = 0; i < words.length; i++) if (e.text.indexOf(words[i]) === -1) return false;
        return true;
      });
      results.textContent = '';
      found.slice(0, SHOWN).forEach(function (e) { results.appendChild(item(e)); });
      var text = found.length ? msg('search.found', { count: found.length }) : msg('search.none');
      if (found.length > SHOWN) text += ' ' + msg('search.shown', { shown: SHOWN });
      status.textContent = text;
      showResults(true);
    }

    // A name that matches nothing (a calendar or category gone since the link was shared) finds nothing.
    function slugIndex(list, slug) {
      for (var i = 0; i < list.length; i++) if (list[i].slug === slug) return i;
      return -2;
    }

    function line(className, child) {
      var p = document.createElement('p');
      p.className = className;
      p.appendChild(child);
      return p;
    }

    function link(href, text) {
      var a = document.createElement('a');
      a.href = new URL(href, indexUrl).href;
      a.textContent = text;
      return a;
    }

    // An event as the pages list one (partials/event-item.hbs): time, title, place, calendar.
    function item(e) {
      var cal = index.calendars[e.calendar];
      var li = document.createElement('li');
      li.className = 'event' + (e.cancelled ? ' is-cancelled' : '');
      var time = document.createElement('time');
      time.dateTime = e.start;
      time.textContent = when(e, cal.timeZone);
      li.appendChild(line('event-time', time));
      var title = line('event-title', link(e.url, e.title));
      if (e.cancelled) {
        var badge = document.createElement('strong');
        badge.className = 'badge badge-cancelled';
        badge.textContent = msg('status.cancelled');
        title.insertBefore(document.createTextNode(' '), title.firstChild);
        title.insertBefore(badge, title.firstChild);
      }
      li.appendChild(title);
      if (e.place) li.appendChild(line('event-location', document.createTextNode(e.place)));
      li.appendChild(line('event-calendar', link(cal.url, cal.title)));
      return li;
    }

    var formats = {};
    function when(e, zone) {
      var key = e.allDay ? 'UTC' : zone;
      var options = e.allDay ? { dateStyle: 'medium', timeZone: 'UTC' } : { dateStyle: 'medium', timeStyle: 'short', timeZone: zone };
      var f = formats[key] || (formats[key] = formatter(locale, options));
      var start = new Date(e.start);
      var end = e.end ? new Date(e.end) : null;
      var text = end && end > start && f.formatRange ? f.formatRange(start, end) : f.format(start);
      return e.allDay ? text + ' · ' + msg('list.allDay') : text;
    }

    box.hidden = false;
    fromUrl();
    run(null);
    // The index is fetched as the form is first approached, so its choices are in before a list opens.
    ['focusin', 'pointerenter', 'touchstart'].forEach(function (type) {
      box.addEventListener(type, function () { load().catch(function () {}); }, { passive: true });
    });
    q.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(function () { run(typing ? 'replace' : 'push'); typing = true; }, 250);
    });
    calendarSelect.addEventListener('change', function () { typing = false; run('push'); });
    categorySelect.addEventListener('change', function () { typing = false; run('push'); });
    q.addEventListener('keydown', function (event) {
      if (event.key === 'Enter') { clearTimeout(timer); typing = false; run('push'); }
    });
    box.querySelector('[data-calfeed-clear]').addEventListener('click', function () {
      clearTimeout(timer);
      typing = false;
      q.value = '';
      calendarSelect.value = own;
      categorySelect.value = '';
      run('push');
    });
    window.addEventListener('popstate', function () { typing = false; fromUrl(); run(null); });
  }

  // Posted to any origin: a height is no secret, and the frame cannot know who embeds it. The
  // embedding page checks the sender (origin and frame) before it applies it.
  function frameHeight() {
    if (window.parent === window || !document.body.classList.contains('widget-page')) return;
    var last = -1;
    var send = function (force) {
      // The page's own height (no margin escapes <main>), not the frame's: a frame can shrink too.
      var height = Math.ceil(document.documentElement.getBoundingClientRect().height);
      if (height === last && force !== true) return;
      last = height;
      window.parent.postMessage({ type: 'calfeed:height', height: height }, '*');
    };
    if (window.ResizeObserver) new ResizeObserver(send).observe(document.documentElement);
    window.addEventListener('load', function () { send(true); });
    send();
  }

  function ended() {
    document.querySelectorAll('[data-calfeed-ended]').forEach(function (notice) {
      var end = new Date(notice.getAttribute('data-calfeed-ended') || '').getTime();
      if (!isNaN(end) && Date.now() >= end) notice.hidden = false;
    });
  }

  localTimes();
  copyButtons();
  search();
  frameHeight();
  ended();
})();
