/* calfeed widget: <div data-calfeed-calendar="ID"></div> (or data-calfeed-category="SLUG") + this
   script. No dependencies. Options and the CSS custom properties that theme it: docs/pages.md.
   It draws in a shadow root, so the page's CSS neither styles nor breaks it; data is set as text only. */
(function () {
  'use strict';
  var me = document.currentScript;
  var base = new URL('.', (me && me.src) || location.href);
  // The site's language, --primary-color and the widget's messages in each language (put here by calfeed build).
  var TEXT = /*calfeed:messages*/null || { lang: 'en', messages: {} };
  var SELECTOR = 'div[data-calfeed-calendar],div[data-calfeed-category]';

  // Each colour is the page's custom property if it sets one, else the theme's default.
  function theme(bg, fg, muted, line, primary, cancel, scheme) {
    return '--bg:var(--calfeed-bg,' + bg + ');--fg:var(--calfeed-fg,' + fg + ');--mu:var(--calfeed-muted,' + muted +
      ');--ln:var(--calfeed-line,' + line + ');--ac:var(--calfeed-primary,' + primary + ');--cx:var(--calfeed-cancel,' + cancel +
      ');color-scheme:' + scheme;
  }
  var DARK = '{' + theme('#121417', '#e8e8e8', '#b0b0b0', '#3a3f45', '#8ab4f8', '#f2b8b5', 'dark') + '}';
  // `all: initial` stops the page's inherited styles (font, colour, line height, alignment) at the box.
  var CSS = ':host{display:block}' +
    '.w{all:initial;display:block;box-sizing:border-box;' +
    theme('#fff', '#1a1a1a', '#555', '#d8d8d8', /^#[0-9a-f]{3,6}$/i.test(TEXT.primary) ? TEXT.primary : '#0b57d0', '#b3261e', 'light') +
    ';--sp:var(--calfeed-spacing,.75rem);background:var(--bg);color:var(--fg);' +
    'font:var(--calfeed-font-size,medium)/1.45 var(--calfeed-font,system-ui,-apple-system,"Segoe UI",Roboto,sans-serif);' +
    'border:1px solid var(--ln);border-radius:var(--calfeed-radius,.5rem);padding:var(--sp);text-align:start}' +
    'ul{list-style:none;margin:0;padding:0}p{margin:0}' +
    'li{padding:calc(var(--sp)*.7) 0;border-top:1px solid var(--ln)}li:first-child{border-top:0;padding-top:0}' +
    '.calfeed-when,.calfeed-where,.calfeed-empty,.calfeed-error{color:var(--mu);font-size:.875em}' +
    '.calfeed-title{font-weight:600;overflow-wrap:anywhere}' +
    'a{color:var(--ac);text-underline-offset:.15em}a:focus-visible{outline:2px solid var(--ac);outline-offset:2px;border-radius:2px}' +
    '.calfeed-cancelled .calfeed-title{text-decoration:line-through}' +
    '.calfeed-badge{color:var(--cx);font-size:.8em;border:1px solid;border-radius:.25em;padding:0 .3em;margin-inline-end:.4em}' +
    '.calfeed-more{margin-top:var(--sp);padding-top:calc(var(--sp)*.7);border-top:1px solid var(--ln);font-size:.95em}' +
    '@media (prefers-color-scheme:dark){:host(:not([data-calfeed-theme=light])) .w' + DARK + '}' +
    ':host([data-calfeed-theme=dark]) .w' + DARK;
  var sheet;

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

  function formatter(locale, opts) {
    try { return new Intl.DateTimeFormat(locale, opts); }
    catch (e) { return new Intl.DateTimeFormat(undefined, opts); }
  }

  // Today's date (YYYY-MM-DD) in a zone, to drop all-day events that ended since the build.
  function today(zone) {
    try { return new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(new Date()); }
    catch (e) { return new Date().toISOString().slice(0, 10); }
  }

  // A timed event in the visitor's zone, that zone named ("Eastern European Standard Time") apart;
  // an all-day event's dates, which are the same days everywhere, with no zone.
  function when(x, locale) {
    var day = { weekday: 'short', month: 'short', day: 'numeric' };
    if (x.allDay) {
      day.timeZone = 'UTC';
      var f = formatter(locale, day);
      var s = f.format(new Date(x.startDate + 'T00:00:00Z'));
      if (x.endDate && x.endDate !== x.startDate) s += ' – ' + f.format(new Date(x.endDate + 'T00:00:00Z'));
      return [s, ''];
    }
    day.hour = 'numeric';
    day.minute = '2-digit';
    day.timeZoneName = 'long';
    var text = '', zone = '';
    formatter(locale, day).formatToParts(new Date(x.start)).forEach(function (p) {
      if (p.type === 'timeZoneName') zone = p.value;
      else text += p.value;
    });
    // The punctuation the locale puts between the time and the zone goes with the zone.
    return [text.replace(/^[\s,;]+|[\s,;]+$/g, ''), zone];
  }

  function upcoming(x, now) {
    if (x.allDay) return (x.endDate || x.startDate) >= today(x.timeZone);
    return new Date(x.end || x.start).getTime() >= now;
  }

  function item(it, locale, msg) {
    var x = it._calfeed;
    var li = el('li', 'calfeed-event');
    var w = when(x, locale);
    var line = el('p', 'calfeed-when');
    var t = el('time', '', w[0]);
    t.setAttribute('datetime', x.allDay ? x.startDate : x.start);
    line.appendChild(t);
    if (w[1]) line.appendChild(el('span', 'calfeed-zone', ' ' + w[1]));
    li.appendChild(line);
    var title = el('p', 'calfeed-title');
    if (x.status === 'cancelled') {
      li.className += ' calfeed-cancelled';
      title.appendChild(el('strong', 'calfeed-badge', msg('status.cancelled')));
    }
    var link = /^https?:\/\//i.test(it.url || '') ? el('a', '', x.title || it.title) : el('span', '', x.title || it.title);
    if (link.tagName === 'A') link.href = it.url;
    title.appendChild(link);
    li.appendChild(title);
    var where = x.location && (typeof x.location === 'string' ? x.location : x.location.text || x.location.name);
    if (where) li.appendChild(el('p', 'calfeed-where', String(where)));
    return li;
  }

  function render(box, feed, o) {
    var now = Date.now();
    var items = (feed.items || []).filter(function (it) {
      return it && it._calfeed && upcoming(it._calfeed, now);
    }).slice(0, o.limit);
    var list = el('ul', 'calfeed-list');
    // Safari drops the list role of a list without bullets; screen readers then do not count the items.
    list.setAttribute('role', 'list');
    items.forEach(function (it) { list.appendChild(item(it, o.locale, o.msg)); });
    var more = el('p', 'calfeed-more');
    var all = el('a', '', o.msg('widget.seeAll').replace('{title}', String(feed.title || '')));
    all.href = o.page;
    more.appendChild(all);
    show(box, o, items.length ? list : el('p', 'calfeed-empty', o.msg('calendar.noUpcoming')), more);
  }

  // Replaces what the box shows with its parts, styled, in its own shadow root.
  function show(box, o) {
    var root = box.shadowRoot || box.attachShadow({ mode: 'open' });
    var w = el('div', 'w');
    w.setAttribute('lang', o.lang);
    for (var i = 2; i < arguments.length; i++) w.appendChild(arguments[i]);
    root.textContent = '';
    try {
      if (!sheet) { sheet = new CSSStyleSheet(); sheet.replaceSync(CSS); }
      root.adoptedStyleSheets = [sheet];
    } catch (e) {
      // An engine without constructable style sheets.
      root.appendChild(el('style', '', CSS));
    }
    root.appendChild(w);
  }

  function load(box) {
    var category = box.getAttribute('data-calfeed-category');
    var id = category === null ? box.getAttribute('data-calfeed-calendar') : category;
    var limit = parseInt(box.getAttribute('data-calfeed-limit'), 10);
    var asked = box.getAttribute('data-calfeed-locale') || document.documentElement.lang || TEXT.lang;
    // Dates in the locale asked for when its language has a catalog, else all in the site's language.
    var lang = catalogFor(asked) || TEXT.lang;
    var o = {
      limit: limit > 0 ? Math.min(limit, 100) : 5,
      lang: lang,
      locale: catalogFor(asked) ? asked : lang,
      msg: function (key) { return (TEXT.messages[lang] || {})[key] || ''; },
      // The calendar's (or category's) page, beside its feed.
      page: new URL((category === null ? 'calendars/' : 'categories/') + id + '/', base).href,
    };
    function fail() {
      show(box, o, el('p', 'calfeed-error', o.msg('widget.error')));
    }
    // Slugs are single safe path segments (see the output layout); anything else is a typo or a trick.
    if (!/^[A-Za-z0-9_][A-Za-z0-9._-]*$/.test(id || '')) return fail();
    box.setAttribute('aria-busy', 'true');
    fetch(o.page + 'feed.json', { credentials: 'omit' })
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
      .then(function (feed) { render(box, feed, o); })
      .catch(fail)
      .then(function () { box.removeAttribute('aria-busy'); });
  }

  function init() {
    document.querySelectorAll(SELECTOR).forEach(function (box) {
      if (box.calfeedDone) return;
      box.calfeedDone = true;
      load(box);
    });
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
