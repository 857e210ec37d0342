// The update-graph viewer. Everything it reads is a file of the tree it is
// served from (viewer/graphs.json, else index.json; graph/<arch>/<channel>.json
// and the per-version files), by relative URL, so it works from upgraph
// serve, nginx, a bucket or a mirror alike, with no other network access.
import { Graph, compareVersions, graphPath, parseSemver, updatesOf, versionPath } from './graph.js';

/* global cytoscape */

// The full channel is laid out with dagre, in a worker, only up to these
// sizes: dagre's cost grows fast with edges that span several ranks, and
// update graphs are dense (30 releases with 225 edges take over a second).
// Larger channels are placed on a version grid at once. A layout that
// takes longer than LAYOUT_TIMEOUT_MS falls back to the grid too.
const FULL_LAYOUT_MAX_NODES = 40;
const FULL_LAYOUT_MAX_EDGES = 150;
const LAYOUT_TIMEOUT_MS = 3000;
// Beyond this many edges the full view draws only those of the selection
// and the planned path.
const FULL_DRAW_MAX_EDGES = 4000;
// A column of the neighbourhood wraps after this many releases.
const COLUMN_ROWS = 30;

const $ = (id) => document.getElementById(id);
const el = (tag, props = {}, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('data-') || k.startsWith('aria-')) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
};

// loadScript adds a classic script (a UMD library) to the page.
function loadScript(src) {
  return new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.src = src;
    s.onload = resolve;
    s.onerror = () => reject(new Error(`${src} did not load`));
    document.head.append(s);
  });
}

// The table of the tree's graphs the pickers read: written by upgraph
// next to the viewer (generator/render.go, viewer.Summary), tens of
// kilobytes where index.json, which lists every file, has megabytes. A
// tree without it (written by an older upgraph) is read through index.json.
const SUMMARY = 'viewer/graphs.json';

// What the first render needs is requested as early as it is known:
// cytoscape by index.html (an async script, loading and set up while the
// data is fetched), the table of graphs here, then the channel graph,
// then the selected release's file. The script's load event says when it
// has run; it delays the window's, so by then it has loaded or failed.
const cytoscapeLoading = new Promise((resolve, reject) => {
  const settle = () => (typeof cytoscape === 'function' ? resolve() : reject(new Error('viewer/cytoscape.min.js did not load')));
  if (typeof cytoscape === 'function' || document.readyState === 'complete') {
    settle();
    return;
  }
  const script = document.querySelector('script[src="viewer/cytoscape.min.js"]');
  if (script) script.addEventListener('load', settle, { once: true });
  window.addEventListener('load', settle, { once: true });
});
const prefetched = new Map();
const requested = new Map(); // path → performance.now() when requested
function fetchJSON(path) {
  const p = prefetched.get(path);
  if (p) {
    prefetched.delete(path);
    return p;
  }
  requested.set(path, performance.now());
  return fetch(path, { headers: { Accept: 'application/json' } }).then((res) => {
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
    return res.json();
  });
}
function prefetch(path) {
  if (!prefetched.has(path)) {
    const p = fetchJSON(path);
    p.catch(() => {}); // reported when used
    prefetched.set(path, p);
  }
}
prefetch(SUMMARY);

// A deep link names its channel graph, and maybe a release: they are
// requested with the table of graphs rather than after it (the names
// generator/policy accepts; a link to something the tree lacks costs a
// 404, then the page shows what the tree has).
const deepLinked = (() => {
  const want = readURL();
  const arch = want.arch || 'amd64';
  if (!/^[0-9a-z]+$/.test(arch) || !/^[0-9a-z.-]+$/.test(want.channel)) return false;
  prefetch(graphPath(arch, want.channel));
  if (parseSemver(want.from)) prefetch(versionPath(arch, want.channel, want.from));
  return true;
})();

