// The update-graph viewer. Everything it reads is a file of the tree it is
// served from (viewer/graphs.json, else index.json; graph/<arch>/<channel>.json
// and the per-version files; for the operators view, the files of
// operators/<catalog>/), by relative URL, so it works from upgraph serve,
// nginx, a bucket or a mirror alike, with no other network access. The
// page routes the URL to the releases view or the operators view (the
// last part of this file) and serialises their updates.
import {
  Graph, channelEntries, channelGraphPath, compareVersions, deprecationsOf, edgeCounts, edgeCurves, filterNames, graphPath,
  isOperatorsURL, ladderLayout, layoutEdges, nextPath, opGraph, opSearch, packageGraphPath, parseSemver, pathEdges,
  readNext, readNextWhole, readOpState, skippedByV0, updatesOf, versionPath, visibleRange, isPlanURL, readPlanState, planSearch, planCrossings, defaultCatalogSets, setName, encodeCatalogMap, decodeCatalogMap, parseInstalls, encodeInstalls, decodeInstalls, computePlan, PlanCatalog, eusChannels, unionDocs,
} from './graph.js';

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
// 404, then the page shows what the tree has). A link to the operators
// view names a package graph, maybe a channel graph and an installed
// bundle's file: the same.
const operatorsLinked = isOperatorsURL(location.search) && !isPlanURL(location.search);
if (operatorsLinked) {
  const want = readOpState(location.search);
  if (/^[a-z0-9-]+$/.test(want.catalog) && want.package) {
    prefetch(packageGraphPath(want.catalog, want.package));
    if (want.channel && want.view === 'channel') prefetch(channelGraphPath(want.catalog, want.package, want.channel));
    if (want.channel && want.installed) prefetch(nextPath(want.catalog, want.package, want.channel, want.installed));
  }
}
const deepLinked = (() => {
  if (operatorsLinked) return false;
  const want = readURL();
  const arch = want.arch || 'amd64';
  if (!/^[0-9a-z]+$/.test(arch) || !/^[0-9a-z.-]+$/.test(want.channel)) return false;
  prefetch(graphPath(arch, want.channel));
  // The plan view reads no per-version file (and its from may be in an EUS
  // channel only).
  if (parseSemver(want.from) && !isPlanURL(location.search)) prefetch(versionPath(arch, want.channel, want.from));
  return true;
})();

const state = { arch: '', channel: '', from: '', to: '', view: 'around', q: '' };
const app = {
  mode: '', // 'releases' or 'operators'
  operators: null, // the operators view (createOperators), when the tree has catalogs
  summary: null, // {arches, channels, graphs: [{channel, arch, path, nodes, …}]}
  summaryFile: '', // SUMMARY, or index.json when the tree lacks it
  graph: null, // Graph of the current channel × arch
  graphKey: '',
  versionDocs: new Map(), // path → per-version document
  cy: null,
  renders: 0,
  timings: {},
  errors: [],
  bucket: null, // the phased-rollout bucket picked (rollouts.js), null: the shared files
  rollouts: null, // rollouts.js, loaded for trees with phased rollouts only
};
window.upgraphViewer = app; // for tests and curious users
app.state = state;
// cytoscape is set up (tens of milliseconds) once the channel graph is
// requested: at once for a deep link, else after the table of graphs.
const setupCytoscape = () => cytoscapeLoading.then(setupCy, (err) => setStatus(err.message, true));
if (deepLinked) app.cyReady = setupCytoscape();
// idle resolves once the page has applied every pending change (tests).
app.idle = () => applying;

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

// rolloutPath is the file the picked bucket reads for path.
function rolloutPath(path) {
  return app.rollouts ? app.rollouts.bucketPath(app.summary.rollouts, app.bucket, path) : path;
}

// setupRollouts shows the phased rollouts' progress and a cluster picker:
// an id or a rollout_wariness puts the view in that cluster's bucket,
// whose own copies of the graph files it then reads; empty shows the
// shared files (every release offered, upstream's answer).
// The module is loaded only for such trees, and shipped only in them.
async function setupRollouts(ro) {
  app.rollouts = await import('./rollouts.js');
  const note = $('rollout-note');
  const show = () => {
    note.textContent = app.rollouts.progress(ro, app.bucket).join(' · ');
    note.hidden = false;
  };
  $('rollout-pick').hidden = false;
  $('rollout-id').addEventListener('change', () => {
    const v = $('rollout-id').value;
    app.bucket = v.trim() === '' ? null : app.rollouts.bucketOf(v, ro.buckets);
    show();
    if (state.channel) apply({ ...state }, false);
  });
  show();
}

async function start() {
  app.timings.start = performance.now();
  if (operatorsLinked) {
    try {
      startLayoutWorker();
    } catch {
      // laid out on the main thread or a ladder instead
    }
  }
  try {
    await loadSummary();
  } catch (err) {
    setStatus(`Cannot read the list of graphs (index.json): ${err.message}`, true);
    return;
  }
  app.timings.summary = performance.now();
  const sum = app.summary;
  if (sum.rollouts) await setupRollouts(sum.rollouts);
  const hasCatalogs = (sum.catalogs || []).length > 0;
  app.hasReleases = (sum.graphs || []).length > 0;
  if (hasCatalogs) {
    app.operators = createOperators({
      summary: () => app.summary, fetchJSON, setStatus, cytoscapeLoading, workerLayout, enqueue, rendered, timings: app.timings,
      enter: () => setMode('operators'),
    });
    $('modes').hidden = false;
    $('mode-releases').disabled = !app.hasReleases;
    $('mode-releases').addEventListener('click', () => {
      if (app.mode !== 'releases') apply({ ...state }, true);
    });
    $('mode-operators').addEventListener('click', () => {
      if (app.mode !== 'operators') app.operators.apply({ ...app.operators.state }, true);
    });
  }
  if (hasCatalogs && app.hasReleases) {
    app.planView = createPlan();
    $('mode-plan').hidden = false;
    $('mode-plan').addEventListener('click', () => {
      if (app.mode !== 'plan') app.planView.apply({ ...app.planView.state }, true);
    });
  }
  if (wantsOperators() && !operatorsLinked) {
    try {
      startLayoutWorker();
    } catch {
      // laid out on a ladder instead
    }
  }
  if (!wantsOperators()) {
    // The channel graph of the page's first state is requested at once,
    // before cytoscape is set up.
    const first = resolve(readURL());
    if (first.graph) prefetch(first.graph.path || graphPath(first.arch, first.channel));
    app.cyReady ||= setupCytoscape();
  }
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
  window.addEventListener('popstate', route);
  await route();
  showGenerated(sum.generatedAt);
}

// wantsOperators tells whether the location is the operators view's: it
// names a catalog, or the tree has catalogs and no release graph.
function wantsOperators() {
  if (app.planView && isPlanURL(location.search)) return false;
  return !!app.operators && (isOperatorsURL(location.search) || !app.hasReleases);
}

// route shows the view and state the location names.
function route() {
  if (app.planView && isPlanURL(location.search)) return app.planView.apply(readPlanState(location.search));
  if (wantsOperators()) return app.operators.apply(readOpState(location.search));
  return apply(readURL());
}

