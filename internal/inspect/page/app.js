// The inspector page of `a2a serve --ui`. Plain DOM: every value from the network goes in through textContent
// or an attribute, never as markup. Data comes from the JSON/SSE API under api/ (see the README).
'use strict';

const ROW = 22;
const $ = id => document.getElementById(id);
const calls = [];           // every summary, by id ascending
const byId = new Map();
let shown = [];             // the filtered calls
let selected = 0;
let dropped = 0;
let stick = true;           // follow new calls at the bottom
let pending = false;
let reloading = false;      // a re-read of the list is due

function el(tag, props, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === 'text') e.textContent = v;
    else if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k != null) e.append(k);
  return e;
}

function svgEl(tag, attrs) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

async function getJSON(path) {
  const r = await fetch(path, {credentials: 'same-origin'});
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error((body.error && body.error.message) || ('HTTP ' + r.status));
  return body;
}

// ---- the calls list -------------------------------------------------------------------------------------------

const filters = {q: '', method: '', task: '', context: '', errors: false};

function matches(c) {
  if (c.gone) return false;
  if (filters.method && c.method !== filters.method) return false;
  if (filters.task && c.task !== filters.task) return false;
  if (filters.context && c.context !== filters.context) return false;
  if (filters.errors && c.status !== 'error') return false;
  if (!filters.q) return true;
  const q = filters.q.toLowerCase();
  return [c.method, c.task, c.context, c.state, c.error, c.binding, String(c.id)]
    .some(v => v && v.toLowerCase().includes(q));
}

const methods = new Set();

function upsert(s) {
  const old = byId.get(s.id);
  if (old) {
    if (s.status === 'open' && old.status !== 'open') return; // an older message than what we have
    const was = matches(old);
    Object.assign(old, s);
    if (was !== matches(old)) refilter();
  } else {
    byId.set(s.id, s);
    if (!calls.length || s.id > calls[calls.length - 1].id) calls.push(s);
    else { calls.push(s); calls.sort((a, b) => a.id - b.id); }
    if (matches(s)) {
      if (!shown.length || s.id > shown[shown.length - 1].id) shown.push(s);
      else refilter();
    }
  }
  if (!methods.has(s.method)) {
    methods.add(s.method);
    $('f-method').append(el('option', {value: s.method, text: s.method}));
  }
  schedule();
}

function refilter() {
  shown = calls.filter(matches);
  schedule();
}

function schedule() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(render);
}

function cell(text, cls) { return el('span', {class: cls || '', text: text == null ? '' : String(text), title: text == null ? '' : String(text)}); }

function fmtTime(iso) {
  const d = new Date(iso);
  return d.toTimeString().slice(0, 8) + '.' + String(d.getMilliseconds()).padStart(3, '0');
}

// render draws only the rows in view: the list stays fast with many thousands of calls.
function render() {
  pending = false;
  const list = $('list');
  $('spacer').style.height = (shown.length * ROW) + 'px';
  if (stick) list.scrollTop = list.scrollHeight;
  const first = Math.max(0, Math.floor(list.scrollTop / ROW) - 5);
  const last = Math.min(shown.length, first + Math.ceil(list.clientHeight / ROW) + 10);
  const rows = $('rows');
  rows.style.top = (first * ROW) + 'px';
  const frag = document.createDocumentFragment();
  for (let i = first; i < last; i++) {
    const c = shown[i];
    const cls = 'row' + (c.id === selected ? ' sel' : '') + (c.status === 'error' ? ' error' : '') + (c.status === 'open' ? ' open' : '');
    frag.append(el('div', {class: cls, 'data-id': c.id},
      cell(c.id), cell(fmtTime(c.start)), cell(c.method), cell(c.binding || c.source), cell(c.task), cell(c.context),
      cell(c.state), cell(c.status, 'st'), cell(c.durationMs.toFixed(1)), cell(c.bytes)));
  }
  rows.replaceChildren(frag);
  let open = 0;
  for (const c of calls) if (c.status === 'open') open++;
  $('counts').textContent = `${calls.length} calls · ${shown.length} shown · ${open} open` + (dropped ? ` · ${dropped} live updates dropped` : '');
}

