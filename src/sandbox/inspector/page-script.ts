/**
 * The inspector page's script. It is a client of the control API only: it reads GET
 * /_sandbox/overview, listens to GET /_sandbox/events and acts through the /_sandbox/* routes.
 * Everything it shows is attacker-controlled text, so the DOM is built with textContent and
 * setAttribute on fixed attribute names; no innerHTML anywhere.
 * (Plain ES2019 in a String.raw: no template literals inside.)
 */
export const INSPECTOR_SCRIPT = String.raw`
'use strict';
(function () {
  var MAX_REQUESTS = 500;
  var state = { requests: new Map(), deliveries: new Map(), transactions: new Map(), forceRules: [], counters: {}, now: '' };
  var selectedId = null;
  var renderQueued = false;

  function $(id) { return document.getElementById(id); }
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (name) {
      var value = attrs[name];
      if (value === null || value === undefined || value === false) return;
      if (name === 'text') node.textContent = String(value);
      else if (name === 'className') node.className = value;
      else node.setAttribute(name, String(value));
    });
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) return;
      node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    });
    return node;
  }
  function badge(text, tone) { return el('span', { className: 'badge ' + (tone || ''), text: text }); }
  function statusTone(status) {
    if (status === null || status === undefined) return '';
    if (status === 0 || status >= 500 || status === 429) return 's-bad';
    if (status >= 400) return 's-warn';
    return 's-ok';
  }
  function time(iso) { return typeof iso === 'string' && iso.length >= 23 ? iso.slice(11, 23) : String(iso || ''); }
  function pretty(value) {
    if (value === null || value === undefined) return '(none)';
    return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  }
  function say(text) { $('status').textContent = text; }

  function api(method, path, body) {
    var init = { method: method, headers: {} };
    if (body !== undefined) { init.headers['content-type'] = 'application/json'; init.body = JSON.stringify(body); }
    return fetch(path, init).then(function (res) {
      return res.text().then(function (text) {
        var data = null;
        try { data = text ? JSON.parse(text) : null; } catch (e) { data = text; }
        if (!res.ok) {
          var detail = data && data.issues ? data.issues.join('; ') : (data && data.error ? data.error : text);
          throw new Error(method + ' ' + path + ' answered ' + res.status + ': ' + detail);
        }
        return data;
      });
    });
  }

  // ---- state ------------------------------------------------------------------------------
  function putAll(map, items, key) { (items || []).forEach(function (item) { map.set(String(item[key]), item); }); }
  function applyLive(data) {
    if (data.counters) state.counters = data.counters;
    if (data.forceRules) state.forceRules = data.forceRules;
    if (data.now) state.now = data.now;
  }
  function trimRequests() {
    while (state.requests.size > MAX_REQUESTS) state.requests.delete(state.requests.keys().next().value);
  }
  function loadOverview(clear) {
    return api('GET', '/_sandbox/overview').then(function (data) {
      if (clear) { state.requests.clear(); state.deliveries.clear(); state.transactions.clear(); }
      putAll(state.requests, (data.requests || []).slice().reverse(), 'id');
      putAll(state.deliveries, (data.deliveries || []).slice().reverse(), 'deliveryId');
      putAll(state.transactions, (data.transactions || []).slice().reverse(), 'transactionId');
      applyLive(data);
      trimRequests();
      queueRender();
    }).catch(function (error) { say(error.message); });
  }
  function onBatch(data) {
    if (data.resync) { loadOverview(true); return; }
    putAll(state.requests, data.requests, 'id');
    putAll(state.deliveries, data.deliveries, 'deliveryId');
    putAll(state.transactions, data.transactions, 'transactionId');
    applyLive(data);
    trimRequests();
    queueRender();
  }

  // ---- rendering --------------------------------------------------------------------------
  function queueRender() {
    if (renderQueued) return;
    renderQueued = true;
    requestAnimationFrame(function () { renderQueued = false; render(); });
  }
  function keepFocus(container, draw) {
    var active = document.activeElement;
    var key = active && container.contains(active) ? active.getAttribute('data-focus-key') : null;
    draw();
    if (key) {
      var again = container.querySelector('[data-focus-key="' + CSS.escape(key) + '"]');
      if (again) again.focus();
    }
  }
  function render() {
    $('clock').textContent = state.now ? state.now.replace('T', ' ').replace('Z', ' UTC') : '';
    renderCounters();
    renderRequests();
    renderDeliveries();
    renderTransactions();
    renderRules();
  }
  function renderCounters() {
    var c = state.counters;
    var items = [['requests', 'Requests', c.requests], ['rateLimited', '429s', c.rateLimited], ['serverErrors', '5xx', c.serverErrors],
      ['deliveriesFailed', 'Deliveries failed', c.deliveriesFailed], ['suspendedRegistrations', 'Suspended registrations', c.suspendedRegistrations]];
    var list = $('counters');
    list.replaceChildren.apply(list, items.map(function (item) {
      return el('li', { 'data-counter': item[0] }, [item[1] + ': ', el('strong', { text: item[2] === undefined ? 0 : item[2] })]);
    }));
  }
  function matches(r) {
    var route = $('filter-route').value.trim();
    var cls = $('filter-class').value;
    if (route && r.path.indexOf(route) === -1 && (r.method + ' ' + r.path).indexOf(route) === -1) return false;
    if ($('filter-failures').checked && !(r.status === 0 || (r.status !== null && r.status >= 400))) return false;
    if (cls === '429') return r.status === 429;
    if (cls) return r.status !== null && String(Math.floor(r.status / 100)) === cls[0];
    return true;
  }
  function requestMarks(r) {
    var marks = [];
    if (r.forced) marks.push(badge(r.forced.reset ? 'forced reset' : 'forced' + (r.forced.status ? ' ' + r.forced.status : '') + (r.forced.delayMs ? ' +' + r.forced.delayMs + ' ms' : ''), 's-bad'));
    if (r.status === 429) marks.push(badge('throttled', 's-bad'));
    if (r.status === 0) marks.push(badge('socket reset', 's-bad'));
    if (r.idempotency) {
      var key = r.idempotency.key;
      marks.push(el('span', { className: 'badge', title: 'Idempotency-Key ' + key }, ['key ', el('code', { text: key.length > 14 ? key.slice(0, 12) + '…' : key })]));
      if (r.idempotency.replayed) marks.push(badge('replayed', 's-warn'));
    }
    return marks;
  }
  function limitText(r) {
    var l = r.rateLimit;
    if (!l) return '';
    if (l.limit === null) return l.retryAfterSeconds !== null ? 'retry after ' + l.retryAfterSeconds + ' s' : '';
    return (l.window || '?') + ' ' + l.remaining + '/' + l.limit + ' · ' + l.resetSeconds + ' s';
  }
  function renderRequests() {
    var rows = [];
    var all = Array.from(state.requests.values()).reverse();
    all.forEach(function (r) {
      if (!matches(r)) return;
      var key = 'req-' + r.id;
      rows.push(el('tr', { 'data-request-id': r.id, 'data-status': r.status === null ? 'pending' : r.status, className: selectedId === r.id ? 'selected' : '' }, [
        el('td', { className: 'num', text: time(r.receivedAt) }),
        el('td', { text: r.method }),
        el('td', null, [el('button', { type: 'button', className: 'link', 'data-focus-key': key, 'aria-label': 'Details of ' + r.method + ' ' + r.path, text: r.path, 'data-open': r.id })]),
        el('td', { className: 'num ' + statusTone(r.status), text: r.status === null ? '…' : r.status }),
        el('td', { className: 'num', text: r.latencyMs === null ? '' : r.latencyMs + ' ms' }),
        el('td', null, requestMarks(r)),
        el('td', { text: limitText(r), title: r.rateLimit && r.rateLimit.limit !== null ? 'window, requests left / limit, seconds until it resets' : null }),
      ]));
    });
    var body = $('requests-body');
    keepFocus(body, function () { body.replaceChildren.apply(body, rows); });
    $('requests-shown').textContent = rows.length + ' shown of ' + state.requests.size + ' kept on this page';
  }
  function headerTable(title, headers) {
    var names = Object.keys(headers || {});
    return el('table', null, [el('caption', { text: title }), el('tbody', null, names.map(function (name) {
      return el('tr', null, [el('th', { scope: 'row', text: name }), el('td', null, [el('code', { text: headers[name] })])]);
    }))]);
  }
  function showRequest(id) {
    selectedId = id;
    queueRender();
    api('GET', '/_sandbox/requests/' + encodeURIComponent(id)).then(function (entry) {
      var panel = $('detail');
      var meta = [entry.method + ' ' + entry.path, 'status ' + (entry.status === null ? 'pending' : entry.status),
        entry.latencyMs === null ? '' : entry.latencyMs + ' ms', 'received ' + entry.receivedAt].filter(Boolean).join(' · ');
      var query = Object.keys(entry.query || {}).length ? pretty(entry.query) : null;
      panel.replaceChildren.apply(panel, [
        el('h2', { id: 'detail-title', tabindex: '-1', text: 'Request #' + entry.id }),
        el('p', { text: meta }),
        el('p', null, requestMarks(entry).concat(entry.idempotency ? [entry.idempotency.replayed ? ' The answer is a replay of the first one with this Idempotency-Key.' : ' First request with this Idempotency-Key.'] : [])),
        query ? el('h3', { text: 'Query' }) : null, query ? el('pre', { text: query }) : null,
        el('h3', { text: 'Request headers' }), headerTable('Request headers (credentials masked)', entry.headers),
        el('h3', { text: 'Request body' }), el('pre', { 'data-part': 'request-body', text: pretty(entry.body) }),
        el('h3', { text: 'Answer headers' }), entry.response ? headerTable('Answer headers', entry.response.headers) : el('p', { className: 'muted', text: 'No answer yet (or the socket was reset).' }),
        el('h3', { text: 'Answer body' }), el('pre', { 'data-part': 'answer-body', text: entry.response ? pretty(entry.response.body) : '(none)' })
      ].filter(Boolean));
      $('detail-title').focus();
    }).catch(function (error) { say(error.message); });
  }
  function renderDeliveries() {
    var rows = Array.from(state.deliveries.values()).reverse().map(function (d) {
      var reg = d.registration;
      var attempts = el('ol', { className: 'attempts' }, d.attempts.map(function (a) {
        return el('li', { 'data-attempt': a.attempt }, [
          el('span', { className: statusTone(a.responseCode || 0), text: (a.responseCode || 'no answer') + '' }),
          ' in ' + a.latencyMs + ' ms at ' + time(a.at) + ' · ',
          el('code', { title: 'X-Service-Signature', text: a.signature }),
          a.nextRetryAt ? ' · retry at ' + time(a.nextRetryAt) : '',
        ]);
      }));
      return el('tr', { 'data-delivery-id': d.deliveryId, 'data-status': d.status }, [
        el('td', null, [el('code', { text: d.deliveryId }), d.redeliveryOf ? el('div', { className: 'muted', text: 'redelivery of ' + d.redeliveryOf }) : null, d.test ? badge('test') : null]),
        el('td', { text: d.eventType }),
        el('td', null, [el('code', { text: d.url })]),
        el('td', { className: d.status === 'FAILED' ? 's-bad' : d.status === 'DELIVERED' ? 's-ok' : 's-warn', text: d.status }),
        el('td', null, [d.attempts.length ? attempts : el('span', { className: 'muted', text: 'none yet' })]),
        el('td', { className: 'num', text: d.nextRetryAt ? time(d.nextRetryAt) : '' }),
        el('td', null, reg ? [el('code', { text: reg.id }), ' ', badge(reg.status, reg.status === 'suspended' ? 's-bad' : ''), reg.consecutiveFailures ? ' ' + reg.consecutiveFailures + ' failed in a row' : ''] : ['deleted']),
        el('td', null, [el('button', { type: 'button', 'data-redeliver': d.deliveryId, 'data-focus-key': 'redeliver-' + d.deliveryId, disabled: d.status === 'PENDING', 'aria-label': 'Redeliver ' + d.deliveryId, text: 'Redeliver' })]),
      ]);
    });
    var body = $('deliveries-body');
    keepFocus(body, function () { body.replaceChildren.apply(body, rows); });
  }
  function renderTransactions() {
    var rows = Array.from(state.transactions.values()).reverse().map(function (t) {
      var outcome = t.status === 'COMPLETED' ? pretty(t.result) : t.status === 'FAILED' ? t.errorCode + ': ' + t.error : '';
      return el('tr', { 'data-transaction-id': t.transactionId, 'data-status': t.status }, [
        el('td', null, [el('code', { text: t.transactionId })]),
        el('td', { text: t.kind }),
        el('td', null, [el('ol', { className: 'timeline', 'aria-label': 'State timeline' }, t.timeline.map(function (step) {
          return el('li', { className: step.status === 'FAILED' ? 's-bad' : step.status === 'COMPLETED' ? 's-ok' : '' }, [el('strong', { text: step.status }), ' ' + time(step.at)]);
        }))]),
        el('td', null, outcome ? [el('pre', { text: outcome })] : []),
      ]);
    });
    var body = $('transactions-body');
    body.replaceChildren.apply(body, rows);
  }
  function renderRules() {
    var list = $('rules');
    var rules = state.forceRules || [];
    list.replaceChildren.apply(list, rules.length ? rules.map(function (r) {
      var what = r.reset ? 'reset the socket' : (r.status ? 'answer ' + r.status : 'pass through') + (r.code ? ' ' + r.code : '');
      return el('li', { text: r.method + ' ' + r.path + ': ' + what + (r.delayMs ? ' after ' + r.delayMs + ' ms' : '') + ', ' + r.remaining + ' left' });
    }) : [el('li', { className: 'muted', text: 'No forced answers pending.' })]);
  }

  // ---- controls ---------------------------------------------------------------------------
  function numberOf(id) { var v = $(id).value.trim(); return v === '' ? undefined : Number(v); }
  $('force-form').addEventListener('submit', function (event) {
    event.preventDefault();
    var rule = { method: $('force-method').value, path: $('force-path').value.trim(), times: numberOf('force-times') || 1 };
    var status = numberOf('force-status'); if (status !== undefined) rule.status = status;
    var code = $('force-code').value.trim(); if (code) rule.code = code;
    var delay = numberOf('force-delay'); if (delay !== undefined) rule.delayMs = delay;
    if ($('force-reset').checked) rule.reset = true;
    api('POST', '/_sandbox/force', rule).then(function (saved) {
      say('Forced ' + saved.method + ' ' + saved.path + ' for the next ' + saved.times + ' answer(s).');
      return api('GET', '/_sandbox/force');
    }).then(function (data) { state.forceRules = data.rules; queueRender(); }).catch(function (error) { say(error.message); });
  });
  $('force-clear').addEventListener('click', function () {
    api('DELETE', '/_sandbox/force').then(function () { state.forceRules = []; queueRender(); say('Forced answers cleared.'); }).catch(function (error) { say(error.message); });
  });
  $('time-form').addEventListener('submit', function (event) {
    event.preventDefault();
    var ms = numberOf('advance-ms');
    api('POST', '/_sandbox/time', { advanceMs: ms === undefined ? 0 : ms }).then(function (t) {
      state.now = t.now; queueRender(); say('Clock advanced to ' + t.now + '.');
    }).catch(function (error) { say(error.message); });
  });
  $('reset').addEventListener('click', function () {
    api('POST', '/_sandbox/reset').then(function () { say('Sandbox reset to its seed.'); return loadOverview(true); }).catch(function (error) { say(error.message); });
  });
  $('requests-body').addEventListener('click', function (event) {
    var target = event.target.closest('[data-open]');
    if (target) showRequest(Number(target.getAttribute('data-open')));
  });
  $('deliveries-body').addEventListener('click', function (event) {
    var target = event.target.closest('[data-redeliver]');
    if (!target) return;
    var id = target.getAttribute('data-redeliver');
    api('POST', '/_sandbox/deliveries/' + encodeURIComponent(id) + '/redeliver').then(function (d) {
      state.deliveries.set(d.deliveryId, d); queueRender(); say('Redelivery ' + d.deliveryId + ' started.');
    }).catch(function (error) { say(error.message); });
  });
  ['filter-route', 'filter-class', 'filter-failures'].forEach(function (id) {
    $(id).addEventListener('input', queueRender);
    $(id).addEventListener('change', queueRender);
  });

  // ---- live feed --------------------------------------------------------------------------
  var source = new EventSource('/_sandbox/events');
  source.addEventListener('open', function () { $('live').textContent = 'live'; loadOverview(true); });
  source.addEventListener('error', function () {
    // CLOSED: the sandbox refused the feed (too many pages open) or is gone; the browser stops retrying.
    $('live').textContent = source.readyState === EventSource.CLOSED ? 'disconnected (reload to retry)' : 'reconnecting…';
  });
  source.addEventListener('batch', function (event) {
    try { onBatch(JSON.parse(event.data)); } catch (error) { say('Bad update from the sandbox: ' + error.message); }
  });
})();
`;
