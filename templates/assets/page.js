// calfeed page enhancements, loaded with defer; the pages work without it. Every word it shows
// comes from the page (its text is in the page's language, from the message catalog).
// 1. Event pages: show the event's time in the visitor's own time zone, named in the page's language.
// 2. Subscribe boxes: a button that copies the calendar address.
// 3. The widget page in a frame: tells the embedding page its height (docs/pages.md's snippet applies it).
// 4. Event pages: say that the event has ended, once it has (the page may be older than that).
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
  frameHeight();
  ended();
})();
