// brain ui: live updates. Changes arrive as server-sent events carrying ids only (never a body):
// `message` (a new message), `memory` (a new STM entry or atom, with its source message) and
// `receipt` (a message read or acked). What the page shows is fetched again as server-rendered,
// escaped HTML: a thread page replaces or appends one message at a time; pages marked
// data-live="refresh" (start, agents, an inbox, a message's provenance) reload their [data-refresh]
// parts; other pages announce new messages in the live region with a link. No inline script
// anywhere.
(function () {
  'use strict';
  if (!('EventSource' in window)) return;
  var live = document.getElementById('live');
  var list = document.getElementById('messages');
  var mode = document.body.getAttribute('data-live');
  var thread = list ? list.getAttribute('data-thread') : null;
  var chat = document.getElementById('chat');

  function announce(m) {
    if (!live) return;
    var p = document.createElement('p');
    p.className = 'arrived';
    var a = document.createElement('a');
    a.href = '/threads/' + encodeURIComponent(m.thread_id);
    a.textContent = 'New message from ' + m.from;
    p.appendChild(a);
    live.insertBefore(p, live.firstChild);
    while (live.childNodes.length > 5) live.removeChild(live.lastChild);
  }

  function fragment(id) {
    return fetch('/fragments/message/' + encodeURIComponent(id), {
      credentials: 'same-origin',
    }).then(function (r) {
      return r.ok ? r.text() : '';
    });
  }

  function append(id) {
    if (document.getElementById(id)) return;
    fragment(id).then(function (text) {
      if (!text || document.getElementById(id)) return;
      list.insertAdjacentHTML('beforeend', text);
      var item = document.getElementById(id);
      if (item) item.classList.add('new');
    });
  }

  // A message already on the page got a receipt, an ack or a memory: draw it again.
  var pending = {};
  function redraw(id) {
    if (!document.getElementById(id) || pending[id]) return;
    pending[id] = true;
    fragment(id).then(function (text) {
      delete pending[id];
      var old = document.getElementById(id);
      if (!text || !old) return;
      old.insertAdjacentHTML('afterend', text);
      old.parentNode.removeChild(old);
      var item = document.getElementById(id);
      if (item) item.classList.add('changed');
    });
  }

  // Start and agents pages: fetch the page again (at most every half second) and swap the parts
  // marked data-refresh, found by id.
  var refreshTimer = null;
  function refresh() {
    if (refreshTimer !== null) return;
    refreshTimer = window.setTimeout(function () {
      fetch(window.location.href, { credentials: 'same-origin' })
        .then(function (r) {
          return r.ok ? r.text() : '';
        })
        .then(
          function (text) {
            refreshTimer = null;
            if (!text) return;
            var doc = new window.DOMParser().parseFromString(text, 'text/html');
            var parts = document.querySelectorAll('[data-refresh][id]');
            for (var i = 0; i < parts.length; i++) {
              var fresh = doc.getElementById(parts[i].id);
              if (fresh) parts[i].replaceWith(document.importNode(fresh, true));
            }
          },
          function () {
            refreshTimer = null;
          },
        );
    }, 500);
  }

  function parse(event) {
    try {
      return JSON.parse(event.data);
    } catch {
      return null; // not ours: ignore it
    }
  }

  var source = new EventSource('/events');
  source.addEventListener('message', function (event) {
    var m = parse(event);
    if (!m) return;
    // The chat page draws its own session's messages (chat.js).
    document.dispatchEvent(new window.CustomEvent('brain:message', { detail: m }));
    if (chat && chat.getAttribute('data-thread') === m.thread_id) return;
    if (mode === 'refresh') refresh();
    if (list && thread === m.thread_id) {
      if (list.getAttribute('data-append') === 'yes') append(m.id);
      else announce(m);
    } else {
      announce(m);
    }
  });
  source.addEventListener('receipt', function (event) {
    var r = parse(event);
    if (!r) return;
    if (mode === 'refresh') refresh();
    if (list && thread === r.thread_id) redraw(r.message_id);
  });
  source.addEventListener('memory', function (event) {
    var m = parse(event);
    if (!m) return;
    if (mode === 'refresh') refresh();
    if (list && m.thread_id && thread === m.thread_id) redraw(m.source_message_id);
  });
  window.addEventListener('pagehide', function () {
    source.close();
  });
})();
