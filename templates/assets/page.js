// calfeed page enhancements, loaded with defer; the pages work without it.
// 1. Event pages: show the event's time in the visitor's own time zone.
// 2. Subscribe boxes: a button that copies the calendar address.
(function () {
  'use strict';
  var lang = document.documentElement.lang || undefined;

  function localTimes() {
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    document.querySelectorAll('[data-calfeed-local]').forEach(function (box) {
      var start = new Date(box.getAttribute('data-start') || '');
      var end = new Date(box.getAttribute('data-end') || '');
      if (isNaN(start.getTime())) return;
      var f;
      try { f = new Intl.DateTimeFormat(lang, { dateStyle: 'full', timeStyle: 'short' }); }
      catch (e) { f = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'short' }); }
      var text = !isNaN(end.getTime()) && end > start ? f.formatRange(start, end) : f.format(start);
      box.querySelector('[data-calfeed-local-zone]').textContent = zone;
      box.querySelector('[data-calfeed-local-time]').textContent = text;
      box.hidden = false;
    });
  }

  function copyButtons() {
    document.querySelectorAll('button[data-calfeed-copy]').forEach(function (button) {
      var input = document.getElementById(button.getAttribute('data-calfeed-copy'));
      if (!input) return;
      var label = button.textContent;
      button.hidden = false;
      button.addEventListener('click', function () {
        var done = function () {
          button.textContent = 'Copied';
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

  localTimes();
  copyButtons();
})();