const state = { arch: '', channel: '', from: '', to: '', view: 'around', q: '' };
const app = {
  summary: null, // {arches, channels, graphs: [{channel, arch, path, nodes, …}]}
  summaryFile: '', // SUMMARY, or index.json when the tree lacks it
  graph: null, // Graph of the current channel × arch
  graphKey: '',
  versionDocs: new Map(), // path → per-version document
  cy: null,
  renders: 0,
  timings: {},
  errors: [],
};
window.upgraphViewer = app; // for tests and curious users
app.state = state;
// cytoscape is set up (tens of milliseconds) once the channel graph is
// requested: at once for a deep link, else after the table of graphs.
const setupCytoscape = () => cytoscapeLoading.then(setupCy, (err) => setStatus(err.message, true));
if (deepLinked) app.cyReady = setupCytoscape();

function setStatus(text, isError = false) {
  const s = $('status');
  s.textContent = text;
  s.classList.toggle('error', isError);
  if (isError) app.errors.push(text);
}


// ---- state and deep links ------------------------------------------------

function readURL() {
  const p = new URLSearchParams(location.search);
  return {
    arch: p.get('arch') || '',
    channel: p.get('channel') || '',
    from: p.get('from') || '',
    to: p.get('to') || '',
    view: p.get('view') === 'full' ? 'full' : 'around',
    q: p.get('q') || '',
  };
}

function writeURL(push) {
  const p = new URLSearchParams();
  for (const k of ['channel', 'arch', 'from', 'to']) if (state[k]) p.set(k, state[k]);
  if (state.view === 'full') p.set('view', 'full');
  if (state.q) p.set('q', state.q);
  const url = `${location.pathname}?${p}`;
  if (url === location.pathname + location.search) return;
  if (push) history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}

// ---- start ---------------------------------------------------------------

// loadSummary reads the table of graphs, or index.json (the same fields)
// when the tree has no table.
async function loadSummary() {
  try {
    app.summary = await fetchJSON(SUMMARY);
    app.summaryFile = SUMMARY;
  } catch {
    app.summary = await fetchJSON('index.json');
    app.summaryFile = 'index.json';
  }
}

async function start() {
  app.timings.start = performance.now();
  try {
    await loadSummary();
  } catch (err) {
    setStatus(`Cannot read the list of graphs (index.json): ${err.message}`, true);
    return;
  }
  app.timings.summary = performance.now();
  const sum = app.summary;
  // The channel graph of the page's first state is requested at once,
  // before cytoscape is set up.
  const first = resolve(readURL());
  if (first.graph) prefetch(first.graph.path || graphPath(first.arch, first.channel));
  app.cyReady ||= setupCytoscape();
  $('arch').addEventListener('change', () => change({ arch: $('arch').value }, true));
  $('channel').addEventListener('change', () => change({ channel: $('channel').value, from: '', to: '' }, true));
  $('to').addEventListener('change', () => change({ to: $('to').value }, true));
  $('search').addEventListener('input', () => {
    state.q = $('search').value.trim();
    renderVersionList();
    writeURL(false);
  });
  $('search').addEventListener('keydown', (ev) => {
    if (ev.key !== 'Enter') return;
    const first = $('versions').querySelector('button[data-version]');
    if (first) change({ from: first.dataset.version }, true);
  });
  $('view-around').addEventListener('click', () => change({ view: 'around' }, true));
  $('view-full').addEventListener('click', () => change({ view: 'full' }, true));
  $('fit').addEventListener('click', () => app.cy && app.cy.fit(undefined, 20));
  $('versions').addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-version]');
    if (b) change({ from: b.dataset.version }, true);
  });
  window.addEventListener('popstate', () => apply(readURL()));
  await apply(readURL());
  showGenerated(sum.generatedAt);
}

// showGenerated shows when the tree was generated: index.json's
// generatedAt, which the table of graphs leaves out (it would make the
// table differ between generations of the same graphs). It is read after
// the first render from the start of index.json, the third field the
// generator writes; the rest of the file is not downloaded.
async function showGenerated(known) {
  let at = known || '';
  if (!at) {
    try {
      const res = await fetch('index.json', { headers: { Accept: 'application/json' } });
      if (!res.ok || !res.body) return;
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let head = '';
      for (let m = null; !m && head.length < 1 << 16;) {
        const { value, done } = await reader.read();
        if (done) break;
        head += decoder.decode(value, { stream: true });
        m = /"generatedAt":"([^"\\]*)"/.exec(head);
        if (m) at = m[1];
      }
      reader.cancel().catch(() => {});
    } catch {
      return; // only informative
    }
  }
  if (at) $('generated').textContent = `generated ${at}`;
}

