// Presend dashboard: the little script the pages need, and nothing the pages cannot do without
// (every form works without it). Served as a file, so the Content-Security-Policy allows no
// inline script at all. Plain browser JavaScript: no build step.
(function () {
  'use strict';

  function say(region, text) {
    if (region) region.textContent = text;
  }

  // Copy a new key to the clipboard (keys page).
  document.querySelectorAll('button[data-copy-target]').forEach(function (button) {
    button.hidden = false;
    button.addEventListener('click', function () {
      var field = document.getElementById(button.getAttribute('data-copy-target'));
      var status = document.getElementById(button.getAttribute('data-copy-status'));
      if (!field) return;
      var done = function () { say(status, 'Copied to the clipboard.'); };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(field.value).then(done, function () {
          field.select();
          say(status, 'Select the key and copy it.');
        });
      } else {
        field.select();
        say(status, 'Select the key and copy it.');
      }
    });
  });

  // Upload with progress (lists and batches pages): the same multipart form, sent by
  // XMLHttpRequest, which reports upload progress (fetch does not).
  document.querySelectorAll('form[data-upload]').forEach(function (form) {
    var progress = form.querySelector('progress');
    var status = form.querySelector('[data-upload-status]');
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var xhr = new XMLHttpRequest();
      xhr.open('POST', form.action);
      xhr.setRequestHeader('x-csrf-token', form.getAttribute('data-csrf') || '');
      xhr.upload.addEventListener('progress', function (e) {
        if (!e.lengthComputable) return;
        progress.hidden = false;
        progress.max = e.total;
        progress.value = e.loaded;
        say(status, 'Uploading: ' + Math.floor((100 * e.loaded) / e.total) + ' %');
      });
      xhr.upload.addEventListener('load', function () {
        say(status, 'Uploaded; reading the file…');
      });
      xhr.addEventListener('load', function () {
        if (xhr.status >= 200 && xhr.status < 300) {
          window.location.assign(xhr.responseURL);
          return;
        }
        var message = 'The upload failed (HTTP ' + xhr.status + ').';
        try {
          var doc = new DOMParser().parseFromString(xhr.responseText, 'text/html');
          var detail = doc.querySelector('.error-message');
          if (detail) message = detail.textContent.trim();
        } catch { /* keep the generic message */ }
        say(status, message);
      });
      xhr.addEventListener('error', function () {
        say(status, 'The upload failed: the connection was lost.');
      });
      progress.hidden = false;
      progress.value = 0;
      say(status, 'Uploading: 0 %');
      xhr.send(new FormData(form));
    });
  });

  // Live progress of a batch (batch page), from server-sent events.
  var live = document.querySelector('[data-batch-events]');
  if (live && window.EventSource) {
    var bar = live.querySelector('progress');
    var text = live.querySelector('[data-progress-text]');
    var source = new EventSource(live.getAttribute('data-batch-events'));
    source.addEventListener('progress', function (event) {
      var data = JSON.parse(event.data);
      var c = data.counters;
      // The words come with the figures (src/dashboard/batch-progress.ts): one wording, not two.
      bar.max = data.progress.max;
      bar.value = data.progress.value;
      say(text, data.progress.text);
      var note = document.querySelector('[data-fill-note]');
      if (note) note.hidden = !data.progress.filling;
      Object.keys(c).forEach(function (name) {
        var cell = document.querySelector('[data-counter="' + name + '"]');
        if (cell) cell.textContent = String(c[name]);
      });
      var state = document.querySelector('[data-batch-state]');
      if (state) state.textContent = data.state;
      if (data.state === 'completed' || data.state === 'failed') {
        source.close();
        // The page as it stands now: verdict chart and downloads.
        window.location.reload();
      }
    });
  }

  // A list still importing: look again until its state changes.
  var importing = document.querySelector('[data-list-state]');
  if (importing) {
    var url = importing.getAttribute('data-list-state');
    var was = importing.getAttribute('data-state');
    var timer = window.setInterval(function () {
      fetch(url, { headers: { accept: 'application/json' } })
        .then(function (r) { return r.json(); })
        .then(function (body) {
          if (body.state !== was || body.columnChoice !== (importing.getAttribute('data-choice') === 'true')) {
            window.clearInterval(timer);
            window.location.reload();
          }
        })
        .catch(function () { /* try again next time */ });
    }, 1000);
  }
})();
