// brain ui: live updates. New messages arrive as server-sent events (id, thread, sender — never
// a body); a thread page showing its latest messages fetches each new one as server-rendered,
// escaped HTML; other pages announce it in the live region with a link. No inline script anywhere.
(function () {
  'use strict';
  if (!('EventSource' in window)) return;
  var live = document.getElementById('live');
  var list = document.getElementById('messages');

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

  function append(m) {
    if (document.getElementById(m.id)) return;
    fetch('/fragments/message/' + encodeURIComponent(m.id), { credentials: 'same-origin' })
      .then(function (r) {
        return r.ok ? r.text() : '';
      })
      .then(function (text) {
        if (!text || document.getElementById(m.id)) return;
        list.insertAdjacentHTML('beforeend', text);
        var item = document.getElementById(m.id);
        if (item) item.classList.add('new');
      });
  }

  var source = new EventSource('/events');
  source.addEventListener('message', function (event) {
    var m;
    try {
      m = JSON.parse(event.data);
    } catch {
      return; // not ours: ignore it
    }
    if (list && list.getAttribute('data-thread') === m.thread_id) {
      if (list.getAttribute('data-append') === 'yes') append(m);
      else announce(m);
    } else {
      announce(m);
    }
  });
  window.addEventListener('pagehide', function () {
    source.close();
  });
})();