$('list').addEventListener('scroll', () => {
  const l = $('list');
  stick = l.scrollTop + l.clientHeight >= l.scrollHeight - ROW;
  schedule();
});
$('rows').addEventListener('click', e => {
  const row = e.target.closest('.row');
  if (row) openCall(Number(row.getAttribute('data-id')));
});
for (const [id, key] of [['f-q', 'q'], ['f-method', 'method'], ['f-task', 'task'], ['f-context', 'context']]) {
  $(id).addEventListener('input', e => { filters[key] = e.target.value.trim(); refilter(); });
}
$('f-errors').addEventListener('change', e => { filters.errors = e.target.checked; refilter(); });
$('f-clear').addEventListener('click', () => {
  for (const id of ['f-q', 'f-method', 'f-task', 'f-context']) $(id).value = '';
  $('f-errors').checked = false;
  Object.assign(filters, {q: '', method: '', task: '', context: '', errors: false});
  refilter();
});

function setFilter(key, value) {
  filters[key] = value;
  $('f-' + key).value = value;
  show('calls');
  refilter();
}

// ---- live updates ---------------------------------------------------------------------------------------------

async function reload() {
  const list = await getJSON('api/calls');
  for (const s of list.calls) upsert(s);
}

function connect() {
  const es = new EventSource('api/events');
  es.addEventListener('open', () => { $('live').textContent = 'live'; $('live').className = 'pill live'; reload().catch(() => {}); });
  es.addEventListener('error', () => { $('live').textContent = 'reconnecting'; $('live').className = 'pill down'; });
  es.addEventListener('call', e => upsert(JSON.parse(e.data)));
  es.addEventListener('dropped', e => {
    // this page fell behind and lost updates: read the list again, at most every 2 s
    dropped = JSON.parse(e.data).dropped;
    if (!reloading) {
      reloading = true;
      setTimeout(() => reload().catch(() => {}).finally(() => { reloading = false; }), 2000);
    }
  });
}

// ---- one call -------------------------------------------------------------------------------------------------

// jsonTree renders a value as foldable JSON; objects deeper than open levels start folded.
function jsonTree(v, open = 2, key) {
  const label = key == null ? [] : [el('span', {class: 'k', text: JSON.stringify(key)}), ': '];
  if (v !== null && typeof v === 'object') {
    const entries = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    const brackets = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
    const d = el('details', open > 0 ? {open: ''} : {});
    d.append(el('summary', {}, ...label, `${brackets[0]} ${entries.length} ${Array.isArray(v) ? 'items' : 'keys'} ${brackets[1]}`));
    for (const [k, x] of entries) d.append(jsonTree(x, open - 1, Array.isArray(v) ? null : k));
    return d;
  }
  const cls = typeof v === 'string' ? 's' : typeof v === 'number' ? 'n' : 'b';
  return el('div', {}, ...label, el('span', {class: cls, text: JSON.stringify(v)}));
}

function copyButton(text) {
  return el('button', {text: 'copy', onclick: e => {
    const b = e.target;
    navigator.clipboard.writeText(text).then(() => { b.textContent = 'copied'; }, () => { b.textContent = 'select the text to copy'; });
  }});
}

function link(text, fn) { return el('a', {class: 'link', text, onclick: fn}); }