function change(patch, push) {
  return apply({ ...state, ...patch }, push);
}

// apply makes the page show want (a possibly partial or invalid state),
// correcting what the tree does not have, then records it in the URL.
let applying = Promise.resolve();
function apply(want, push = false) {
  applying = applying.then(() => applyNow(want, push)).catch((err) => {
    setStatus(String(err.message || err), true);
  });
  return applying;
}

// resolve corrects the architecture and channel of want to what the tree
// has: {arch, channel, graphs (channel → graph of that arch), graph}.
function resolve(want) {
  const sum = app.summary;
  const arches = sum.arches || [];
  const channels = sum.channels || [];
  const arch = arches.includes(want.arch) ? want.arch : arches.includes('amd64') ? 'amd64' : arches[0] || '';
  const graphs = new Map((sum.graphs || []).filter((g) => g.arch === arch).map((g) => [g.channel, g]));
  let channel;
  if (channels.includes(want.channel) && graphs.has(want.channel)) channel = want.channel;
  else channel = channels.find((c) => graphs.get(c) && graphs.get(c).nodes > 0) || channels.find((c) => graphs.has(c)) || '';
  return { arch, channel, graphs, graph: graphs.get(channel) };
}

async function applyNow(want, push) {
  const arches = app.summary.arches || [];
  const channels = app.summary.channels || [];
  const { arch, channel, graphs } = resolve(want);
  state.arch = arch;
  state.channel = channel;
  state.view = want.view;
  state.q = want.q;
  fillSelect($('arch'), arches, state.arch);
  fillSelect($('channel'), channels.filter((c) => graphs.has(c)), state.channel);
  if ($('search').value.trim() !== state.q) $('search').value = state.q;
  $('view-around').setAttribute('aria-pressed', String(state.view === 'around'));
  $('view-full').setAttribute('aria-pressed', String(state.view === 'full'));
  if (!state.channel) {
    setStatus('This tree has no graphs.');
    return;
  }
  const meta = graphs.get(state.channel);
  const key = `${state.arch}/${state.channel}`;
  if (app.graphKey !== key) {
    setStatus(`Loading ${state.channel} (${state.arch})…`);
    const path = meta.path || graphPath(state.arch, state.channel);
    const t0 = Math.min(performance.now(), requested.get(path) ?? Infinity);
    const doc = await fetchJSON(path);
    const t1 = performance.now();
    app.graph = new Graph(doc);
    app.graphKey = key;
    const t2 = performance.now();
    if (app.timings.graph === undefined) Object.assign(app.timings, { graph: t2, graphFetch: t1 - t0, graphIndex: t2 - t1, graphLoad: t2 - t0 });
  }
  const g = app.graph;
  state.from = g.index.has(want.from) ? want.from : defaultVersion(g);
  state.to = want.to && g.index.has(want.to) && want.to !== state.from ? want.to : '';
  writeURL(push);
  setStatus(`${state.channel} · ${state.arch}: ${g.nodes.length} releases, ${g.edgeCount} edges, ${g.conditionalCount} conditional`);
  const t0 = performance.now();
  const details = renderDetails(); // first: it requests the release's file
  renderVersionList();
  fillTargets();
  renderPath();
  const panels = performance.now() - t0;
  // The graph is drawn once the details are in (their file was requested
  // first), so both are painted in one frame rather than the details
  // waiting for the drawing's frame and then needing one of their own.
  await renderGraph(details);
  await details;
  document.body.dataset.ready = String(++app.renders);
  if (app.timings.firstRender === undefined) {
    app.timings.panels = panels;
    app.timings.firstRender = performance.now();
    performance.mark('upgraph-first-render');
  }
}

// defaultVersion is the newest release that has an update (the newest
// release usually has none yet), else the newest.
function defaultVersion(g) {
  const order = g.order();
  const i = order.find((j) => g.out[j].length > 0) ?? order[0];
  return i === undefined ? '' : g.version(i);
}

function fillSelect(sel, values, current, labels) {
  const same = sel.options.length === values.length && values.every((v, i) => sel.options[i].value === v);
  if (!same) {
    sel.replaceChildren(...values.map((v, i) => new Option(labels ? labels[i] : v, v)));
  }
  sel.value = current;
}

