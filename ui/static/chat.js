// brain ui: the chat page. The owner's messages and approval answers go to the server as forms
// (with the page's CSRF token); what a turn does comes back as server-sent events from
// /chat/stream: its text as it streams, its tool calls, its approval questions and its end. Every
// text is put in the page as text (textContent), never as markup. The conversation as stored is
// fetched again as the server renders it when a turn ends or another channel adds to the session.
(function () {
  'use strict';
  var root = document.getElementById('chat');
  if (!root || !('EventSource' in window) || !window.fetch) return;
  var session = root.getAttribute('data-session');
  var form = document.getElementById('chat-form');
  var input = document.getElementById('chat-text');
  var send = form.querySelector('button[type="submit"]');
  var status = document.getElementById('chat-status');
  var turnBox = document.getElementById('chat-turn');
  var approvals = document.getElementById('chat-approvals');
  var commandBox = document.getElementById('chat-command');
  var csrf = form.querySelector('input[name="csrf"]').value;
  var connected = false;
  var running = false;
  var reply = null;

  function say(text) {
    status.textContent = text;
  }

  function setRunning(value) {
    running = value;
    send.disabled = !connected;
    root.setAttribute('data-running', value ? 'yes' : 'no');
  }

  function bubble(className, who, text, box) {
    var item = document.createElement('div');
    item.className = 'chat-msg ' + className;
    var label = document.createElement('p');
    label.className = 'who';
    label.textContent = who;
    var body = document.createElement('div');
    body.className = 'body';
    body.textContent = text;
    item.appendChild(label);
    item.appendChild(body);
    (box || turnBox).appendChild(item);
    return body;
  }

  function note(text) {
    var p = document.createElement('p');
    p.className = 'muted chat-note';
    p.textContent = text;
    if (reply) turnBox.insertBefore(p, reply.parentNode);
    else turnBox.appendChild(p);
  }

  function startTurn(text, streamed) {
    turnBox.textContent = '';
    commandBox.textContent = '';
    if (text !== null) bubble('mine', 'You', text);
    reply = bubble('reply streaming', 'Assistant', streamed || '');
    setRunning(true);
  }

  function post(path, fields) {
    var body = new window.URLSearchParams();
    body.set('csrf', csrf);
    body.set('session', session);
    for (var k in fields) body.set(k, fields[k]);
    return fetch(path, {
      method: 'POST',
      credentials: 'same-origin',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Accept: 'application/json',
      },
      body: body.toString(),
    }).then(function (r) {
      return r.json().then(
        function (data) {
          return { ok: r.ok, data: data };
        },
        function () {
          // Not ours to explain (a page from before a restart, a login that ended): reload.
          return { ok: false, data: { error: 'Refused (' + r.status + '): reload the page.' } };
        },
      );
    });
  }

  function button(answer, label, className) {
    var b = document.createElement('button');
    b.type = 'submit';
    b.name = 'answer';
    b.value = answer;
    b.className = className;
    b.textContent = label;
    return b;
  }

  function showApproval(a) {
    if (approvals.querySelector('[data-approval="' + a.id + '"]')) return;
    var f = document.createElement('form');
    f.method = 'post';
    f.action = '/chat/approvals/' + encodeURIComponent(a.id);
    f.className = 'chat-approval';
    f.setAttribute('data-approval', a.id);
    var q = document.createElement('p');
    var strong = document.createElement('strong');
    strong.textContent = 'Allow this call?';
    q.appendChild(strong);
    var pre = document.createElement('pre');
    pre.className = 'body';
    pre.textContent = a.text;
    f.appendChild(q);
    f.appendChild(pre);
    f.appendChild(button('approve', 'Approve', 'approved'));
    if (a.always) f.appendChild(button('always', 'Always', 'approved'));
    f.appendChild(button('deny', 'Deny', 'denied'));
    approvals.appendChild(f);
  }

  function dropApproval(id) {
    var f = approvals.querySelector('[data-approval="' + id + '"]');
    if (f) f.parentNode.removeChild(f);
  }

  // The conversation as stored, drawn again by the server; then `after` (the end of a turn).
  var refreshing = null;
  function refreshHistory(after) {
    var mine = fetch('/chat?session=' + encodeURIComponent(session), {
      credentials: 'same-origin',
    })
      .then(function (r) {
        return r.ok ? r.text() : '';
      })
      .then(function (text) {
        if (refreshing !== mine) return;
        refreshing = null;
        if (text) {
          var doc = new window.DOMParser().parseFromString(text, 'text/html');
          var fresh = doc.getElementById('chat-history');
          var old = document.getElementById('chat-history');
          if (fresh && old) old.replaceWith(document.importNode(fresh, true));
          var freshRoot = doc.getElementById('chat');
          if (freshRoot) root.setAttribute('data-thread', freshRoot.getAttribute('data-thread'));
        }
        if (after) after(Boolean(text));
      });
    refreshing = mine;
  }

  function endTurn(finalText, notice) {
    if (reply) reply.textContent = finalText;
    approvals.textContent = '';
    setRunning(false);
    refreshHistory(function (drawn) {
      // Not drawn again (the server did not answer): the streamed turn stays as it is.
      if (running || !drawn) return;
      turnBox.textContent = '';
      reply = null;
      if (notice) note(notice);
    });
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var text = input.value.trim();
    if (text === '') return;
    say('');
    send.disabled = true;
    post('/chat', { text: text }).then(
      function (r) {
        send.disabled = !connected;
        if (!r.ok) return say(r.data.error || 'Refused.');
        input.value = '';
        if (r.data.kind === 'command') {
          // Its own place, which the end of a running turn leaves alone (/status, /stop).
          commandBox.textContent = '';
          bubble('command', '/' + r.data.command, r.data.reply, commandBox);
          if (!running) refreshHistory(null);
        }
      },
      function () {
        send.disabled = !connected;
        say('Not sent: the server did not answer.');
      },
    );
  });

  input.addEventListener('keydown', function (event) {
    // Enter sends, Shift+Enter starts a new line.
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  approvals.addEventListener('submit', function (event) {
    event.preventDefault();
    var f = event.target;
    var answer = event.submitter ? event.submitter.value : 'deny';
    var buttons = f.querySelectorAll('button');
    for (var i = 0; i < buttons.length; i++) buttons[i].disabled = true;
    post(f.getAttribute('action'), { answer: answer }).then(function (r) {
      if (!r.ok || !r.data.settled) {
        dropApproval(f.getAttribute('data-approval'));
        say(r.data.error || 'That question is no longer open.');
      }
    });
  });

  function parse(event) {
    try {
      return JSON.parse(event.data);
    } catch {
      return null;
    }
  }

  var source = new EventSource('/chat/stream?session=' + encodeURIComponent(session));
  function on(name, handle) {
    source.addEventListener(name, function (event) {
      var data = parse(event);
      if (data) handle(data);
    });
  }
  on('state', function (s) {
    connected = true;
    approvals.textContent = '';
    if (s.running) {
      startTurn(null, s.text);
      for (var i = 0; i < s.approvals.length; i++) showApproval(s.approvals[i]);
    } else {
      turnBox.textContent = '';
      reply = null;
      setRunning(false);
    }
    root.setAttribute('data-connected', 'yes');
  });
  on('turn', function (t) {
    startTurn(t.text, '');
  });
  on('text', function (t) {
    if (!reply) startTurn(null, '');
    reply.textContent += t.delta;
  });
  on('restart', function () {
    if (reply) reply.textContent = '';
  });
  on('tool', function (t) {
    note('[' + t.name + ']');
  });
  on('approval', showApproval);
  on('settled', function (s) {
    dropApproval(s.id);
  });
  on('done', function (d) {
    endTurn(d.reply, null);
  });
  on('stopped', function (d) {
    endTurn(reply ? reply.textContent : '', d.text);
  });
  on('failed', function (d) {
    endTurn(reply ? reply.textContent : '', d.text);
  });
  source.addEventListener('error', function () {
    connected = false;
    send.disabled = true;
    root.setAttribute('data-connected', 'no');
  });

  // Another channel (Telegram, the terminal) said something in this session: draw it.
  document.addEventListener('brain:message', function (event) {
    var m = event.detail;
    if (!running && m && m.thread_id === root.getAttribute('data-thread')) refreshHistory(null);
  });

  window.addEventListener('pagehide', function () {
    source.close();
  });
  send.disabled = true;
})();