async function openCall(id) {
  selected = id;
  schedule();
  const box = $('detail');
  let d;
  try { d = await getJSON('api/calls/' + id); } catch (e) { box.replaceChildren(el('p', {class: 'hint', text: String(e.message)})); return; }
  if (selected !== id) return;
  const kv = el('dl', {class: 'kv'});
  const add = (k, v) => { if (v !== '' && v != null) kv.append(el('dt', {text: k}), el('dd', {}, v)); };
  add('started', d.start);
  add('binding', [d.binding, d.version].filter(Boolean).join(' ') || d.source);
  if (d.path) add('request', d.httpMethod + ' ' + d.path);
  add('task', d.task ? link(d.task, () => openTask(d.task)) : '');
  add('context', d.context ? link(d.context, () => setFilter('context', d.context)) : '');
  add('state', d.state);
  add('status', d.status + (d.error ? ': ' + d.error : ''));
  add('duration', d.durationMs.toFixed(3) + ' ms');
  add('bytes', String(d.bytes));
  add('events', String(d.events.length) + (d.lostEvents ? ` (and ${d.lostEvents} not kept)` : ''));
  const parts = [el('h2', {text: `#${d.id} ${d.method}`}), kv];
  parts.push(el('h3', {text: 'Repeat it'}));
  for (const [name, cmd] of [['a2a', d.commands.a2a], ['curl', d.commands.curl]]) {
    if (cmd) parts.push(el('div', {}, el('span', {text: name + ' '}), copyButton(cmd)), el('pre', {class: 'cmd', 'data-cmd': name, text: cmd}));
  }
  const hs = el('table');
  for (const k of Object.keys(d.headers).sort()) hs.append(el('tr', {}, el('td', {text: k}), el('td', {class: 'mono', text: d.headers[k]})));
  parts.push(el('h3', {text: 'Headers'}), hs);
  if (d.request != null) parts.push(el('h3', {text: 'Request'}), el('div', {class: 'json'}, jsonTree(d.request, 3)));
  parts.push(el('h3', {text: d.events.length > 1 ? `Stream (${d.events.length} events)` : 'Response'}));
  for (const ev of d.events) {
    parts.push(el('div', {class: 'ev'}, el('div', {class: 'off', text: '+' + ev.offsetMs.toFixed(3) + ' ms'}), el('div', {class: 'json'}, jsonTree(ev.data, 1))));
  }
  box.replaceChildren(...parts);
}

// ---- a task ---------------------------------------------------------------------------------------------------

async function openTask(id) {
  show('task');
  const box = $('timeline');
  let t;
  try { t = await getJSON('api/tasks/' + encodeURIComponent(id)); } catch (e) { box.replaceChildren(el('p', {class: 'hint', text: String(e.message)})); return; }
  const span = Math.max(1, ...t.items.map(i => i.offsetMs));
  const W = 1000, H = 70;
  const svg = svgEl('svg', {viewBox: `0 0 ${W} ${H}`, height: H, preserveAspectRatio: 'none', id: 'axis'});
  svg.append(svgEl('line', {x1: 10, x2: W - 10, y1: 50, y2: 50, stroke: '#9ca3af'}));
  const colors = {call: '#6b7280', message: '#2563eb', task: '#0f766e', status: '#15803d', artifact: '#7c3aed', tool: '#b45309', permission: '#dc2626', thought: '#64748b', error: '#991b1b'};
  const rowsOf = Object.keys(colors);
  for (const it of t.items) {
    const x = 10 + (W - 20) * it.offsetMs / span;
    const y = 8 + 4 * rowsOf.indexOf(it.kind);
    const dot = svgEl('circle', {cx: x, cy: y + 4, r: 4, fill: colors[it.kind] || '#000'});
    const tip = svgEl('title', {});
    tip.textContent = `+${it.offsetMs.toFixed(1)} ms ${it.kind} ${it.state || ''} ${it.text || ''}`;
    dot.append(tip);
    svg.append(dot);
  }
  for (const [x, label] of [[10, '0'], [W - 10, span.toFixed(1) + ' ms']]) {
    const txt = svgEl('text', {x, y: 66, 'font-size': 11, fill: '#6b7280', 'text-anchor': x < 20 ? 'start' : 'end'});
    txt.textContent = label;
    svg.append(txt);
  }
  const table = el('table', {id: 'items'}, el('tr', {}, el('th', {text: 'time'}), el('th', {text: 'kind'}), el('th', {text: 'state'}), el('th', {text: 'what'}), el('th', {text: 'call'})));
  for (const it of t.items) {
    table.append(el('tr', {class: 'item'},
      el('td', {class: 'mono', text: '+' + it.offsetMs.toFixed(3) + ' ms'}),
      el('td', {}, el('span', {class: 'kind k-' + it.kind, text: it.kind})),
      el('td', {text: it.state || ''}),
      el('td', {text: it.text || ''}),
      el('td', {}, link('#' + it.call, () => { show('calls'); openCall(it.call); }))));
  }
  box.replaceChildren(
    el('h2', {text: 'Task ' + t.task}),
    el('p', {}, 'context ', t.context ? link(t.context, () => setFilter('context', t.context)) : '-',
      ` · ${t.calls.length} calls · ${t.items.length} events · `, link('show its calls', () => setFilter('task', t.task))),
    svg, table);
}