// ---- version list (search) -------------------------------------------------

function sortedVersions(g) {
  if (!g.sorted) g.sorted = g.order().map((i) => g.version(i));
  return g.sorted;
}

function escapeHTML(s) {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function matches(version, q) {
  if (!q) return true;
  return q.split(/\s+/).every((term) => version.toLowerCase().includes(term.toLowerCase()));
}

function renderVersionList() {
  const g = app.graph;
  const list = $('versions');
  if (!g) return list.replaceChildren();
  const all = sortedVersions(g);
  const shown = all.filter((v) => matches(v, state.q));
  $('count').textContent = state.q ? `${shown.length} of ${all.length} versions` : `${all.length} versions`;
  // One string for the browser's parser (a channel can list hundreds of
  // releases), every value escaped; clicks are handled by one listener on
  // the list (start).
  let html = '';
  for (const v of shown) {
    const i = g.index.get(v);
    const current = v === state.from ? ' aria-current="true"' : '';
    html += `<li><button type="button" data-version="${escapeHTML(v)}" title="${g.out[i].length} updates, ${g.inn[i].length} releases update to it"${current}>` +
      `<span>${escapeHTML(v)}</span><span class="deg">→${g.out[i].length}</span></button></li>`;
  }
  list.innerHTML = html;
  const cur = list.querySelector('[aria-current=true]');
  if (cur && cur.scrollIntoView) cur.scrollIntoView({ block: 'nearest' });
}

// ---- details of the selected version (its per-version file) ---------------

async function versionDoc(arch, channel, version) {
  const path = versionPath(arch, channel, version);
  let doc = app.versionDocs.get(path);
  if (!doc) {
    doc = await fetchJSON(path);
    app.versionDocs.set(path, doc);
  }
  return doc;
}

function safeURL(u) {
  try {
    const url = new URL(u);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : '';
  } catch {
    return '';
  }
}

function link(href, text) {
  const u = safeURL(href);
  return u ? el('a', { href: u, text: text || u, target: '_blank', rel: 'noopener noreferrer' }) : document.createTextNode(text || href);
}

function riskList(risks) {
  return el('ul', { class: 'risks' }, ...risks.map((r) => el('li', { class: 'risk', 'data-name': r.name || '' },
    el('span', { class: 'risk-name' }, r.url ? link(r.url, r.name) : document.createTextNode(r.name || '')),
    r.message ? el('div', { class: 'risk-message', text: r.message.trim() }) : null)));
}

function updateItem(to, kind, risks) {
  const go = el('button', { type: 'button', class: 'to', text: to, title: `Show ${to}` });
  go.addEventListener('click', () => change({ from: to, to: '' }, true));
  const plan = el('button', { type: 'button', class: 'plan', text: 'plan', title: `Plan the update to ${to}` });
  plan.addEventListener('click', () => change({ to }, true));
  const li = el('li', { 'data-to': to, 'data-kind': kind }, el('div', { class: 'row' }, go,
    kind === 'conditional' ? el('span', { class: 'badge conditional', text: 'conditional' }) : null, plan));
  if (risks) li.append(riskList(risks));
  return li;
}

let detailsSeq = 0;
async function renderDetails() {
  const seq = ++detailsSeq;
  const { arch, channel, from } = state;
  const box = $('details');
  let doc;
  try {
    doc = await versionDoc(arch, channel, from);
  } catch (err) {
    if (seq === detailsSeq) box.replaceChildren(el('p', { class: 'nopath', text: `Cannot read the updates of ${from}: ${err.message}` }));
    return;
  }
  if (seq !== detailsSeq) return;
  const { node, recommended, conditional } = updatesOf(doc, from);
  const meta = (node && node.metadata) || {};
  const rows = [];
  const add = (k, v) => rows.push(el('dt', { text: k }), el('dd', {}, v));
  if (node) add('payload', el('code', { text: node.payload || '' }));
  if (meta.url) add('errata', link(meta.url));
  if (meta['io.openshift.upgrades.graph.release.channels']) add('channels', document.createTextNode(meta['io.openshift.upgrades.graph.release.channels'].split(',').join(', ')));
  box.replaceChildren(
    el('h2', { id: 'current', text: from }),
    el('dl', { class: 'meta' }, ...rows),
    el('h3', { text: `Recommended updates (${recommended.length})` }),
    recommended.length ? el('ul', { id: 'recommended', class: 'updates' }, ...recommended.map((to) => updateItem(to, 'recommended')))
      : el('p', { id: 'recommended', class: 'muted', text: 'None.' }),
    el('h3', { text: `Conditional updates (${conditional.length})` }),
    conditional.length ? el('ul', { id: 'conditional', class: 'updates' }, ...conditional.map((c) => updateItem(c.to, 'conditional', c.risks)))
      : el('p', { id: 'conditional', class: 'muted', text: 'None.' }),
  );
}

// ---- path planning ---------------------------------------------------------

function fillTargets() {
  const g = app.graph;
  const s = g.index.get(state.from);
  g.order();
  const reach = g.reachable(s).sort((a, b) => g.rank[a] - g.rank[b]).map((i) => g.version(i));
  if (state.to && !reach.includes(state.to)) {
    reach.push(state.to);
    reach.sort((a, b) => compareVersions(b, a));
  }
  fillSelect($('to'), ['', ...reach], state.to, [reach.length ? `— ${reach.length} reachable versions —` : '— no update from here —', ...reach]);
}

function renderPath() {
  const box = $('path');
  app.plan = null;
  if (!state.to) {
    box.replaceChildren(el('p', { class: 'muted', text: 'Pick a target to see the update path a cluster would take, hop by hop.' }));
    return;
  }
  const g = app.graph;
  const plan = g.planPath(state.from, state.to);
  app.plan = plan;
  if (!plan.found) {
    box.replaceChildren(el('p', { class: 'nopath', id: 'nopath', text: `No update path from ${state.from} to ${state.to} in ${state.channel}.` }));
    return;
  }
  const nCond = plan.hops.filter((h) => h.conditional).length;
  const hops = plan.hops.map((h) => {
    const li = el('li', { class: 'hop', 'data-from': h.from, 'data-to': h.to, 'data-conditional': String(h.conditional) },
      el('span', { text: `${h.from} → ${h.to} ` }),
      el('span', { class: h.conditional ? 'badge conditional' : 'badge', text: h.conditional ? 'conditional' : 'recommended' }));
    if (h.conditional) li.append(riskList(g.risks(g.index.get(h.from), g.index.get(h.to))));
    return li;
  });
  box.replaceChildren(
    el('p', { class: 'summary', text: `${plan.hops.length} hop${plan.hops.length === 1 ? '' : 's'}, ${nCond} conditional` }),
    el('ol', { class: 'hops', id: 'hops' }, ...hops),
  );
}

// ---- graph -----------------------------------------------------------------

function setupCy() {
  app.timings.cytoscapeLoaded = performance.now();
  if (typeof cytoscape !== 'function') {
    setStatus('cytoscape.min.js did not load', true);
    return;
  }
  app.cy = cytoscape({
    container: $('cy'),
    elements: [],
    minZoom: 0.02,
    maxZoom: 4,
    boxSelectionEnabled: false,
    textureOnViewport: true,
    hideEdgesOnViewport: true,
    style: [
      { selector: 'node', style: {
        shape: 'round-rectangle', width: 'data(w)', height: 22, label: 'data(id)',
        'text-valign': 'center', 'text-halign': 'center', 'font-size': 11, color: '#1d2329',
        'background-color': '#eef2f6', 'border-width': 1, 'border-color': '#9aa7b4', 'min-zoomed-font-size': 6,
      } },
      { selector: 'node.match', style: { 'border-color': '#7a5cff', 'border-width': 2 } },
      { selector: 'node.from', style: { 'background-color': '#0b62d6', color: '#fff', 'border-color': '#0b62d6', 'font-weight': 'bold' } },
      { selector: 'node.target', style: { 'background-color': '#1f8a3b', color: '#fff', 'border-color': '#1f8a3b', 'font-weight': 'bold' } },
      { selector: 'node.onpath', style: { 'border-color': '#0b62d6', 'border-width': 3 } },
      { selector: 'edge', style: {
        width: 1.2, 'line-color': '#8a96a3', 'target-arrow-color': '#8a96a3', 'target-arrow-shape': 'triangle',
        'curve-style': 'straight', 'arrow-scale': 0.8,
      } },
      { selector: 'edge.many', style: { 'curve-style': 'haystack', 'haystack-radius': 0, width: 0.6, opacity: 0.5 } },
      { selector: 'edge.conditional', style: { 'line-style': 'dashed', 'line-color': '#c25e00', 'target-arrow-color': '#c25e00' } },
      { selector: 'edge.onpath', style: { width: 4, 'line-color': '#0b62d6', 'target-arrow-color': '#0b62d6', opacity: 1, 'z-index': 10, 'curve-style': 'bezier' } },
      { selector: 'edge.onpath.conditional', style: { 'line-color': '#c25e00', 'target-arrow-color': '#c25e00' } },
    ],
  });
  app.timings.cytoscape = performance.now();
  app.cy.on('tap', 'node', (ev) => {
    const v = ev.target.id();
    if (v !== state.from) change({ from: v }, true);
  });
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function nodeWidth(v) {
  return Math.max(48, 7 * v.length + 14);
}

// viewElements picks what the graph shows: around the selection, the
// selected release, every release it updates to, every release that
// updates to it, and the planned path; in full, the whole channel.
function viewElements() {
  const g = app.graph;
  const s = g.index.get(state.from);
  const t = state.to ? g.index.get(state.to) : undefined;
  const nodes = new Set();
  const edges = new Map(); // "a,b" → [a, b]
  const addEdge = (a, b) => edges.set(`${a},${b}`, [a, b]);
  const pathEdges = new Set();
  const pathNodes = new Set();
  if (app.plan && app.plan.found) {
    for (const h of app.plan.hops) {
      const a = g.index.get(h.from), b = g.index.get(h.to);
      pathNodes.add(a).add(b);
      pathEdges.add(`${a},${b}`);
    }
  }
  let note = '';
  let many = false;
  let layout = 'columns';
  if (state.view === 'full') {
    g.nodes.forEach((_, i) => nodes.add(i));
    const total = g.out.reduce((n, o) => n + o.length, 0);
    if (g.nodes.length <= FULL_LAYOUT_MAX_NODES && total <= FULL_LAYOUT_MAX_EDGES) {
      layout = 'dagre';
      g.out.forEach((outs, a) => outs.forEach((b) => addEdge(a, b)));
    } else {
      layout = 'grid';
      if (total <= FULL_DRAW_MAX_EDGES) {
        g.out.forEach((outs, a) => outs.forEach((b) => addEdge(a, b)));
      } else {
        g.out[s].forEach((b) => addEdge(s, b));
        g.inn[s].forEach((a) => addEdge(a, s));
        note = `${g.nodes.length} releases on a version grid; ${total} edges are too many to draw, showing those of ${state.from} and the planned path.`;
      }
      many = edges.size > 600;
    }
  } else {
    nodes.add(s);
    for (const b of g.out[s]) { nodes.add(b); addEdge(s, b); }
    for (const a of g.inn[s]) { nodes.add(a); addEdge(a, s); }
    note = `${plural(g.out[s].length, 'update')} from ${state.from}; ${plural(g.inn[s].length, 'release')} update${g.inn[s].length === 1 ? 's' : ''} to it`;
  }
  for (const i of pathNodes) nodes.add(i);
  for (const k of pathEdges) { const [a, b] = k.split(',').map(Number); addEdge(a, b); }
  return { nodes, edges, pathNodes, pathEdges, s, t, note, many, layout };
}

let layoutWorker = null;
let layoutBusy = null; // {id, resolve} of the request in flight
let layoutSeq = 0;

function workerLayout(req) {
  return new Promise((resolve, reject) => {
    if (layoutBusy) { // a newer view supersedes it: drop the old work
      layoutWorker.terminate();
      layoutWorker = null;
      layoutBusy.resolve(null);
    }
    if (!layoutWorker) {
      try {
        layoutWorker = new Worker('viewer/layout-worker.js');
      } catch (err) {
        reject(err);
        return;
      }
      layoutWorker.onmessage = (ev) => {
        const busy = layoutBusy;
        if (!busy || ev.data.id !== busy.id) return;
        layoutBusy = null;
        if (ev.data.error) busy.reject(new Error(ev.data.error));
        else busy.resolve(ev.data.positions);
      };
      layoutWorker.onerror = (ev) => {
        ev.preventDefault();
        const busy = layoutBusy;
        layoutBusy = null;
        layoutWorker = null;
        if (busy) busy.reject(new Error(ev.message || 'layout worker failed'));
      };
    }
    const timer = setTimeout(() => {
      if (layoutBusy && layoutBusy.id === req.id) {
        layoutWorker.terminate();
        layoutWorker = null;
        layoutBusy = null;
        resolve(gridLayout(req.nodes.map((n) => n[0])));
      }
    }, LAYOUT_TIMEOUT_MS);
    layoutBusy = { id: req.id, resolve: (v) => { clearTimeout(timer); resolve(v); }, reject: (e) => { clearTimeout(timer); reject(e); } };
    layoutWorker.postMessage(req);
  });
}

// columnLayout is the layered layout of the neighbourhood, computed
// directly: a column per hop from the selected release (the releases that
// update to it on its left, its updates on its right, each further hop of
// the planned path one more column to the right), newest at the top, a
// column wrapping after COLUMN_ROWS releases. Linear in the nodes.
function columnLayout(g, view) {
  g.order(); // g.rank
  const col = new Map([[view.s, 1]]);
  for (const b of g.out[view.s]) col.set(b, 2);
  for (const a of g.inn[view.s]) if (!col.has(a)) col.set(a, 0);
  if (app.plan && app.plan.found) {
    app.plan.hops.forEach((h, k) => {
      const b = g.index.get(h.to);
      if (b !== view.s) col.set(b, k + 2);
    });
  }
  const columns = [];
  for (const i of view.nodes) {
    const c = col.has(i) ? col.get(i) : 1;
    (columns[c] ||= []).push(i);
  }
  const pos = {};
  let x = 0;
  for (const members of columns) {
    if (!members) continue;
    members.sort((a, b) => g.rank[a] - g.rank[b]);
    const width = Math.max(...members.map((i) => nodeWidth(g.version(i)))) + 24;
    const sub = Math.ceil(members.length / COLUMN_ROWS);
    const rows = Math.ceil(members.length / sub);
    members.forEach((i, k) => {
      const sc = Math.floor(k / rows), r = k % rows;
      pos[g.version(i)] = [x + sc * width + width / 2, (r - (rows - 1) / 2) * 30];
    });
    x += sub * width + 110;
  }
  return pos;
}

// gridLayout places releases by version without looking at edges: a
// column per major.minor, newest at the top. It is linear in the nodes.
function gridLayout(ids) {
  const cols = new Map();
  for (const v of ids) {
    const m = /^(\d+)\.(\d+)\./.exec(v);
    const key = m ? `${m[1]}.${m[2]}` : '?';
    if (!cols.has(key)) cols.set(key, []);
    cols.get(key).push(v);
  }
  const keys = [...cols.keys()].sort((a, b) => compareVersions(`${a}.0`, `${b}.0`));
  const pos = {};
  keys.forEach((k, x) => {
    cols.get(k).sort((a, b) => compareVersions(b, a)).forEach((v, y) => { pos[v] = [x * 180, y * 30]; });
  });
  return pos;
}

// renderGraph draws the view; it adds the elements to cytoscape once
// before (a promise) has settled.
async function renderGraph(before) {
  await app.cyReady;
  const cy = app.cy;
  if (!cy) return;
  const g = app.graph;
  const seq = ++layoutSeq;
  const view = viewElements();
  $('graph-note').textContent = view.note;
  const ids = [...view.nodes].map((i) => g.version(i));
  const edgeList = [...view.edges.values()];
  let positions;
  const t0 = performance.now();
  if (view.layout === 'dagre') {
    const req = {
      id: seq,
      nodes: ids.map((v) => [v, nodeWidth(v), 22]),
      edges: edgeList.map(([a, b]) => [g.version(a), g.version(b)]),
      rankdir: 'LR', ranksep: 70, nodesep: 8,
    };
    try {
      positions = await workerLayout(req);
    } catch (err) {
      positions = await mainThreadLayout(req).catch(() => gridLayout(ids));
    }
    if (positions === null || seq !== layoutSeq) return; // superseded
  } else if (view.layout === 'columns') {
    positions = columnLayout(g, view);
  } else {
    positions = gridLayout(ids);
  }
  app.timings.layout = performance.now() - t0;
  const els = [];
  for (const v of ids) {
    const i = g.index.get(v);
    const cls = [];
    if (i === view.s) cls.push('from');
    if (i === view.t) cls.push('target');
    if (view.pathNodes.has(i)) cls.push('onpath');
    if (state.q && matches(v, state.q)) cls.push('match');
    const p = positions[v] || [0, 0];
    els.push({ group: 'nodes', data: { id: v, w: nodeWidth(v) }, position: { x: p[0], y: p[1] }, classes: cls.join(' ') });
  }
  for (const [a, b] of edgeList) {
    const key = `${a},${b}`;
    const cls = [];
    if (!g.isUnconditional(a, b)) cls.push('conditional');
    if (view.pathEdges.has(key)) cls.push('onpath');
    else if (view.many) cls.push('many');
    els.push({ group: 'edges', data: { id: `e${key}`, source: g.version(a), target: g.version(b) }, classes: cls.join(' ') });
  }
  await before;
  if (seq !== layoutSeq) return; // superseded
  const t1 = performance.now();
  // The nodes first, styled (boundingBox applies their style) before
  // their edges exist: a node's style applied with its edges in place
  // invalidates the bounds of every connected edge, property by property,
  // and a release can have hundreds (on the largest real channel this
  // saves about 15% of the main thread's time to the first render).
  const nodes = [], edges = [];
  for (const e of els) (e.group === 'nodes' ? nodes : edges).push(e);
  cy.batch(() => {
    cy.elements().remove();
    cy.add(nodes);
  });
  cy.nodes().boundingBox();
  cy.batch(() => cy.add(edges));
  fitPositions(cy, els);
  app.timings.drawStart = t1;
  app.timings.add = performance.now() - t1;
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  app.timings.draw = performance.now() - t1;
}

// fitPositions fits the viewport to the nodes from their known positions
// and sizes: cy.fit() would measure every label first.
function fitPositions(cy, els) {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const e of els) {
    if (e.group !== 'nodes') continue;
    const { x, y } = e.position, w = e.data.w / 2;
    x0 = Math.min(x0, x - w); x1 = Math.max(x1, x + w);
    y0 = Math.min(y0, y - 11); y1 = Math.max(y1, y + 11);
  }
  if (x0 === Infinity) return;
  const pad = 20, W = cy.width(), H = cy.height();
  const zoom = Math.min(1.5, Math.max(cy.minZoom(), Math.min((W - 2 * pad) / (x1 - x0 || 1), (H - 2 * pad) / (y1 - y0 || 1))));
  cy.viewport({ zoom, pan: { x: W / 2 - zoom * (x0 + x1) / 2, y: H / 2 - zoom * (y0 + y1) / 2 } });
}

let dagreLoading = null;
function mainThreadLayout(req) {
  if (req.nodes.length > FULL_LAYOUT_MAX_NODES || req.edges.length > FULL_LAYOUT_MAX_EDGES) return Promise.reject(new Error('too large for the main thread'));
  if (!dagreLoading) dagreLoading = loadScript('viewer/dagre.min.js');
  return dagreLoading.then(() => {
    /* global dagre */
    const dg = new dagre.graphlib.Graph();
    dg.setGraph({ rankdir: req.rankdir, ranksep: req.ranksep, nodesep: req.nodesep, edgesep: 5, marginx: 10, marginy: 10 });
    dg.setDefaultEdgeLabel(() => ({}));
    for (const [id, width, height] of req.nodes) dg.setNode(id, { width, height });
    for (const [s, t] of req.edges) dg.setEdge(s, t);
    dagre.layout(dg);
    const pos = {};
    for (const id of dg.nodes()) pos[id] = [dg.node(id).x, dg.node(id).y];
    return pos;
  });
}

start();
