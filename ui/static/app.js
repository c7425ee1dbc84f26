// mcplogd web page. Every piece of text from the log goes into the page as
// text (textContent, text nodes), never as HTML: the log is untrusted.
'use strict';

(() => {
  const LEVELS = ['debug', 'info', 'warn', 'error', 'fatal'];
  const VIEWS = ['console', 'search', 'record', 'crashes', 'ops'];
  const MAX_LINES = 5000; // console lines kept in the DOM
  const LIST = { console: ['#console', '.line'], search: ['#search-results', '.hit'], crashes: ['#crashes', '.group'], ops: ['#ops', '.op'] };

  const $ = (sel) => document.querySelector(sel);

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function link(cls, href, text) {
    const a = el('a', cls, text);
    a.href = href;
    return a;
  }

  function levelName(l) { return LEVELS.includes(l) ? l : 'info'; }

  function pad(n, w) { return String(n).padStart(w || 2, '0'); }

  function fmtTime(iso) {
    const d = new Date(iso);
    if (isNaN(d)) return '';
    return pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds()) + '.' + pad(d.getMilliseconds(), 3);
  }

  // fmtDate is a time's local day, 2026-01-02; '' for no time.
  function fmtDate(iso) {
    const d = new Date(iso);
    if (isNaN(d)) return '';
    return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate());
  }

  function fmtDateTime(iso) {
    const day = fmtDate(iso);
    return day && day + ' ' + fmtTime(iso);
  }

  const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

  function fmtDuration(ms) {
    if (ms === undefined || ms === null) return '';
    if (ms < 1000) return ms + ' ms';
    if (ms < 60000) return (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + ' s';
    return Math.floor(ms / 60000) + ' min ' + Math.round((ms % 60000) / 1000) + ' s';
  }

  // ---- API ----

  function showBanner(msg) {
    const b = $('#banner');
    b.textContent = msg;
    b.hidden = !msg;
  }

  async function api(path, params) {
    const u = new URL(path, location.origin);
    for (const [k, v] of Object.entries(params || {})) {
      if (v !== undefined && v !== null && v !== '') u.searchParams.set(k, String(v));
    }
    const r = await fetch(u, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    let body = null;
    try { body = await r.json(); } catch (e) { body = null; }
    if (r.status === 401 || r.status === 403) {
      showBanner('Not signed in: open the web link that "mcplogd serve" prints (the token may have been rotated).');
    }
    if (!r.ok) throw new Error((body && body.message) || ('HTTP ' + r.status));
    return body;
  }

  // ---- JSON tree ----

  function jsonLeaf(key, v) {
    const d = el('div', 'leaf');
    if (key !== null) d.append(el('span', 'key', key), document.createTextNode(': '));
    let cls = 'null';
    let text = 'null';
    if (typeof v === 'string') { cls = 'str'; text = JSON.stringify(v); }
    else if (typeof v === 'number') { cls = 'num'; text = String(v); }
    else if (typeof v === 'boolean') { cls = 'bool'; text = String(v); }
    d.append(el('span', cls, text));
    return d;
  }

  function jsonTree(v, key, depth) {
    if (v === null || typeof v !== 'object') return jsonLeaf(key, v);
    const isArr = Array.isArray(v);
    const entries = isArr ? v.map((x, i) => [String(i), x]) : Object.entries(v);
    const d = el('details');
    d.open = depth < 2;
    const s = el('summary');
    if (key !== null) s.append(el('span', 'key', key), document.createTextNode(': '));
    s.append(document.createTextNode(isArr ? '[' + entries.length + ']' : '{' + entries.length + '}'));
    d.append(s);
    for (const [k, x] of entries) d.append(jsonTree(x, k, depth + 1));
    return d;
  }

  function treeBox(cls, v, emptyText) {
    const box = el('div', cls + ' tree');
    if (v === undefined || v === null) box.append(el('span', 'muted', emptyText));
    else box.append(jsonTree(v, null, 0));
    return box;
  }

  // ---- Stack traces ----

  const PY_LOC = /File "([^"]+)", line \d+/;
  const NET_LOC = /(?:[A-Za-z]:[\\/])?[^\s()[\]:"'<>]+\.[A-Za-z0-9]+:line \d+/; // .NET: "in C:\src\Game.cs:line 12"
  const LOC = /(?:[A-Za-z]:[\\/])?[^\s()[\]:"'<>]+\.[A-Za-z0-9]+:\d+(?::\d+)?/;

  // frameNodes are a stack frame's text with its file:line marked.
  function frameNodes(line) {
    const m = PY_LOC.exec(line) || NET_LOC.exec(line) || LOC.exec(line);
    if (!m) return [document.createTextNode(line)];
    return [document.createTextNode(line.slice(0, m.index)), el('span', 'loc', m[0]),
      document.createTextNode(line.slice(m.index + m[0].length))];
  }

  function stackEl(stack) {
    const pre = el('pre', 'stack');
    for (const line of String(stack).split(/\r?\n/)) {
      const f = el('span', 'frame');
      f.append(...frameNodes(line));
      pre.append(f, document.createTextNode('\n'));
    }
    return pre;
  }

  // stackMark is the small mark of a record that has a stack trace.
  function stackMark(stack) {
    const n = String(stack).split(/\r?\n/).filter((l) => l.trim()).length;
    const m = el('span', 'stack-mark', 'stack');
    m.title = 'has a stack trace (' + n + (n === 1 ? ' frame' : ' frames') + '): open the record to read it';
    return m;
  }

  // ---- Highlights: the API marks matched words **like this** ----

  function markedNodes(s) {
    const parts = String(s).split('**');
    if (parts.length % 2 === 0) { // an unpaired marker is literal text
      const last = parts.pop();
      parts[parts.length - 1] += '**' + last;
    }
    return parts.map((p, i) => (i % 2 === 1 ? el('mark', null, p) : document.createTextNode(p)));
  }

  // ---- Console ----

  // day is the local day (fmtDate) of the newest line shown.
  // tail is the newest row, which the next line may join (see joins).
  const cons = { es: null, lastId: null, revision: null, count: 0, paused: false, fresh: false, retry: null, day: null, tail: null };

  function consoleFilters() {
    const lv = $('#level-filter').value;
    return { level: lv === 'debug' ? '' : lv, name: $('#name-filter').value.trim(), source: $('#source-filter').value.trim() };
  }

  // A run: consecutive console lines of one template collapse into the row
  // of the first, by console_tail's rules (mcptools/text.go): the same kind,
  // source, name, level, stack and data (where it was read from aside), and the same text, or the same
  // template (the server's: the page computes none) with the same text after
  // the first line. The row shows ×N, the template, the first and last IDs,
  // and expands to an example and links to both ends.
  function afterFirstLine(s) { const i = s.search(/[\r\n]/); return i < 0 ? '' : s.slice(i); }

  // Where or when a line was read (a followed file's path, the offset past
  // it, the file's identity, a game console's own ID of it, OTLP's observed
  // time: oplog.ProvenanceKeys) is not what it says: lines that differ only
  // there are alike, as console_tail has it.
  const provenance = ['file', 'offset', 'fileId', 'upstreamId', 'upstreamTime', 'observedTime'];
  function withoutProvenance(d) {
    if (d == null) return {};
    if (typeof d !== 'object' || Array.isArray(d)) return d;
    const o = { ...d };
    for (const k of provenance) delete o[k];
    return o;
  }

  function joins(row, r) {
    const f = row && row.run && row.run.first;
    if (!f || f.kind !== 'line' || r.kind !== 'line') return false;
    if (f.source !== r.source || (f.name || '') !== (r.name || '') || f.level !== r.level || (f.stack || '') !== (r.stack || '')) return false;
    if (JSON.stringify(withoutProvenance(f.data)) !== JSON.stringify(withoutProvenance(r.data))) return false;
    return f.text === r.text || (!!f.template && f.template === r.template && afterFirstLine(f.text) === afterFirstLine(r.text));
  }

  function extend(row, r) {
    const run = row.run;
    if (r.text !== run.first.text) run.templated = true;
    run.count++;
    run.last = r;
    row.dataset.last = r.id;
    row.dataset.count = run.count;
    row.querySelector('.time').title = fmtDateTime(run.first.time) + ' … ' + fmtDateTime(r.time);
    let last = row.querySelector('.last-id');
    if (!last) {
      last = link('last-id', '', '');
      row.querySelector('.id').after(el('span', 'range', '–'), last);
      row.querySelector('.lvl').after(el('span', 'count', ''));
    }
    last.href = '#/record/' + r.id;
    last.textContent = '#' + r.id;
    row.querySelector('.count').textContent = '×' + run.count;
    const text = el('details', 'text run');
    const sum = el('summary', '', run.templated ? run.first.template : run.first.text);
    const ex = el('div', 'example');
    ex.append('e.g. ', link('', '#/record/' + run.first.id, '#' + run.first.id), ': ' + run.first.text);
    const ids = el('div', 'ids');
    ids.append(run.count + ' records, ', link('', '#/record/' + run.first.id, '#' + run.first.id), ' … ', link('', '#/record/' + r.id, '#' + r.id));
    text.append(sum, ex, ids);
    const old = row.querySelector('.text');
    text.open = old.open || false;
    old.replaceWith(text);
  }

  function lineEl(r) {
    const lv = levelName(r.level);
    const d = el('div', 'line level-' + lv);
    d.dataset.id = r.id;
    d.dataset.level = lv;
    d.dataset.name = r.name || '';
    d.dataset.source = r.source || '';
    d.dataset.day = fmtDate(r.time);
    const time = el('span', 'time', fmtTime(r.time));
    time.title = fmtDateTime(r.time);
    d.append(link('id', '#/record/' + r.id, '#' + r.id), time, el('span', 'lvl', lv));
    if (r.source && r.source !== 'default') d.append(el('span', 'source', r.source));
    if (r.name) d.append(el('span', 'name', r.name));
    d.append(el('span', 'text', r.text));
    if (r.stack) d.append(stackMark(r.stack));
    d.run = { first: r, count: 1, templated: false };
    return d;
  }

  // dayEl is the separator that dates the lines after it: 2026-01-02 Friday.
  function dayEl(day) {
    const [y, m, d] = day.split('-').map(Number);
    const e = el('div', 'separator day', day + ' ' + WEEKDAYS[new Date(y, m - 1, d).getDay()]);
    e.dataset.day = day;
    e.setAttribute('role', 'separator');
    return e;
  }

  // dated appends line to frag after a date when its day is not the day of
  // the line before it, or, for the first line, not today.
  function dated(frag, line) {
    const day = line.dataset.day;
    if (day && day !== cons.day && (cons.day !== null || day !== fmtDate(new Date()))) frag.append(dayEl(day));
    if (day) cons.day = day;
    frag.append(line);
  }

  // tidyDays drops the dates that no line follows (the lines went to the
  // level filter or the cap) and dates the first line when it is not
  // today's and its date went with the lines above it.
  function tidyDays(box) {
    for (const d of box.querySelectorAll('.day')) {
      let n = d.nextElementSibling;
      while (n && !n.matches('.line, .day')) n = n.nextElementSibling;
      if (!n || n.matches('.day')) d.remove();
    }
    const first = box.querySelector('.line');
    if (!first || !first.dataset.day || first.dataset.day === fmtDate(new Date())) return;
    let p = first.previousElementSibling;
    while (p && !p.matches('.day')) p = p.previousElementSibling;
    if (!p) first.before(dayEl(first.dataset.day));
  }

  function consoleStatus(s) { $('#console-status').textContent = s; }

  function notice(parts) {
    const n = $('#console-notice');
    n.textContent = parts.join(' · ');
    n.title = 'at ' + new Date().toLocaleTimeString();
  }

  function onLines(a) {
    const box = $('#console');
    if (cons.fresh) {
      box.replaceChildren();
      cons.count = 0;
      cons.day = null;
      cons.tail = null;
      cons.fresh = false;
    }
    const parts = [];
    const frag = document.createDocumentFragment();
    if (a.reset && cons.lastId !== null) {
      parts.push('reset');
      frag.append(el('div', 'separator', 'reset: the log started over'));
    }
    if (a.dropped > 0) {
      parts.push(a.dropped + ' lines dropped');
      frag.append(el('div', 'separator', a.dropped + ' lines dropped by retention'));
    }
    for (const d of a.damaged || []) { // a damaged block of log.db, skipped
      parts.push('damaged records skipped');
      frag.append(el('div', 'separator', d));
    }
    if (parts.length) { notice(parts); cons.tail = null; }
    for (const r of a.lines || []) {
      if (joins(cons.tail, r)) { extend(cons.tail, r); continue; }
      cons.tail = lineEl(r);
      dated(frag, cons.tail);
      cons.count++;
    }
    box.append(frag);
    if (cons.count > MAX_LINES) {
      while (cons.count > MAX_LINES) {
        const f = box.firstElementChild;
        if (!f) break;
        if (f.classList.contains('line')) cons.count--;
        f.remove();
      }
      tidyDays(box);
    }
    cons.lastId = a.lastId;
    cons.revision = a.revision;
    if (!cons.paused) box.scrollTop = box.scrollHeight;
  }

  function openStream(resume) {
    if (cons.es) cons.es.close();
    clearTimeout(cons.retry);
    const u = new URL('/api/v1/stream', location.origin);
    for (const [k, v] of Object.entries(consoleFilters())) if (v) u.searchParams.set(k, v);
    if (resume && cons.lastId !== null) {
      u.searchParams.set('sinceId', cons.lastId);
      u.searchParams.set('revision', cons.revision);
    }
    const es = new EventSource(u);
    cons.es = es;
    es.addEventListener('lines', (ev) => {
      if (es !== cons.es) return;
      showBanner('');
      onLines(JSON.parse(ev.data));
    });
    es.onopen = () => { if (es === cons.es) consoleStatus('live'); };
    es.onerror = () => {
      if (es !== cons.es) return;
      if (es.readyState === EventSource.CLOSED) { // refused (401/403) or not a stream: try again later
        consoleStatus('disconnected');
        api('/api/v1/info').catch(() => {});
        cons.retry = setTimeout(() => openStream(true), 5000);
      } else {
        consoleStatus('reconnecting…');
      }
    };
  }

  function lineMatches(e, f) {
    const min = f.level ? LEVELS.indexOf(f.level) : 0;
    return LEVELS.indexOf(e.dataset.level) >= min && (!f.name || e.dataset.name === f.name) && (!f.source || e.dataset.source === f.source);
  }

  // A filter change hides what no longer matches at once, then restarts the
  // stream, whose first answer (the newest matching lines) replaces the lot.
  function filtersChanged() {
    const f = consoleFilters();
    for (const e of document.querySelectorAll('#console .line')) {
      if (!lineMatches(e, f)) { e.remove(); cons.count--; }
    }
    tidyDays($('#console'));
    cons.fresh = true;
    openStream(false);
  }

  function setupConsole() {
    $('#level-filter').addEventListener('change', filtersChanged);
    let t = null;
    for (const id of ['#name-filter', '#source-filter']) {
      $(id).addEventListener('input', () => { clearTimeout(t); t = setTimeout(filtersChanged, 400); });
      $(id).addEventListener('change', () => { clearTimeout(t); filtersChanged(); });
    }
    $('#pause').addEventListener('click', () => {
      cons.paused = !cons.paused;
      $('#pause').textContent = cons.paused ? 'Resume' : 'Pause';
      if (!cons.paused) { const b = $('#console'); b.scrollTop = b.scrollHeight; }
    });
    $('#console').addEventListener('click', (ev) => {
      const line = ev.target.closest('.line');
      if (line && !ev.target.closest('a')) select(line);
    });
    openStream(false);
  }

  // ---- Search ----

  const srch = { key: null, cursor: '', params: null, seq: 0 };

  function hitEl(h) {
    const r = h.record;
    const lv = levelName(r.level);
    const d = el('div', 'hit level-' + lv);
    const meta = el('div', 'meta');
    if (h.machine) meta.append(el('span', 'machine', h.machine), document.createTextNode(' #' + r.id));
    else { d.dataset.id = r.id; meta.append(link('id', '#/record/' + r.id, '#' + r.id)); }
    meta.append(document.createTextNode(' ' + fmtDateTime(r.time) + ' · ' + lv + ' · ' + r.kind +
      ' · ' + (r.source || '') + (r.name ? ' · ' + r.name : '')));
    if (r.stack) meta.append(stackMark(r.stack));
    const text = el('div', 'text fragment');
    text.append(...markedNodes(h.fragment || r.text || ''));
    d.append(meta, text);
    return d;
  }

  async function runSearch(more) {
    const p = srch.params;
    const seq = ++srch.seq;
    const results = $('#search-results');
    if (!more) { results.replaceChildren(); srch.cursor = ''; }
    $('#search-summary').textContent = 'Searching…';
    try {
      const a = await api('/api/v1/search', { query: p.q, since: p.since, until: p.until, limit: 50, cursor: more ? srch.cursor : '', scope: p.scope });
      if (seq !== srch.seq) return;
      const frag = document.createDocumentFragment();
      for (const d of a.damaged || []) frag.append(el('div', 'separator', d)); // a damaged block of log.db, not searched
      for (const h of a.hits || a.records || []) frag.append(hitEl(h));
      results.append(frag);
      srch.cursor = a.nextCursor || '';
      $('#search-more').hidden = !srch.cursor;
      const shown = results.querySelectorAll('.hit').length;
      $('#search-summary').textContent = a.scope === 'studio' ? 'Studio ' + a.project + ', every machine, newest first; ' + shown + ' shown'
        : (a.total || 0) + (a.totalExact ? '' : '+') + ' matches, newest first; ' + shown + ' shown';
    } catch (err) {
      if (seq !== srch.seq) return;
      $('#search-more').hidden = true;
      $('#search-summary').textContent = 'Search failed: ' + err.message;
    }
  }

  function searchShow(params) {
    const p = { q: params.get('q') || '', since: params.get('since') || '', until: params.get('until') || '', scope: studioScope() };
    $('#search-input').value = p.q;
    $('#search-since').value = p.since;
    $('#search-until').value = p.until;
    const key = JSON.stringify(p);
    if (key === srch.key) return;
    srch.key = key;
    srch.params = p;
    if (!p.q && !p.since && !p.until) {
      $('#search-results').replaceChildren();
      $('#search-more').hidden = true;
      $('#search-summary').textContent = 'Type a query: words, "a phrase", level:error, name:Player, source:game, -word, and since/until (-1h, 2026-01-02).';
      return;
    }
    runSearch(false);
  }

  function setupSearch() {
    $('#search-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const p = new URLSearchParams();
      p.set('q', $('#search-input').value.trim());
      for (const k of ['since', 'until']) {
        const v = $('#search-' + k).value.trim();
        if (v) p.set(k, v);
      }
      const h = '#/search?' + p.toString();
      if (location.hash === h) { srch.key = null; route(); } else location.hash = h;
      $('#search-input').blur();
    });
    $('#search-more').addEventListener('click', () => runSearch(true));
    $('#search-results').addEventListener('click', (ev) => {
      const hit = ev.target.closest('.hit');
      if (hit && hit.dataset.id && !ev.target.closest('a')) openRecord(hit.dataset.id);
    });
  }

  // ---- Record ----

  let recordSeq = 0;

  function field(label, node) {
    const d = el('div', 'field');
    d.append(el('span', 'muted', label + ': '), node);
    return d;
  }

  async function loadReplays(r, box) {
    try {
      const a = await api('/api/v1/search', { replayOf: r.id, kind: 'op', limit: 500 });
      const reps = (a.hits || []).map((h) => h.record);
      box.replaceChildren();
      if (!reps.length) { box.append(el('li', 'muted', 'not replayed')); return; }
      for (const x of reps) {
        const li = el('li');
        li.append(link(null, '#/record/' + x.id, '#' + x.id), document.createTextNode(' ' + fmtDateTime(x.time) + ' '),
          el('span', 'status-' + x.status, x.status), document.createTextNode(x.durationMs != null ? ' · ' + fmtDuration(x.durationMs) : ''));
        box.append(li);
      }
    } catch (err) {
      box.replaceChildren(el('li', 'muted', 'cannot list replays: ' + err.message));
    }
  }

  async function recordShow(id) {
    const box = $('#record');
    const seq = ++recordSeq;
    if (!/^[0-9]+$/.test(id || '')) {
      box.dataset.id = '';
      box.dataset.shown = '';
      box.replaceChildren(el('div', 'muted', 'No record ID in the address.'));
      return;
    }
    if (box.dataset.shown !== id) { // data-id names what is shown, so it is set once the record is
      box.dataset.id = '';
      box.dataset.shown = '';
      box.replaceChildren(el('div', 'muted', 'Loading #' + id + '…'));
    }
    let r;
    let nb = { prev: 0, next: 0 };
    try {
      [r, nb] = await Promise.all([api('/api/v1/records/' + id), api('/api/v1/records/' + id + '/neighbors').catch(() => nb)]);
    } catch (err) {
      if (seq === recordSeq) box.replaceChildren(el('div', 'muted', 'Cannot show record #' + id + ': ' + err.message));
      return;
    }
    if (seq !== recordSeq) return;
    const lv = levelName(r.level);
    const parts = [];
    const nav = el('div', 'nav');
    const prev = link('prev', nb.prev ? '#/record/' + nb.prev : '#/record/' + id, '← previous');
    const next = link('next', nb.next ? '#/record/' + nb.next : '#/record/' + id, 'next →');
    if (!nb.prev) prev.classList.add('disabled');
    if (!nb.next) next.classList.add('disabled');
    nav.append(prev, next);
    parts.push(nav);
    const head = el('div', 'head');
    head.append(el('span', 'id', '#' + r.id), el('span', 'kind', r.kind), el('span', 'lvl level-' + lv, lv),
      el('span', 'time', fmtDateTime(r.time) + ' (' + r.time + ')'), el('span', 'source', 'source ' + (r.source || '')));
    if (r.name) head.append(el('span', 'name', 'name ' + r.name));
    parts.push(head, el('div', 'record-text', r.text || ''));
    if (r.kind === 'op') {
      const st = el('span', 'op-status status-' + r.status, r.status);
      const dur = el('span', 'op-duration', r.durationMs != null ? fmtDuration(r.durationMs) : (r.status === 'pending' ? 'running' : '—'));
      parts.push(field('tool', el('span', 'tool', r.tool || r.name || '')), field('status', st), field('duration', dur));
      if (r.startTime) parts.push(field('started', el('span', null, fmtDateTime(r.startTime))));
      if (r.endTime) parts.push(field('ended', el('span', null, fmtDateTime(r.endTime))));
      if (r.replayOf) parts.push(field('replay of', link('replay-of', '#/record/' + r.replayOf, '#' + r.replayOf)));
      parts.push(el('h3', null, 'Arguments'), treeBox('op-args', r.arguments, 'none'));
      parts.push(el('h3', null, 'Result'), treeBox('op-result', r.result, r.status === 'pending' ? 'pending' : 'none'));
      if (r.error) parts.push(el('h3', null, 'Error'), el('div', 'op-error record-text', r.error));
    }
    if (r.stack) parts.push(el('h3', null, 'Stack trace'), stackEl(r.stack));
    if (r.data !== undefined && r.data !== null) parts.push(el('h3', null, 'Data'), treeBox('data', r.data, ''));
    let replays = null;
    if (r.kind === 'op') {
      replays = el('ul', 'replays');
      replays.append(el('li', 'muted', 'looking for replays…'));
      parts.push(el('h3', null, 'Replays'), replays);
    }
    box.replaceChildren(...parts);
    box.dataset.id = String(r.id);
    box.dataset.shown = id;
    if (replays) loadReplays(r, replays);
    if (r.kind === 'op' && r.status === 'pending') {
      setTimeout(() => { if (seq === recordSeq && current === 'record') recordShow(id); }, 1000);
    }
  }

  function openRecord(id) { if (id) location.hash = '#/record/' + id; }

  // ---- Crashes ----

  const SVG = 'http://www.w3.org/2000/svg';

  function sparkline(hist) {
    const svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('class', 'spark');
    const n = Math.max((hist || []).length, 1);
    svg.setAttribute('viewBox', '0 0 ' + n + ' 20');
    svg.setAttribute('preserveAspectRatio', 'none');
    svg.setAttribute('role', 'img');
    const max = Math.max(1, ...(hist || [0]));
    (hist || []).forEach((c, i) => {
      if (!c) return;
      const h = Math.max(2, (c / max) * 20);
      const r = document.createElementNS(SVG, 'rect');
      r.setAttribute('x', String(i + 0.1));
      r.setAttribute('width', '0.8');
      r.setAttribute('y', String(20 - h));
      r.setAttribute('height', String(h));
      svg.append(r);
    });
    const t = document.createElementNS(SVG, 'title');
    t.textContent = 'occurrences over time: ' + (hist || []).join(' ');
    svg.append(t);
    return svg;
  }

  // CRASH_CLASSES are the classes the server sorts crash groups into; the
  // class selector's default, crash and error, is the server's too.
  const CRASH_CLASSES = ['crash', 'error', 'compile'];
  const DEFAULT_CLASS = 'crash,error';
  const RUNS_PER_SOURCE = 10; // runs listed per source, newest first
  let crashesSeq = 0;

  function plural(n, one, many) { return n + ' ' + (n === 1 ? one : many); }

  function groupEl(g, studio) {
    const d = el('div', 'group');
    d.dataset.signature = g.signature;
    if (g.class) d.dataset.class = g.class;
    if (!studio) d.dataset.openId = String(g.lastId || g.exampleId);
    const head = el('div', 'head');
    if (CRASH_CLASSES.includes(g.class)) head.append(el('span', 'badge class-' + g.class, g.class));
    if (g.runsEnded > 0) head.append(el('span', 'badge ended', 'ended ' + plural(g.runsEnded, 'run', 'runs')));
    head.append(el('span', 'title', g.title));
    const body = el('div', 'body');
    body.append(head);
    const frame = g.frame || (g.frames && g.frames[0]) || '';
    if (frame) {
      const where = el('div', 'where');
      where.append(...frameNodes(frame));
      body.append(where);
    }
    body.append(el('div', 'meta', 'last ' + fmtDateTime(g.lastSeen) + (g.lastRun ? ' (run ' + g.lastRun + ')' : '') +
      ' · first ' + fmtDateTime(g.firstSeen) + ' · ' + (g.sources || []).join(', ')));
    if (g.machines) body.append(el('div', 'meta machines', 'on ' + g.machines.map((m) => m.machine + ' ×' + m.count).join(', ')));
    if (!studio) body.append(storyBox(g));
    d.append(el('span', 'count', g.count), sparkline(g.histogram), body);
    return d;
  }

  // ---- A crash's story ----
  // The agent's calls in flight when a group's newest occurrence struck and
  // the trail before it (its run's last lines and calls), as
  // GET /api/v1/crashes?story= tells them in find_crashes's words. The
  // first group's comes with the list; another's when its box is opened.

  // idNodes are text with each "#123" a link to that record.
  function idNodes(text) {
    const out = [];
    let at = 0;
    for (const m of text.matchAll(/#(\d+)/g)) {
      out.push(document.createTextNode(text.slice(at, m.index)), link('id', '#/record/' + m[1], m[0]));
      at = m.index + m[0].length;
    }
    out.push(document.createTextNode(text.slice(at)));
    return out;
  }

  // inFlightEl is a call in flight, "#12 spawn_enemy {…} started −0.4s,
  // crashed", its status coloured as in the operations view.
  function inFlightEl(c) {
    const d = el('div', 'inflight');
    d.append(el('span', 'label', 'in flight'));
    if (c.startsWith('and ')) { // "and 7 more, older": how many more than shown
      d.append(document.createTextNode(c));
      return d;
    }
    const cut = c.lastIndexOf(', ');
    d.append(...idNodes(cut < 0 ? c : c.slice(0, cut + 2)));
    if (cut >= 0) {
      const st = c.slice(cut + 2);
      d.append(el('span', 'status-' + st.split(' ')[0], st));
    }
    return d;
  }

  // trailEl is a line or call of the trail, its time relative to the crash
  // ("(−0.4s)" at its end) put first.
  function trailEl(t) {
    const li = el('li', t.startsWith('call: ') ? 'call' : null);
    const m = /^(.*) \(([−+][^()]*)\)$/s.exec(t);
    li.append(el('span', 'rel', m ? m[2] : ''), ...idNodes(m ? m[1] : t));
    return li;
  }

  function storyFill(box, st) {
    const parts = (st.inFlight || []).map(inFlightEl);
    if (!parts.length) parts.push(el('div', 'inflight muted', 'no call in flight'));
    const trail = el('ol', 'trail');
    trail.append(...(st.trail || []).map(trailEl));
    if (!trail.childNodes.length) trail.append(el('li', 'muted', 'no line or call before it'));
    parts.push(trail);
    if (st.since) parts.push(el('div', 'meta', st.since));
    box.querySelector('.story-body').replaceChildren(...parts);
    box.dataset.loaded = '1';
  }

  function storyBox(g) {
    const box = el('details', 'story');
    box.append(el('summary', null, 'calls in flight · trail'), el('div', 'story-body muted', 'loading…'));
    box.addEventListener('toggle', async () => {
      if (!box.open || box.dataset.loaded) return;
      try {
        const a = await api('/api/v1/crashes', { limit: 200, class: $('#crash-class').value, story: g.signature,
          until: new Date(Date.now() + 1000).toISOString() });
        if (a.story) storyFill(box, a.story);
        else box.querySelector('.story-body').textContent = 'gone from the list';
      } catch (err) {
        box.querySelector('.story-body').textContent = 'Cannot tell its story: ' + err.message;
      }
    });
    return box;
  }

  // recentRuns keeps each source's newest RUNS_PER_SOURCE runs, newest
  // first, the sources by their newest run.
  function recentRuns(runs) {
    const by = new Map();
    for (const r of runs) {
      if (!by.has(r.source)) by.set(r.source, []);
      by.get(r.source).push(r);
    }
    const newest = (a, b) => (new Date(b.start) - new Date(a.start)) || (b.run - a.run);
    const lists = [...by.values()].map((l) => l.sort(newest).slice(0, RUNS_PER_SOURCE));
    lists.sort((a, b) => newest(a[0], b[0]));
    return lists;
  }

  function runRow(r, first) {
    const tr = el('tr', 'run' + (first ? ' first' : ''));
    tr.dataset.source = r.source;
    tr.dataset.run = String(r.run);
    tr.dataset.outcome = r.outcome || '';
    const out = el('td');
    const cls = 'outcome outcome-' + (r.outcome || 'running');
    const crash = r.crashId || r.endId;
    if (r.outcome === 'crashed' && crash) {
      const a = link(cls, '#/record/' + crash, 'crashed');
      a.title = 'open the crash, #' + crash;
      out.append(a);
    } else {
      out.append(el('span', cls, r.outcome || 'running'));
    }
    tr.append(el('td', 'source', first ? r.source : ''), el('td', 'num', '#' + r.run), out,
      el('td', 'time', fmtDateTime(r.start)), el('td', 'num', r.records), el('td', 'num' + (r.errors ? ' errors' : ''), r.errors || 0));
    return tr;
  }

  async function runsShow(seq) {
    const body = $('#runs tbody');
    const sum = $('#runs-summary');
    try {
      const a = await api('/api/v1/runs');
      if (seq !== crashesSeq) return;
      const lists = recentRuns(a.runs || []);
      const frag = document.createDocumentFragment();
      for (const l of lists) l.forEach((r, i) => frag.append(runRow(r, i === 0)));
      body.replaceChildren(frag);
      $('#runs').hidden = !lists.length;
      sum.textContent = lists.length ? 'each source\'s newest ' + RUNS_PER_SOURCE + ' runs, newest first' : 'No runs yet.';
    } catch (err) {
      if (seq !== crashesSeq) return;
      body.replaceChildren();
      $('#runs').hidden = true;
      sum.textContent = 'Cannot list runs: ' + err.message;
    }
  }

  // crashesShow lists the crash groups of the class that #/crashes?class=
  // names (crashes and errors by default) and, on this machine, the runs.
  async function crashesShow(params) {
    const box = $('#crashes');
    const sum = $('#crashes-summary');
    const sel = $('#crash-class');
    const cls = params && params.get('class');
    sel.value = [...sel.options].some((o) => o.value === cls) ? cls : DEFAULT_CLASS;
    const seq = ++crashesSeq;
    const studio = studioScope() === 'studio';
    $('#crash-class-label').hidden = studio; // a studio's groups carry no class
    for (const id of ['#runs-head', '#runs', '#runs-summary']) $(id).hidden = studio; // runs are this machine's
    if (!studio) runsShow(seq);
    sum.textContent = 'Loading…';
    try {
      const a = await api('/api/v1/crashes', studio ? { limit: 200, scope: 'studio' }
        : { limit: 200, buckets: 30, class: sel.value, story: 1, until: new Date(Date.now() + 1000).toISOString() });
      if (seq !== crashesSeq) return;
      const frag = document.createDocumentFragment();
      for (const g of a.groups || []) frag.append(groupEl(g, studio));
      const first = frag.firstChild;
      if (a.story && first && first.dataset.signature === a.story.signature) {
        const box = first.querySelector('.story');
        storyFill(box, a.story);
        box.open = a.groups[0].runsEnded > 0; // the crash that ended the newest run: its story at once
      }
      if (!frag.childNodes.length) frag.append(el('div', 'muted empty', studio ? 'No crashes.' : 'Nothing here: no ' + sel.selectedOptions[0].textContent.toLowerCase() + '.'));
      box.replaceChildren(frag);
      sum.textContent = (a.total || 0) + ' crash groups, ' + (studio ? 'newest first, every machine of studio ' + a.project
        : 'those that ended runs first') +
        (a.histogramFrom ? '; sparklines from ' + fmtDateTime(a.histogramFrom) + ' to ' + fmtDateTime(a.histogramUntil) : '');
    } catch (err) {
      if (seq === crashesSeq) sum.textContent = 'Cannot list crashes: ' + err.message;
    }
  }

  function setupCrashes() {
    $('#crash-class').addEventListener('change', () => {
      const v = $('#crash-class').value;
      location.hash = '#/crashes' + (v === DEFAULT_CLASS ? '' : '?class=' + encodeURIComponent(v));
    });
    $('#crashes').addEventListener('click', (ev) => {
      if (ev.target.closest('.story')) return; // its own links and toggle
      const g = ev.target.closest('.group');
      if (g && g.dataset.openId) openRecord(g.dataset.openId);
    });
  }

  // ---- Operations ----

  const ops = { timer: null, els: new Map(), tick: 0, key: '', tools: new Set() };

  function opFill(d, r) {
    const status = r.status || '';
    d.dataset.status = status;
    d.querySelector('.status').textContent = status;
    d.querySelector('.status').className = 'status status-' + status;
    let dur = '—';
    if (r.durationMs != null) dur = fmtDuration(r.durationMs);
    else if (status === 'pending') dur = 'running ' + fmtDuration(Math.max(0, Date.now() - new Date(r.startTime || r.time)));
    d.querySelector('.duration').textContent = dur;
    d.querySelector('.summary').textContent = r.error ? r.text + ' — ' + r.error : r.text;
  }

  function opEl(r) {
    const d = el('div', 'op');
    d.dataset.id = r.id;
    d.append(el('span', 'time', fmtTime(r.time)), el('span', 'tool', r.tool || r.name || ''), el('span', 'summary'),
      el('span', 'source', r.source || ''), el('span', 'status'), el('span', 'duration'));
    opFill(d, r);
    return d;
  }

  function opsFilters() {
    return { tool: $('#ops-tool').value.trim(), status: $('#ops-status').value };
  }

  // opsLoad lists the newest 100 operations; with a tool or status filter
  // it asks the search API, which filters by both.
  async function opsLoad() {
    const box = $('#ops');
    const f = opsFilters();
    const filtered = !!(f.tool || f.status);
    const key = JSON.stringify(f);
    ops.key = key;
    let records;
    if (filtered) {
      const a = await api('/api/v1/search', { kind: 'op', tool: f.tool, status: f.status, limit: 100 });
      records = (a.hits || []).map((h) => h.record);
    } else {
      records = (await api('/api/v1/records', { kind: 'op', count: 100 })).records || [];
    }
    if (ops.key !== key) return; // the filters changed meanwhile
    const list = [];
    for (const r of records) {
      if (r.tool && !ops.tools.has(r.tool)) {
        ops.tools.add(r.tool);
        const o = el('option');
        o.value = r.tool;
        $('#ops-tools').append(o);
      }
      let d = ops.els.get(r.id);
      if (d) opFill(d, r); else { d = opEl(r); ops.els.set(r.id, d); }
      list.push(d);
    }
    const same = list.length === box.children.length && list.every((d, i) => box.children[i] === d);
    if (!same) {
      box.replaceChildren(...list);
      for (const [id, d] of ops.els) if (!d.isConnected) ops.els.delete(id);
    }
    if (!list.length) box.replaceChildren(el('div', 'muted', filtered ? 'No operations match.' : 'No operations yet.'));
    $('#ops-summary').textContent = list.length + (list.length === 1 ? ' operation' : ' operations') + ', newest first' +
      (list.length >= 100 ? ' (the newest 100)' : '');
  }

  async function opsRefreshPending() {
    const pending = [...document.querySelectorAll('#ops .op[data-status="pending"]')].slice(0, 20);
    await Promise.all(pending.map(async (d) => {
      try { opFill(d, await api('/api/v1/records/' + d.dataset.id)); } catch (e) { /* shown on the next list */ }
    }));
  }

  function opsShow() {
    opsLoad().catch((err) => $('#ops').replaceChildren(el('div', 'muted', 'Cannot list operations: ' + err.message)));
    clearInterval(ops.timer);
    ops.timer = setInterval(() => {
      ops.tick++;
      const p = ops.tick % 5 === 0 ? opsLoad() : opsRefreshPending(); // pending every second, the list every 5
      p.catch(() => {});
    }, 1000);
  }

  function setupOps() {
    const reload = () => opsLoad().catch((err) => $('#ops').replaceChildren(el('div', 'muted', 'Cannot list operations: ' + err.message)));
    let t = null;
    $('#ops-tool').addEventListener('input', () => { clearTimeout(t); t = setTimeout(reload, 300); });
    $('#ops-tool').addEventListener('change', () => { clearTimeout(t); reload(); });
    $('#ops-status').addEventListener('change', reload);
    $('#ops').addEventListener('click', (ev) => {
      const op = ev.target.closest('.op');
      if (op) openRecord(op.dataset.id);
    });
  }

  // ---- Keyboard: / j k Enter ----

  function select(item) {
    const [boxSel] = LIST[current] || [];
    if (!boxSel) return;
    for (const e of document.querySelectorAll(boxSel + ' .selected')) e.classList.remove('selected');
    item.classList.add('selected');
    item.scrollIntoView({ block: 'nearest' });
  }

  function move(step) {
    const spec = LIST[current];
    if (!spec) return;
    const [boxSel, itemSel] = spec;
    const box = $(boxSel);
    const cur = box.querySelector(itemSel + '.selected');
    let next = null;
    if (!cur) {
      const all = box.querySelectorAll(itemSel);
      next = step > 0 ? all[0] : all[all.length - 1];
    } else {
      next = cur;
      do { next = step > 0 ? next.nextElementSibling : next.previousElementSibling; } while (next && !next.matches(itemSel));
      if (!next) return;
    }
    if (next) select(next);
  }

  function openSelected() {
    const spec = LIST[current];
    if (!spec) return false;
    const cur = $(spec[0]).querySelector(spec[1] + '.selected');
    if (!cur) return false;
    const id = cur.dataset.openId || cur.dataset.id;
    if (!id) return false; // a studio row: another machine's record
    openRecord(id);
    return true;
  }

  function onKey(ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const t = ev.target;
    const tag = t && t.tagName;
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA' || (t && t.isContentEditable)) {
      if (ev.key === 'Escape') t.blur();
      return;
    }
    if (ev.key === '/') {
      ev.preventDefault();
      $('#search-input').focus();
      $('#search-input').select();
    } else if (ev.key === 'j') {
      move(1);
    } else if (ev.key === 'k') {
      move(-1);
    } else if (ev.key === 'Enter' && tag !== 'A' && tag !== 'BUTTON' && tag !== 'SUMMARY') {
      if (openSelected()) ev.preventDefault();
    }
  }

  // ---- Routes: #/console, #/search?q=, #/record/ID, #/crashes?class=, #/ops ----

  let current = null;

  function route() {
    const h = location.hash.replace(/^#\/?/, '');
    const qi = h.indexOf('?');
    const path = qi < 0 ? h : h.slice(0, qi);
    const params = new URLSearchParams(qi < 0 ? '' : h.slice(qi + 1));
    const [name, arg] = path.split('/');
    const view = VIEWS.includes(name) ? name : 'console';
    for (const v of VIEWS) $('#view-' + v).hidden = v !== view;
    for (const a of document.querySelectorAll('nav a[data-view]')) a.classList.toggle('active', a.dataset.view === view);
    if (view !== 'ops') clearInterval(ops.timer);
    current = view;
    if (view === 'console') {
      const b = $('#console');
      if (!cons.paused) b.scrollTop = b.scrollHeight;
    } else if (view === 'search') searchShow(params);
    else if (view === 'record') recordShow(decodeURIComponent(arg || ''));
    else if (view === 'crashes') crashesShow(params);
    else if (view === 'ops') opsShow();
  }

  // ---- Studio scope: a local/studio switch when the server has a studio ----

  function studioScope() { return $('#scope-switch').hidden ? '' : $('#scope').value; }

  function setupStudio() {
    api('/api/v1/studio').then((a) => {
      if (!a.studio) return;
      $('#scope-switch').hidden = false;
      $('#scope').title = 'studio: project ' + a.project;
    }, () => {});
    $('#scope').addEventListener('change', () => { srch.key = null; route(); });
  }

  function start() {
    setupStudio();
    setupConsole();
    setupSearch();
    setupOps();
    setupCrashes();
    document.addEventListener('keydown', onKey);
    window.addEventListener('hashchange', route);
    route();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