// ---- latency --------------------------------------------------------------------------------------------------

let statsTimer = 0;

async function drawLatency() {
  let st;
  try { st = await getJSON('api/stats'); } catch (e) { return; }
  const box = $('latency');
  const parts = [el('h2', {text: 'Latency per method'}),
    el('p', {class: 'hint', text: `${st.calls} calls kept · ${st.openStreams} streams open · ${st.dropped} live updates dropped by slow pages · ${st.readers} pages open`})];
  const labels = st.bucketsMs.map(b => '≤' + (b >= 1000 ? b / 1000 + 's' : b + 'ms')).concat(['more']);
  for (const m of Object.keys(st.latency).sort()) {
    const h = st.latency[m];
    const top = Math.max(1, ...h.counts);
    const bars = el('div', {class: 'hist'});
    h.counts.forEach((n, i) => {
      const b = el('div', {class: 'bar', title: `${labels[i]}: ${n}`}, el('span', {text: n ? String(n) : ''}));
      b.style.height = (100 * n / top) + '%';
      bars.append(b);
    });
    parts.push(el('div', {class: 'method'},
      el('h3', {text: `${m} · ${h.total} calls · p50 ${h.p50Ms.toFixed(2)} ms · p95 ${h.p95Ms.toFixed(2)} ms`}),
      bars, el('div', {class: 'axis'}, ...labels.map(l => el('span', {text: l})))));
  }
  parts.push(el('h2', {text: 'Open streams over time'}));
  const s = st.streams;
  const W = 900, H = 120, top = Math.max(1, ...s.map(p => p.open));
  const svg = svgEl('svg', {viewBox: `0 0 ${W} ${H}`, height: H, preserveAspectRatio: 'none', id: 'streams'});
  if (s.length) {
    const t0 = s[0].t, span = Math.max(1, s[s.length - 1].t - t0);
    const pts = s.map(p => `${(W * (p.t - t0) / span).toFixed(1)},${(H - 10 - (H - 20) * p.open / top).toFixed(1)}`).join(' ');
    svg.append(svgEl('polyline', {points: pts, fill: 'none', stroke: '#4f6bed', 'stroke-width': 2}));
  }
  const lbl = svgEl('text', {x: 4, y: 12, 'font-size': 11, fill: '#6b7280'});
  lbl.textContent = `max ${top} · last ${s.length} s`;
  svg.append(lbl);
  parts.push(svg);
  box.replaceChildren(...parts);
}

// ---- views, export and load -----------------------------------------------------------------------------------

function show(view) {
  for (const v of ['calls', 'task', 'latency']) {
    $('view-' + v).classList.toggle('on', v === view);
    $('tab-' + v).classList.toggle('on', v === view);
  }
  clearInterval(statsTimer);
  if (view === 'latency') { drawLatency(); statsTimer = setInterval(drawLatency, 2000); }
  if (view === 'calls') schedule();
}

for (const b of document.querySelectorAll('.tab')) b.addEventListener('click', () => show(b.getAttribute('data-view')));

$('load').addEventListener('change', async e => {
  const f = e.target.files[0];
  if (!f) return;
  const r = await fetch('api/import', {method: 'POST', body: await f.text(), headers: {'Content-Type': 'application/jsonl'}});
  const body = await r.json().catch(() => ({}));
  $('live').textContent = r.ok ? `loaded ${body.calls} calls` : ((body.error && body.error.message) || 'load failed');
  e.target.value = '';
  reload().catch(() => {});
});

connect();