// setMode shows one view and hides the other: the releases view
// (index.html's .rel-only) or the operators view (.op-only).
function setMode(mode) {
  if (app.mode === mode) return;
  app.mode = mode;
  document.body.dataset.mode = mode;
  $('mode-releases').setAttribute('aria-pressed', String(mode === 'releases'));
  $('mode-operators').setAttribute('aria-pressed', String(mode === 'operators'));
  $('mode-plan').setAttribute('aria-pressed', String(mode === 'plan'));
  if (mode === 'plan') return;
  if (mode === 'releases') {
    app.cyReady ||= setupCytoscape();
    if (app.cy) app.cy.resize();
  } else {
    app.operators.show();
  }
}

// rendered records a complete render of either view (body[data-ready]
// counts them; the first one's time is the first render).
function rendered(timings = {}) {
  document.body.dataset.ready = String(++app.renders);
  if (app.timings.firstRender === undefined) {
    Object.assign(app.timings, timings);
    app.timings.firstRender = performance.now();
    performance.mark('upgraph-first-render');
  }
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
  return enqueue(() => applyNow(want, push));
}

// enqueue runs fn (an update of either view) once the pending ones are
// done.
function enqueue(fn) {
  applying = applying.then(fn).catch((err) => {
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
  if (app.operators) setMode('releases');
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
  const key = `${state.arch}/${state.channel}/${app.bucket}`;
  if (app.graphKey !== key) {
    setStatus(`Loading ${state.channel} (${state.arch})…`);
    const path = rolloutPath(meta.path || graphPath(state.arch, state.channel));
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
  rendered({ panels });
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
  const path = rolloutPath(versionPath(arch, channel, version));
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

// startLayoutWorker creates the layout worker unless it is there: the
// operators view, which lays out every graph in it, starts it with the
// page so that it has loaded dagre by the time the files are in.
function startLayoutWorker() {
  if (layoutWorker) return;
  layoutWorker = new Worker('viewer/layout-worker.js');
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

// workerLayout lays req out in the layout worker; past LAYOUT_TIMEOUT_MS it
// gives onTimeout() instead (by default the version grid), and null when a
// newer request superseded it.
function workerLayout(req, onTimeout = () => gridLayout(req.nodes.map((n) => n[0]))) {
  return new Promise((resolve, reject) => {
    if (layoutBusy) { // a newer view supersedes it: drop the old work
      layoutWorker.terminate();
      layoutWorker = null;
      layoutBusy.resolve(null);
    }
    try {
      startLayoutWorker();
    } catch (err) {
      reject(err);
      return;
    }
    const timer = setTimeout(() => {
      if (layoutBusy && layoutBusy.id === req.id) {
        layoutWorker.terminate();
        layoutWorker = null;
        layoutBusy = null;
        resolve(onTimeout());
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

// ==== Operators view ===========================================================
// Pick a catalog and a package, see its channels with their heads, the
// typed edges of a channel (or of the whole package), deprecations and the
// bundles OLM v0 skips, and for an installed bundle what OLM v0 and OLM v1
// do next. It reads, by relative URL, the catalogs and their packages of
// viewer/graphs.json (app.summary) and operators/<C>/graph/<P>.json,
// graph/<P>/<CH>.json and next/<P>/<CH>/<B>.json (docs/operators.md);
// its pure logic is in graph.js. The page (above) routes the URL to this
// view or the releases view and hands over what both share (ctx).

// OP_ROW is the height of a row of the package list (style.css: .vlist button).
const OP_ROW = 24;
// Up to this many bundles a graph is laid out by dagre in the layout
// worker (along one edge per bundle: graph.js layoutEdges); beyond, or
// when the worker times out, on a ladder by version.
const OP_LAYOUT_MAX_NODES = 800;
// The distance between the ranks of the layout (ranksep plus a node's
// height): edges spanning more arc around the bundles between.
const OP_RANK_STEP = 34 + 22;
// A graph is fitted to the view down to this zoom; a larger one is shown
// around the installed bundle, or the head.
const OP_MIN_FIT_ZOOM = 0.8;

const countOf = (n, word, words = `${word}s`) => `${n} ${n === 1 ? word : words}`;
const labelWidth = (label) => Math.max(48, 7 * label.length + 16);

// createOperators sets the view up. ctx: {summary() (viewer/graphs.json or
// index.json), fetchJSON(path), setStatus(text, isError), cytoscapeLoading
// (a promise), workerLayout(req, onTimeout), enqueue(fn) (runs fn after
// the page's pending updates), rendered(timings) (a render is complete),
// enter() (shows this view, hiding the releases view), timings}. It
// returns {state, ops, apply(want, push), show()}.
function createOperators(ctx) {
  const state = { catalog: '', package: '', channel: '', installed: '', view: 'channel', q: '' };
  const ops = {
    state,
    cy: null,
    catalog: null, // the catalog's entry of the summary
    pkgDoc: null, // graph/<P>.json
    model: null, // opGraph of the graph drawn
    next: null, // readNext of the installed bundle's file
    graphKey: '', // path of the graph drawn
    layouts: new Map(), // graph path → positions
    docs: new Map(), // path → promise of the document
    shown: [], // the package list as filtered
  };
  let drawSeq = 0;
  let listFrame = 0;

  function load(path) {
    let p = ops.docs.get(path);
    if (!p) {
      p = ctx.fetchJSON(path);
      ops.docs.set(path, p);
      p.catch(() => ops.docs.delete(path));
    }
    return p;
  }

  // ---- controls ------------------------------------------------------------

  const changeOps = (patch, push = true) => applyOps({ ...state, ...patch }, push);
  $('op-catalog').addEventListener('change', () => changeOps({ catalog: $('op-catalog').value, package: '', channel: '', installed: '' }));
  $('op-search').addEventListener('input', () => {
    state.q = $('op-search').value.trim();
    ops.listKey = '';
    renderPackageList(false);
    writeOpURL(false);
  });
  $('op-search').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && ops.shown.length) changeOps({ package: ops.shown[0], channel: '', installed: '' });
  });
  $('op-packages').addEventListener('scroll', () => {
    if (!listFrame) listFrame = requestAnimationFrame(() => { listFrame = 0; renderRows(); });
  }, { passive: true });
  $('op-packages').addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-package]');
    if (b && b.dataset.package !== state.package) changeOps({ package: b.dataset.package, channel: '', installed: '' });
  });
  $('op-view-channel').addEventListener('click', () => changeOps({ view: 'channel' }));
  $('op-view-package').addEventListener('click', () => changeOps({ view: 'package' }));
  $('op-fit').addEventListener('click', () => ops.cy && ops.cy.fit(undefined, 20));
  $('op-details').addEventListener('click', (ev) => {
    const ch = ev.target.closest('button[data-select-channel]');
    if (ch) changeOps({ channel: ch.dataset.selectChannel });
    const b = ev.target.closest('button[data-select-bundle]');
    if (b) changeOps({ installed: b.dataset.selectBundle });
  });
  $('op-details').addEventListener('change', (ev) => {
    if (ev.target.id === 'op-installed') changeOps({ installed: ev.target.value });
  });

  function applyOps(want, push = false) {
    return ctx.enqueue(() => applyOpsNow(want, push));
  }

  function writeOpURL(push) {
    const url = location.pathname + opSearch(state);
    if (url === location.pathname + location.search) return;
    if (push) history.pushState(null, '', url);
    else history.replaceState(null, '', url);
  }

  // ---- state -----------------------------------------------------------------

  // applyOpsNow shows want (possibly partial or naming what the tree lacks):
  // the catalog, else the first; the package, else the first the filter
  // lists; the channel, else the package's default; the installed
  // bundle when it is an entry of the channel.
  async function applyOpsNow(want, push) {
    const t0 = performance.now();
    ctx.enter();
    $('op-view-channel').setAttribute('aria-pressed', String(want.view !== 'package'));
    $('op-view-package').setAttribute('aria-pressed', String(want.view === 'package'));
    const cats = ctx.summary().catalogs || [];
    fillSelect($('op-catalog'), cats.map((c) => c.name), want.catalog);
    if (!cats.length) {
      ctx.setStatus('This tree has no operator catalogs.');
      return;
    }
    const cat = cats.find((c) => c.name === want.catalog) || cats[0];
    ops.catalog = cat;
    state.catalog = cat.name;
    $('op-catalog').value = cat.name;
    state.q = want.q || '';
    state.view = want.view === 'package' ? 'package' : 'channel';
    if ($('op-search').value.trim() !== state.q) $('op-search').value = state.q;
    const names = cat.packages || [];
    state.package = names.includes(want.package) ? want.package : filterNames(names, state.q)[0] || names[0] || '';
    const listKey = `${cat.name}\n${state.q}\n${state.package}`;
    if (listKey !== ops.listKey) {
      ops.listKey = listKey;
      renderPackageList(true);
    }
    if (!state.package) {
      ctx.setStatus(`Catalog ${cat.name} has no packages.`);
      if (ops.cy) ops.cy.elements().remove();
      ops.graphKey = '';
      $('op-details').replaceChildren(el('p', { class: 'muted', text: 'No package to show.' }));
      $('op-graph-note').textContent = '';
      writeOpURL(push);
      ctx.rendered();
      return;
    }
    ensureCy();
    const pPath = packageGraphPath(cat.name, state.package);
    // A link naming the channel and the installed bundle has their files
    // requested with the package's rather than after it.
    if (want.package === state.package && want.channel) {
      if (state.view === 'channel') load(channelGraphPath(cat.name, state.package, want.channel)).catch(() => {});
      if (want.installed) load(nextPath(cat.name, state.package, want.channel, want.installed)).catch(() => {});
    }
    ctx.setStatus(`Loading ${state.package}…`);
    const pkgDoc = await load(pPath);
    const channels = (pkgDoc.channels || []).map((c) => c.name);
    state.channel = channels.includes(want.channel) ? want.channel : channels.includes(pkgDoc.defaultChannel) ? pkgDoc.defaultChannel : channels[0] || '';
    const entries = channelEntries(pkgDoc, state.channel);
    state.installed = entries.includes(want.installed) ? want.installed : '';
    const gPath = state.view === 'package' ? pPath : channelGraphPath(cat.name, state.package, state.channel);
    const nPath = state.installed ? nextPath(cat.name, state.package, state.channel, state.installed) : '';
    const [graphDoc, nextDoc] = await Promise.all([load(gPath), nPath ? load(nPath) : null]);
    const t1 = performance.now();
    ops.pkgDoc = pkgDoc;
    if (ops.graphKey !== gPath || !ops.model) ops.model = opGraph(graphDoc);
    ops.next = nextDoc ? await readNextWhole(nextDoc, (b) => load(nextPath(cat.name, state.package, state.channel, b)).catch(() => null)) : null;
    writeOpURL(push);
    const model = ops.model;
    const where = state.view === 'package' ? `${state.package} (all channels)` : `${state.package} · ${state.channel}`;
    ctx.setStatus(`${where}: ${countOf(model.nodes.filter((n) => !n.external).length, 'bundle')}, ${countOf(model.edges.length, 'edge')}`);
    renderOpDetails(entries);
    const panels = performance.now() - t1;
    const drawn = await drawGraph(gPath);
    if (!drawn) return; // superseded
    ctx.rendered({ opsDocs: t1 - t0, panels });
  }

  // ---- package list (virtualised) ----------------------------------------------

  // renderPackageList lists the catalog's packages the filter keeps: only
  // the rows in view (and a few around) are in the DOM, so a catalog of
  // thousands of packages costs a few dozen buttons. toSelection scrolls
  // the selected package into view.
  function renderPackageList(toSelection) {
    const all = (ops.catalog && ops.catalog.packages) || [];
    ops.shown = filterNames(all, state.q);
    $('op-count').textContent = state.q ? `${ops.shown.length} of ${countOf(all.length, 'package')}` : countOf(all.length, 'package');
    const list = $('op-packages');
    list.firstElementChild.style.height = `${ops.shown.length * OP_ROW}px`;
    if (toSelection) {
      const i = ops.shown.indexOf(state.package);
      const h = list.clientHeight;
      if (i >= 0 && (i * OP_ROW < list.scrollTop || (i + 1) * OP_ROW > list.scrollTop + h)) list.scrollTop = Math.max(0, i * OP_ROW - h / 2);
    }
    renderRows();
  }

  function renderRows() {
    const list = $('op-packages');
    const { start, end } = visibleRange(list.scrollTop, list.clientHeight || 800, OP_ROW, ops.shown.length);
    let html = '';
    for (let i = start; i < end; i++) {
      const p = ops.shown[i];
      const cur = p === state.package ? ' aria-current="true"' : '';
      html += `<button type="button" data-package="${escapeHTML(p)}" style="top:${i * OP_ROW}px"${cur}>${escapeHTML(p)}</button>`;
    }
    list.firstElementChild.innerHTML = html;
  }

  // ---- details -------------------------------------------------------------------

  function versionOf(name) {
    const i = ops.model ? ops.model.index.get(name) : undefined;
    const n = i === undefined ? null : ops.model.nodes[i];
    if (n && n.version) return n.label;
    const pn = (ops.pkgDoc.nodes || []).find((x) => x.name === name);
    return pn ? pn.version : name;
  }

  const viaBadges = (via) => via.map((t) => el('span', { class: `badge edge-${t}`, text: t }));
  const bundleButton = (name, entries) => (entries.includes(name)
    ? el('button', { type: 'button', class: 'to', 'data-select-bundle': name, title: `${name}: see its updates`, text: versionOf(name) })
    : el('span', { class: 'to', title: name, text: versionOf(name) }));

  function renderOpDetails(entries) {
    const pkg = ops.pkgDoc;
    const box = $('op-details');
    const channelItems = (pkg.channels || []).map((c) => {
      const li = el('li', { 'data-channel': c.name, 'data-head': c.head || '' },
        el('button', { type: 'button', class: 'channel', 'data-select-channel': c.name, text: c.name }),
        el('span', { class: 'head', title: c.head, text: `head ${versionOf(c.head)}` }),
        el('span', { class: 'muted', text: countOf(c.entries, 'entry', 'entries') }),
        c.name === pkg.defaultChannel ? el('span', { class: 'badge', text: 'default' }) : null,
        c.deprecated ? el('span', { class: 'badge deprecated', text: 'deprecated' }) : null);
      if (c.name === state.channel) li.setAttribute('aria-current', 'true');
      if (c.deprecated) li.append(el('div', { class: 'deprecation', text: c.deprecated }));
      return li;
    });
    const installedOptions = [new Option(entries.length ? `— pick the installed version (${countOf(entries.length, 'entry', 'entries')}) —` : '— no entry —', '')];
    for (const name of entries) {
      const n = (pkg.nodes || []).find((x) => x.name === name) || { name };
      const notes = [];
      if ((pkg.channels || []).some((c) => c.name === state.channel && c.head === name)) notes.push('head');
      if (n.deprecated) notes.push('deprecated');
      const label = `${n.version || name}${notes.length ? ` (${notes.join(', ')})` : ''}`;
      const o = new Option(label, name);
      o.title = name;
      installedOptions.push(o);
    }
    const installed = el('select', { id: 'op-installed', 'aria-label': 'Installed version' }, ...installedOptions);
    installed.value = state.installed;
    const deps = deprecationsOf(pkg);
    const skipped = skippedByV0(ops.model);
    box.replaceChildren(...[
      el('h2', { id: 'op-package', text: state.package }),
      pkg.deprecated ? el('p', { id: 'op-package-deprecated', class: 'deprecation', text: `Deprecated: ${pkg.deprecated}` }) : null,
      el('dl', { class: 'meta' },
        el('dt', { text: 'Catalog' }), el('dd', { text: state.catalog }),
        el('dt', { text: 'Default channel' }), el('dd', { text: pkg.defaultChannel || '' }),
        el('dt', { text: 'Bundles' }), el('dd', { text: String((pkg.nodes || []).length) })),
      el('h3', { text: `Channels (${(pkg.channels || []).length})` }),
      el('ul', { id: 'op-channels', class: 'channels' }, ...channelItems),
      el('h3', { text: `Installed from ${state.channel}` }),
      installed,
      renderNext(entries),
      el('h3', { text: `Deprecations (${deps.length})` }),
      deps.length ? el('ul', { id: 'op-deprecations', class: 'plain' }, ...deps.map((d) => el('li', { 'data-kind': d.kind, 'data-name': d.name },
        el('span', { class: 'badge deprecated', text: d.kind }), ' ', el('code', { text: d.name }), el('div', { class: 'deprecation', text: d.message }))))
        : el('p', { id: 'op-deprecations', class: 'muted', text: 'None.' }),
      el('h3', { text: `Skipped by OLM v0 ${state.view === 'package' ? 'in every channel listing them' : `in ${state.channel}`} (${skipped.length})` }),
      skipped.length ? el('ul', { id: 'op-skipped', class: 'plain' }, ...skipped.map((name) => el('li', { 'data-name': name }, el('code', { text: name }))))
        : el('p', { id: 'op-skipped', class: 'muted', text: 'None: OLM v0 can land on every bundle.' }),
    ].filter(Boolean));
  }

  // hopDependencies says what OLM v0 resolves for a hop's bundle: each
  // dependency with the bundle picked for it (installed, or from which
  // catalog) or why none, and the providers installed with the hop.
  function hopDependencies(h) {
    if (!(h.dependencies || []).length && !(h.providers || []).length) return [];
    const deps = h.dependencies.map((d) => el('li', { class: 'dependency', 'data-pick': d.pick ? d.pick.bundle : '' },
      `requires an operator ${d.text}: `, d.pick ? `${d.pick.bundle}${d.pick.installed ? ' (installed)' : ` from catalog ${d.pick.catalog}`}` : el('span', { class: 'nopath', text: d.message })));
    const more = h.providersTotal > h.providers.length ? ` (and ${h.providersTotal - h.providers.length} more)` : '';
    const provs = h.providers.length ? [el('li', { class: 'providers' }, `installs ${h.providers.map((p) => `${p.bundle} from catalog ${p.catalog}`).join(', ')}${more}`)] : [];
    return [el('ul', { class: 'plain hop-dependencies' }, ...deps, ...provs)];
  }

  // renderNext shows next/<P>/<CH>/<B>.json of the installed bundle.
  function renderNext(entries) {
    const n = ops.next;
    if (!n) return el('p', { id: 'op-next', class: 'muted', text: 'Pick the version a cluster runs (here or in the graph) to see what OLM v0 and OLM v1 update it to.' });
    const v0 = n.v0, v1 = n.v1;
    const v0Box = el('div', { id: 'op-v0', 'data-next': v0.next, 'data-head': v0.head, 'data-reaches-head': String(v0.reachesHead) });
    // OLM v0 stops before a Prohibited bundle (legacy olm.deprecated):
    // the resolver never installs it, so the install stays at st.at.
    const st = v0.stranded;
    const strandedBox = st ? el('p', { id: 'op-v0-stranded', class: 'nopath', 'data-bundle': st.bundle, 'data-at': st.at, 'data-property': st.property },
      el('span', { text: 'Stranded: ' }), bundleButton(st.bundle, entries), ' ', el('span', { class: 'badge refused', text: 'Prohibited' }),
      ` has the legacy ${st.property} property: OLM v0 never installs it, so ${st.at === n.installed ? 'the installed bundle' : versionOf(st.at)} stays.`,
      el('div', { class: 'deprecation', text: st.message })) : null;
    if (v0.error) v0Box.append(el('p', { class: 'nopath', text: v0.error }));
    else if (!v0.next) {
      v0Box.append(st ? strandedBox : el('p', { class: 'summary', text: n.installed === v0.head ? 'No update: the installed bundle is the channel head.' : `No update: no entry of ${state.channel} has an edge from it; it never reaches the head ${versionOf(v0.head)}.` }));
    } else {
      v0Box.append(el('p', { class: 'row' }, el('span', { text: 'Next: ' }), bundleButton(v0.next, entries), ' ', ...viaBadges(v0.nextVia)));
      v0Box.append(el('p', { class: v0.reachesHead ? 'summary' : 'nopath', text: v0.reachesHead
        ? `${countOf(v0.path.length, 'hop')} to the head ${versionOf(v0.head)}`
        : `${countOf(v0.path.length, 'hop')}, then stuck short of the head ${versionOf(v0.head)}` }));
      v0Box.append(el('ol', { id: 'op-v0-path', class: 'hops' }, ...v0.path.map((h) => el('li', { 'data-name': h.name, 'data-via': h.via.join(','), 'data-providers': (h.providers || []).map((p) => `${p.bundle}@${p.catalog}`).join(',') },
        bundleButton(h.name, entries), ' ', ...viaBadges(h.via), ...hopDependencies(h)))));
      if (strandedBox) v0Box.append(strandedBox);
    }
    // OLM v0 held by dependencies (a catalog set): no candidate's
    // dependencies can be satisfied, so the install stays at held.at.
    if (v0.held) v0Box.append(el('p', { id: 'op-v0-held', class: 'nopath', 'data-at': v0.held.at }, el('span', { text: 'Held: ' }), v0.held.message));
    const ref = v1.refusal;
    const v1Box = el('div', { id: 'op-v1', 'data-pick': v1.pick, 'data-refused': ref ? ref.bundle : '', 'data-catalog': v1.catalog });
    if (v1.catalog || v1.perCatalog.length) {
      // Several catalogs of the tree have the package: OLM v1 chooses
      // across them (non-deprecated first, then the highest priority; a
      // tie is an error).
      v1Box.append(el('p', { id: 'op-v1-catalog', class: 'row' }, el('span', { text: v1.catalog ? `From catalog ${v1.catalog}, of ${countOf(v1.perCatalog.length, 'catalog')}:` : `No catalog wins, of ${countOf(v1.perCatalog.length, 'catalog')}:` })));
      v1Box.append(el('ul', { id: 'op-v1-catalogs', class: 'plain' }, ...v1.perCatalog.map((c) => el('li', { 'data-catalog': c.catalog, 'data-won': String(c.catalog === v1.catalog) },
        el('code', { text: c.catalog }), ` priority ${c.priority}: `,
        c.found ? `${countOf(c.candidates, 'candidate')}${c.first ? `, first ${versionOf(c.first)}` : ''}` : 'no such package',
        c.catalog === v1.catalog ? ' ' : null, c.catalog === v1.catalog ? el('span', { class: 'badge pick', text: 'chosen' }) : null))));
    }
    if (ref) {
      // operator-controller resolved to a bundle that declares a
      // dependency and refuses it: no pick, no fallback to an older one.
      v1Box.append(el('p', { id: 'op-v1-refusal', class: 'nopath', 'data-bundle': ref.bundle, 'data-property': ref.property },
        el('span', { text: 'Refused: resolves to ' }), bundleButton(ref.bundle, entries), ` which declares ${ref.property}; operator-controller fails the resolution, with no fallback to an older bundle, so the installed bundle stays.`,
        el('div', { class: 'deprecation', text: ref.message })));
    }
    if (v1.error && !ref) v1Box.append(el('p', { class: 'nopath', text: v1.error }));
    else {
      if (!ref) v1Box.append(el('p', { class: 'summary', text: !v1.pick ? 'No candidate.' : v1.pickInstalled ? 'Stays on the installed bundle.' : `Picks ${versionOf(v1.pick)}.` }));
      v1Box.append(el('ol', { id: 'op-v1-candidates', class: 'hops' }, ...v1.candidates.map((c) => {
        const li = el('li', { 'data-name': c.name, 'data-installed': String(c.installed), 'data-pick': String(c.name === v1.pick), 'data-refused': String(!!ref && c.name === ref.bundle) },
          bundleButton(c.name, entries), ' ',
          c.name === v1.pick ? el('span', { class: 'badge pick', text: 'pick' }) : null,
          ref && c.name === ref.bundle ? el('span', { class: 'badge refused', text: `refused: ${ref.property}` }) : null,
          c.installed ? el('span', { class: 'badge', text: 'installed' }) : null,
          c.deprecated ? el('span', { class: 'badge deprecated', text: 'deprecated' }) : null,
          ...viaBadges(c.via));
        if (c.deprecated) li.append(el('div', { class: 'deprecation', text: c.deprecated }));
        return li;
      })));
      if (v1.candidatesTotal > v1.candidates.length) {
        v1Box.append(el('p', { id: 'op-v1-more', class: 'summary', text: `The first ${v1.candidates.length} of ${countOf(v1.candidatesTotal, 'candidate')} (a next/ file lists at most ${v1.candidates.length}).` }));
      }
    }
    return el('section', { id: 'op-next' },
      el('h3', { text: 'OLM v0 (Subscription)' }), v0Box,
      el('h3', { text: `OLM v1 (ClusterExtension, channel ${state.channel})` }), v1Box,
      el('details', { class: 'semantics' }, el('summary', { text: 'What these answers assume' }),
        el('p', { text: v0.semantics }), el('p', { text: v1.semantics })));
  }

  // ---- graph -----------------------------------------------------------------------

  function ensureCy() {
    if (!ops.cyReady) ops.cyReady = ctx.cytoscapeLoading.then(setupOpCy, (err) => ctx.setStatus(err.message, true));
    return ops.cyReady;
  }

  function setupOpCy() {
    ops.cy = cytoscape({
      container: $('op-cy'),
      elements: [],
      minZoom: 0.02,
      maxZoom: 4,
      boxSelectionEnabled: false,
      textureOnViewport: true,
      style: [
        { selector: 'node', style: {
          shape: 'round-rectangle', width: 'data(w)', height: 22, label: 'data(label)',
          'text-valign': 'center', 'text-halign': 'center', 'font-size': 11, color: '#1d2329',
          'background-color': '#eef2f6', 'border-width': 1, 'border-color': '#9aa7b4', 'min-zoomed-font-size': 6,
        } },
        { selector: 'node.head', style: { 'border-width': 4, 'border-style': 'double', 'border-color': '#1d2329' } },
        { selector: 'node.deprecated', style: { 'background-color': '#fbd9b5' } },
        { selector: 'node.skipped', style: { 'border-color': '#b00020', 'border-style': 'dashed', 'border-width': 2 } },
        { selector: 'node.external', style: { 'background-opacity': 0, 'border-style': 'dashed', 'border-color': '#9aa7b4', color: '#5f6b76' } },
        { selector: 'node.other', style: { opacity: 0.5 } },
        { selector: 'node.onpath', style: { 'outline-width': 3, 'outline-color': '#0b62d6', 'outline-offset': 2 } },
        { selector: 'node.pick', style: { 'underlay-color': '#1f8a3b', 'underlay-padding': 7, 'underlay-opacity': 0.45, 'underlay-shape': 'round-rectangle' } },
        { selector: 'node.refused', style: { 'border-color': '#b00020', 'border-width': 3, 'border-style': 'solid', 'background-color': '#f8d7da' } },
        { selector: 'node.installed', style: { 'background-color': '#0b62d6', color: '#fff', 'font-weight': 'bold' } },
        { selector: 'edge', style: {
          width: 1.4, 'line-color': '#5f6b76', 'target-arrow-color': '#5f6b76', 'target-arrow-shape': 'triangle',
          'curve-style': 'unbundled-bezier', 'control-point-distances': 'data(cpd)', 'control-point-weights': 0.5, 'arrow-scale': 0.8,
        } },
        { selector: 'edge.skips', style: { 'line-style': 'dashed', 'line-color': '#7a5cff', 'target-arrow-color': '#7a5cff' } },
        { selector: 'edge.skipRange', style: { 'line-style': 'dotted', width: 1.2, 'line-color': '#c25e00', 'target-arrow-color': '#c25e00', opacity: 0.7 } },
        { selector: 'edge.other', style: { opacity: 0.2 } },
        { selector: 'edge.pick', style: { width: 3, 'line-color': '#1f8a3b', 'target-arrow-color': '#1f8a3b', opacity: 1, 'z-index': 9 } },
        { selector: 'edge.onpath', style: { width: 4, 'line-color': '#0b62d6', 'target-arrow-color': '#0b62d6', opacity: 1, 'z-index': 10 } },
      ],
    });
    if (ctx.timings.cytoscape === undefined) ctx.timings.cytoscape = performance.now();
    ops.cy.on('tap', 'node', (ev) => {
      const id = ev.target.id();
      const i = ops.model.index.get(id);
      const n = i === undefined ? null : ops.model.nodes[i];
      if (!n || n.external || id === state.installed) return;
      const channels = (ops.pkgDoc.nodes || []).find((x) => x.name === id)?.channels || [];
      if (channels.includes(state.channel)) changeOps({ installed: id });
      else if (channels.length) changeOps({ channel: channels[0], installed: id });
    });
  }

  // show is called when the view becomes visible: cytoscape measured its
  // container while hidden.
  function show() {
    if (ops.cy) {
      ops.cy.resize();
      if (ops.cy.elements().length) ops.cy.fit(undefined, 20);
    }
  }

  // drawGraph draws the graph at gPath (ops.model): laid out and added
  // once per graph, then only the classes of the installed bundle, OLM v0's
  // path and OLM v1's pick change. It returns false when a newer render
  // superseded it.
  async function drawGraph(gPath) {
    const seq = ++drawSeq;
    await ensureCy();
    const cy = ops.cy;
    if (!cy) return true;
    const model = ops.model;
    const t0 = performance.now();
    let fresh = false;
    if (ops.graphKey !== gPath) {
      let pos = ops.layouts.get(gPath);
      if (!pos) {
        pos = await layOut(model, seq);
        if (pos === null || seq !== drawSeq) return false;
        ops.layouts.set(gPath, pos);
      }
      ctx.timings.layout = performance.now() - t0;
      const t1 = performance.now();
      const nodes = model.nodes.map((n) => {
        const cls = [];
        if (n.head) cls.push('head');
        if (n.deprecated) cls.push('deprecated');
        if (n.skipped) cls.push('skipped');
        if (n.external) cls.push('external');
        const p = pos[n.id] || [0, 0];
        return { group: 'nodes', data: { id: n.id, label: n.label, w: labelWidth(n.label) }, position: { x: p[0], y: p[1] }, classes: cls.join(' ') };
      });
      const cpd = edgeCurves(model, pos, OP_RANK_STEP);
      const edges = model.edges.map((e, k) => ({ group: 'edges', data: { id: e.id, source: e.from, target: e.to, type: e.type, range: e.range, cpd: cpd[k] }, classes: e.cls }));
      // Nodes styled before their edges exist (see renderGraph above).
      cy.batch(() => {
        cy.elements().remove();
        cy.add(nodes);
      });
      cy.nodes().boundingBox();
      cy.batch(() => cy.add(edges));
      const head = state.view === 'package' ? ((ops.pkgDoc.channels || []).find((c) => c.name === state.channel) || {}).head : model.doc.head;
      fitAround(cy, nodes, state.installed || head);
      ops.graphKey = gPath;
      ctx.timings.drawStart = t1;
      ctx.timings.add = performance.now() - t1;
      fresh = true;
    }
    markSelection(cy, model, fresh);
    if (!fresh) reveal(cy, state.installed);
    const counts = edgeCounts(model);
    $('op-graph-note').textContent = `${countOf(model.edges.length, 'edge')}: ${counts.replaces} replaces, ${counts.skips} skips, ${counts.skipRange} skipRange` +
      (model.nodes.some((n) => n.external) ? '; dashed grey: named by an edge, not in the catalog' : '');
    if (fresh) {
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      ctx.timings.draw = performance.now() - ctx.timings.drawStart;
    }
    return seq === drawSeq;
  }

  async function layOut(model, seq) {
    if (model.nodes.length > OP_LAYOUT_MAX_NODES) return ladderLayout(model, OP_RANK_STEP);
    const req = {
      id: `op${seq}`,
      nodes: model.nodes.map((n) => [n.id, labelWidth(n.label), 22]),
      edges: layoutEdges(model),
      rankdir: 'BT', ranksep: OP_RANK_STEP - 22, nodesep: 18,
    };
    try {
      return await ctx.workerLayout(req, () => ladderLayout(model, OP_RANK_STEP));
    } catch {
      return ladderLayout(model, OP_RANK_STEP);
    }
  }

  // markSelection sets the classes of what depends on the installed
  // bundle (installed, onpath, pick) and, in the package view, on the
  // channel (other), touching only the elements whose classes change
  // (fresh: the elements were just added, none is marked).
  function markSelection(cy, model, fresh) {
    const marks = ops.next ? pathEdges(model, ops.next) : { v0: new Set(), v1: new Set(), v0Nodes: [] };
    const pick = ops.next && ops.next.v1.pick && !ops.next.v1.pickInstalled ? ops.next.v1.pick : '';
    const want = new Map(); // element id → classes it gets
    const add = (id, c) => { const l = want.get(id); if (l) l.push(c); else want.set(id, [c]); };
    if (state.installed) add(state.installed, 'installed');
    for (const id of marks.v0Nodes) add(id, 'onpath');
    if (pick) add(pick, 'pick');
    // What a runtime refuses: OLM v1's refused pick, OLM v0's Prohibited
    // next bundle.
    if (ops.next && ops.next.v1.refusal) add(ops.next.v1.refusal.bundle, 'refused');
    if (ops.next && ops.next.v0.stranded) add(ops.next.v0.stranded.bundle, 'refused');
    for (const id of marks.v0) add(id, 'onpath');
    for (const id of marks.v1) add(id, 'pick');
    const otherKey = state.view === 'package' ? `${ops.graphKey}\n${state.channel}` : '';
    const prev = fresh ? new Map() : ops.marked || new Map();
    cy.batch(() => {
      for (const id of new Set([...prev.keys(), ...want.keys()])) {
        const before = prev.get(id) || [], after = want.get(id) || [];
        const e = cy.getElementById(id);
        if (e.empty()) continue;
        for (const c of ['installed', 'onpath', 'pick', 'refused']) {
          if (before.includes(c) !== after.includes(c)) e.toggleClass(c, after.includes(c));
        }
      }
      if (fresh || otherKey !== ops.otherKey) {
        const pkgView = state.view === 'package';
        cy.nodes().forEach((node) => {
          const n = model.nodes[model.index.get(node.id())];
          node.toggleClass('other', pkgView && !n.external && !(n.channels || []).includes(state.channel));
        });
        cy.edges().forEach((edge) => {
          const e = model.edges[Number(edge.id().slice(1))];
          edge.toggleClass('other', pkgView && !!e.channels && !e.channels.includes(state.channel));
        });
        ops.otherKey = otherKey;
      }
    });
    ops.marked = want;
  }

  // fitAround fits the viewport to the nodes from their known positions and
  // sizes (cy.fit() would measure every label first), but not below
  // OP_MIN_FIT_ZOOM, where labels are unreadable: a long channel is then
  // shown around focus (the installed bundle, else the head).
  function fitAround(cy, nodes, focus) {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    let at = null;
    for (const n of nodes) {
      const { x, y } = n.position, w = n.data.w / 2;
      x0 = Math.min(x0, x - w); x1 = Math.max(x1, x + w);
      y0 = Math.min(y0, y - 11); y1 = Math.max(y1, y + 11);
      if (n.data.id === focus) at = n.position;
    }
    if (x0 === Infinity) return;
    const pad = 20, W = cy.width(), H = cy.height();
    const zoom = Math.min(1.5, Math.max(cy.minZoom(), Math.min((W - 2 * pad) / (x1 - x0 || 1), (H - 2 * pad) / (y1 - y0 || 1))));
    if (zoom >= OP_MIN_FIT_ZOOM || !at) {
      cy.viewport({ zoom, pan: { x: W / 2 - zoom * (x0 + x1) / 2, y: H / 2 - zoom * (y0 + y1) / 2 } });
      return;
    }
    // The focus in the middle, unless that shows space beyond the graph.
    const centre = (v, lo, hi, half) => (hi - lo <= 2 * half ? (lo + hi) / 2 : Math.min(Math.max(v, lo + half), hi - half));
    const z = OP_MIN_FIT_ZOOM;
    const cx = centre(at.x, x0, x1, (W / 2 - pad) / z), cyy = centre(at.y, y0, y1, (H / 2 - pad) / z);
    cy.viewport({ zoom: z, pan: { x: W / 2 - z * cx, y: H / 2 - z * cyy } });
  }

  // reveal pans to the bundle id when it is out of view.
  function reveal(cy, id) {
    const n = id && cy.getElementById(id);
    if (!n || n.empty()) return;
    const p = n.renderedPosition(), W = cy.width(), H = cy.height();
    if (p.x < 20 || p.y < 20 || p.x > W - 20 || p.y > H - 20) cy.pan({ x: cy.pan().x + W / 2 - p.x, y: cy.pan().y + H / 2 - p.y });
  }

  return { state, ops, apply: applyOps, show };
}

// ---- plan view ---------------------------------------------------------------

// createPlan sets up the plan view: a cluster's update path (the releases
// view's graphs and planPath) with, for each minor it crosses, what every
// installed operator needs, computed from the tree's catalogs by
// computePlan (graph.js, mirroring catalog/plan: a catalog set per minor,
// OLM v0 in the operator's catalog, OLM v1 across the minor's catalogs). The plan is
// exposed as JSON in #plan-out[data-plan] for tests.
function createPlan() {
  const state = { arch: '', channel: '', from: '', to: '', eus: false, olm: 'v0', ops: '', cats: '' };
  const view = { state, plan: null, graphs: new Map(), catalogs: new Map() };
  const catalogNames = () => (app.summary.catalogs || []).map((c) => c.name);
  const loadText = (path) => fetch(path).then((res) => {
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
    return res.text();
  });
  const catalog = (name) => {
    if (!view.catalogs.has(name)) view.catalogs.set(name, new PlanCatalog(name, fetchJSON, loadText));
    return view.catalogs.get(name);
  };
  const docOf = (arch, channel, meta) => {
    const key = `${arch}/${channel}`;
    if (!view.graphs.has(key)) {
      const p = fetchJSON(meta.path || graphPath(arch, channel));
      p.catch(() => view.graphs.delete(key));
      view.graphs.set(key, p);
    }
    return view.graphs.get(key);
  };
  // graphOf is the graph of channel, or with --via-eus's EUS channels
  // (extra, those the arch has) the graph of their union (generator/path
  // Union), each union built once.
  const unions = new Map();
  const graphOf = async (arch, channel, graphs, extra = []) => {
    const names = [channel, ...extra.filter((c) => c !== channel && graphs.has(c))];
    const key = `${arch}/${names.join('+')}`;
    if (!unions.has(key)) {
      const p = Promise.all(names.map((c) => docOf(arch, c, graphs.get(c)))).then((docs) => new Graph(unionDocs(docs)));
      p.catch(() => unions.delete(key));
      unions.set(key, p);
    }
    const g = await unions.get(key);
    g.channels = names;
    return g;
  };
  const changePlan = (patch) => apply({ ...state, ...patch }, true);
  $('plan-arch').addEventListener('change', () => changePlan({ arch: $('plan-arch').value }));
  $('plan-channel').addEventListener('change', () => changePlan({ channel: $('plan-channel').value, from: '', to: '' }));
  $('plan-from').addEventListener('change', () => changePlan({ from: $('plan-from').value }));
  $('plan-to').addEventListener('change', () => changePlan({ to: $('plan-to').value }));
  $('plan-eus').addEventListener('change', () => changePlan({ eus: $('plan-eus').checked }));
  $('plan-olm').addEventListener('change', () => changePlan({ olm: $('plan-olm').value }));
  $('plan-catalogs').addEventListener('change', (ev) => {
    const sel = ev.target.closest('select[data-minor]');
    if (!sel) return;
    const picked = [...sel.selectedOptions].map((o) => o.value).filter(Boolean);
    const map = { ...view.mapping, [sel.dataset.minor]: picked };
    if (!picked.length) delete map[sel.dataset.minor];
    changePlan({ cats: encodeCatalogMap(map) });
  });
  const runOps = () => {
    const { installs, error } = parseInstalls($('plan-ops').value);
    if (error) {
      $('plan-note').textContent = `Operators: ${error}`;
      return;
    }
    $('plan-note').textContent = '';
    changePlan({ ops: encodeInstalls(installs) });
  };
  $('plan-run').addEventListener('click', runOps);
  $('plan-ops').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) runOps();
  });

  function apply(want, push = false) {
    return enqueue(() => applyNow(want, push));
  }

  async function applyNow(want, push) {
    setMode('plan');
    const { arch, channel, graphs, graph } = resolve(want);
    Object.assign(state, { arch, channel, eus: !!want.eus, olm: want.olm === 'v1' ? 'v1' : 'v0', ops: want.ops || '', cats: want.cats || '' });
    fillSelect($('plan-arch'), app.summary.arches || [], arch);
    fillSelect($('plan-channel'), (app.summary.channels || []).filter((c) => graphs.has(c)), channel);
    $('plan-eus').checked = state.eus;
    $('plan-olm').value = state.olm;
    const out = $('plan-out');
    if (!graph) {
      out.replaceChildren(el('p', { class: 'muted', text: 'This tree has no release graph.' }));
      return;
    }
    // With EUS-to-EUS, the pickers offer the releases of the channel and
    // of every EUS channel; the path is searched in the union of the
    // channel and the EUS channels between the two minors (--via-eus).
    const channels = app.summary.channels || [];
    const picker = await graphOf(arch, channel, graphs, state.eus ? channels.filter((c) => /^eus-\d+\.\d+$/.test(c)) : []);
    const versions = sortedVersions(picker);
    const known = (v) => picker.index.has(v);
    state.from = known(want.from) ? want.from : defaultVersion(picker);
    state.to = known(want.to) && want.to !== state.from ? want.to : '';
    fillSelect($('plan-from'), versions, state.from);
    const targets = versions.filter((v) => v !== state.from);
    fillSelect($('plan-to'), ['', ...targets], state.to, ['— pick a target —', ...targets]);
    const installs = decodeInstalls(state.ops);
    if (!sameInstalls(parseInstalls($('plan-ops').value).installs, installs)) {
      $('plan-ops').value = installs.map((x) => `- {package: ${x.package}${x.channel ? `, channel: ${x.channel}` : ''}, version: ${x.version}${x.catalog ? `, catalog: ${x.catalog}` : ''}}`).join('\n');
    }
    const url = `${location.pathname}${planSearch(state)}`;
    if (url !== location.pathname + location.search) {
      if (push) history.pushState(null, '', url);
      else history.replaceState(null, '', url);
    }
    setStatus(`Plan · ${channel} · ${arch}`);
    const g = state.eus && state.to ? await graphOf(arch, channel, graphs, eusChannels(channels, state.from, state.to)) : await graphOf(arch, channel, graphs);
    await renderPlan(g, installs);
    rendered();
  }

  async function renderPlan(g, installs) {
    const out = $('plan-out');
    view.plan = null;
    delete out.dataset.plan;
    if (!state.to) {
      view.mapping = {};
      $('plan-catalogs').replaceChildren();
      out.replaceChildren(el('p', { class: 'muted', text: 'Pick the release to reach, then list the installed operators.' }));
      return;
    }
    const pp = g.planPath(state.from, state.to);
    const rel = { from: state.from, to: state.to, channel: state.channel, channels: g.channels, arch: state.arch, found: pp.found && !pp.error, hops: pp.found ? pp.hops : [] };
    const { minors } = planCrossings(rel);
    const names = catalogNames();
    // Each minor's catalog set (plan --catalog-set): by default every
    // catalog whose name ends with the minor, each named in the set
    // without it (ocp-v4-22 is catalog "ocp" at 4.22) with the priority
    // the tree records (catalog.json priority, from generate
    // --catalog-set).
    const mapping = { ...defaultCatalogSets(names, minors) };
    const chosen = decodeCatalogMap(state.cats, true);
    for (const m of minors) {
      const k = `${m.major}.${m.minor}`;
      const picked = (chosen[k] || []).filter((n) => names.includes(n));
      if (picked.length) mapping[k] = picked;
    }
    view.mapping = mapping;
    // Each option says the catalog's set name and recorded priority (a
    // catalog.json that cannot be read shows "?"; the plan says why).
    const priorities = new Map(await Promise.all(names.map((n) => catalog(n).summary().then((x) => [n, x.priority || 0], () => [n, undefined]))));
    $('plan-catalogs').replaceChildren(el('span', { text: 'Catalogs of each minor, a set as on the cluster (default: the catalogs whose names end with v<major>-<minor>; an operator names its catalog, without the minor, when several have its package): ' }),
      ...minors.map((m) => {
        const k = `${m.major}.${m.minor}`;
        const sel = el('select', { 'data-minor': k, size: String(Math.min(4, Math.max(2, names.length))), 'aria-label': `Catalogs of ${k}` });
        sel.multiple = true;
        for (const n of names) {
          const o = el('option', { value: n, text: `${n} (${setName(n)}, priority ${priorities.get(n) ?? '?'})` });
          o.selected = (mapping[k] || []).includes(n);
          sel.append(o);
        }
        return el('label', { text: `${k} ` }, sel);
      }));
    const pathBox = el('div', { id: 'plan-release' });
    if (!rel.found) pathBox.append(el('p', { class: 'blocked', id: 'plan-nopath', text: `No update path from ${state.from} to ${state.to} in ${g.channels.join(' + ')} (${state.arch}).` }));
    else {
      pathBox.append(el('p', { text: `Cluster path in ${g.channels.join(' + ')}: ${plural(pp.hops.length, 'hop')}, ${pp.hops.filter((h) => h.conditional).length} conditional` }),
        el('ol', {}, ...pp.hops.map((h) => el('li', { 'data-from': h.from, 'data-to': h.to, text: `${h.from} → ${h.to}${h.conditional ? ` (conditional: ${h.risks.join(', ')})` : ''}` }))));
    }
    if (!installs.length) {
      out.replaceChildren(pathBox, el('p', { class: 'muted', text: 'List the installed operators and press Plan.' }));
      return;
    }
    let plan;
    try {
      const catalogs = {};
      for (const [k, v] of Object.entries(mapping)) {
        catalogs[k] = await Promise.all(v.map(async (n) => ({ name: setName(n), priority: (await catalog(n).summary()).priority || 0, cat: catalog(n) })));
      }
      plan = await computePlan({ rel, catalogs, operators: installs, viaEUS: state.eus, olm: state.olm });
    } catch (err) {
      plan = { error: `cannot read the catalogs: ${err.message}` };
    }
    view.plan = plan;
    out.dataset.plan = JSON.stringify(plan);
    if (plan.error) {
      out.replaceChildren(pathBox, el('p', { class: 'blocked', id: 'plan-error', text: plan.error }));
      return;
    }
    const head = el('p', { id: 'plan-verdict', class: plan.blocked ? 'blocked' : '',
      text: `${plan.minors.join(' → ')}: ${plan.blocked ? `BLOCKED (${plural(plan.blockers.length, 'blocker')})` : 'no blocker'}` });
    // The page mirrors catalog/plan without OLM v0's dependency
    // resolution (the solver is not ported): say so, and where the
    // complete answer is.
    const deps = plan.olm === 'v0' && plan.operators.length && plan.hops.length
      ? [el('p', { id: 'plan-deps-note', class: 'muted', text: 'OLM v0 dependencies (olm.gvk.required, olm.package.required, olm.label.required, olm.constraint) are not checked on this page: a hop may still be blocked by a dependency the next minor\'s catalogs cannot satisfy. Run upgraph plan for the plan with them resolved.' })]
      : [];
    out.replaceChildren(head, ...deps, pathBox, ...plan.hops.map(renderHop));
  }

  function renderHop(h, i) {
    const eus = h.eus ? ` · EUS ${h.eus.from} → ${h.eus.to}, step ${h.eus.step}${h.eus.step === 2 ? ' (worker pools paused)' : ''}` : '';
    const rows = h.operators.map((o) => {
      const st = o.state === 'update-required' ? `update to ${o.update.to.name} (${o.update.to.version}) first: ${o.update.hops.map((x) => x.to).join(' → ')}`
        : o.state === 'blocked' ? `blocked${o.path && o.path.message ? `: ${o.path.message}` : ''}${o.otherChannels.length ? `; channel ${o.otherChannels.map((c) => `${c.channel} reaches ${c.to.name}`).join(', ')}` : ''}` : 'compatible';
      const n = o.next;
      const nx = n.state === 'reaches-head' ? `reaches the head ${n.route.head}${n.route.hops.length ? ` in ${plural(n.route.hops.length, 'hop')}` : ''}`
        : n.state === 'stranded' ? `stranded (${n.route.message || n.route.reason || 'stops short of the head'})`
          : n.state === 'channel-gone' ? `channel gone (has ${n.channels.join(', ')}; default ${n.defaultChannel})` : 'package gone';
      const max = o.installed.maxOpenShiftVersionError ? 'invalid' : o.installed.maxOpenShiftVersion || '—';
      return el('tr', { 'data-package': o.package, 'data-state': o.state, 'data-next': n.state,
        'data-reason': (o.path && o.path.reason) || '', 'data-next-reason': (n.route && n.route.reason) || '' },
        el('td', { text: `${o.package} (${o.channel})` }),
        el('td', { text: `${o.installed.name} · max ${max}` }),
        el('td', { class: `st-${o.state}`, text: st, title: o.message }),
        el('td', { text: `${n.catalog}: ${nx}` }),
        el('td', { text: o.deprecations.map((d) => `${d.schema}${d.name ? `/${d.name}` : ''}: ${d.message}`).join('; ') || '—' }));
    });
    return el('div', { class: 'hop', 'data-hop': `${h.from}-${h.to}` },
      el('h3', { class: h.blocked ? 'blocked' : '', text: `Hop ${i + 1}: ${h.from} → ${h.to} (${h.releaseFrom} → ${h.releaseTo})${h.blocked ? ': BLOCKED' : ''}${eus}` }),
      el('p', { class: 'muted', text: `OLM blocks the hop while an installed bundle's olm.maxOpenShiftVersion is below ${h.olmChecks}; updates come from ${h.fromCatalog}, then ${h.toCatalog}.` }),
      el('table', {}, el('tr', {}, ...['operator', 'installed', `before the hop (${h.fromCatalog})`, 'after the hop', 'deprecations ahead'].map((t) => el('th', { text: t }))), ...rows));
  }

  return { state, view, apply };
}

function sameInstalls(a, b) {
  return a.length === b.length && a.every((x, i) => x.package === b[i].package && x.channel === b[i].channel && x.version === b[i].version && x.catalog === b[i].catalog);
}

start();
