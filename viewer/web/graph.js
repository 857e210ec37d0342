// Pure graph logic of the viewer: SemVer precedence, file names, the
// channel-graph model and update-path planning, and for the operators view
// its URL state, catalog file names and graph model (the second part). No
// DOM: the page and the Node tests (test/*.test.js) import this same file.

// parseSemver splits a SemVer 2.0 version into its parts, or returns null
// when it is not one (MAJOR.MINOR.PATCH[-PRE][+BUILD], no leading zeros in
// numeric identifiers, non-empty identifiers of [0-9A-Za-z-]).
export function parseSemver(s) {
  const m = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/.exec(s);
  if (!m) return null;
  return { core: [m[1], m[2], m[3]], pre: m[4] === undefined ? [] : m[4].split('.'), build: m[5] === undefined ? '' : m[5] };
}

const isNumeric = (id) => /^\d+$/.test(id);

// compareNumeric compares decimal strings without leading zeros of any
// length (identifiers may exceed 2^53).
function compareNumeric(a, b) {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

// compareIdentifier orders two pre-release identifiers (SemVer 2.0 §11.4):
// numeric ones numerically, alphanumeric ones in ASCII order, numeric
// before alphanumeric.
function compareIdentifier(a, b) {
  const na = isNumeric(a), nb = isNumeric(b);
  if (na && nb) return compareNumeric(a, b);
  if (na) return -1;
  if (nb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

// compareSemver orders by SemVer 2.0 precedence, ignoring build metadata:
// -1, 0 or 1. Strings that are not SemVer sort before every version and
// among themselves by code unit, so the order stays total.
export function compareSemver(a, b) {
  const pa = parseSemver(a), pb = parseSemver(b);
  if (!pa || !pb) {
    if (pa) return 1;
    if (pb) return -1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  for (let i = 0; i < 3; i++) {
    const c = compareNumeric(pa.core[i], pb.core[i]);
    if (c) return c;
  }
  // A version without pre-release has the higher precedence.
  if (!pa.pre.length || !pb.pre.length) {
    return pa.pre.length === pb.pre.length ? 0 : pa.pre.length ? -1 : 1;
  }
  const n = Math.min(pa.pre.length, pb.pre.length);
  for (let i = 0; i < n; i++) {
    const c = compareIdentifier(pa.pre[i], pb.pre[i]);
    if (c) return c;
  }
  return pa.pre.length === pb.pre.length ? 0 : pa.pre.length < pb.pre.length ? -1 : 1;
}

// compareVersions is the total order of the generator's node lists:
// SemVer precedence, then the display string.
export function compareVersions(a, b) {
  return compareSemver(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

// fileName is the per-version file name of a version, as
// generator/views.FileName writes it: '+' becomes '_', an upper-case
// letter X becomes '!x'.
export function fileName(version) {
  return version.replace(/[+A-Z]/g, (c) => (c === '+' ? '_' : '!' + c.toLowerCase())) + '.json';
}

// versionPath is the per-version file of version in a channel × arch.
export function versionPath(arch, channel, version) {
  return `graph/${arch}/${channel}/${fileName(version)}`;
}

// graphPath is the channel × arch graph file.
export function graphPath(arch, channel) {
  return `graph/${arch}/${channel}.json`;
}

// Graph indexes a policy-engine document ({version, nodes, edges,
// conditionalEdges}) for neighbourhood queries and path planning. Node i
// is doc.nodes[i]; out[i] and inn[i] list neighbour indexes, each once.
// An edge a → b is known by the number a * n + b (n nodes). Indexing is
// linear in the edges: the risks of a conditional edge are only gathered
// when asked for (risks), since a large channel has tens of thousands.
export class Graph {
  constructor(doc) {
    this.doc = doc;
    const nodes = (this.nodes = doc.nodes || []);
    const n = nodes.length;
    this.index = new Map();
    for (let i = 0; i < n; i++) {
      if (!this.index.has(nodes[i].version)) this.index.set(nodes[i].version, i);
    }
    const out = (this.out = Array.from({ length: n }, () => []));
    const inn = (this.inn = Array.from({ length: n }, () => []));
    // Plain indexed loops: this runs once, cold, over tens of thousands
    // of edges.
    this.unconditional = new Set();
    const edges = doc.edges || [];
    for (let j = 0; j < edges.length; j++) {
      const a = edges[j][0], b = edges[j][1];
      const key = a * n + b;
      if (Number.isInteger(a) && Number.isInteger(b) && a >= 0 && a < n && b >= 0 && b < n && !this.unconditional.has(key)) {
        this.unconditional.add(key);
        out[a].push(b);
        inn[b].push(a);
      }
    }
    this.edgeCount = this.unconditional.size;
    // conditional: edge → the indexes of the entries listing it, in order.
    this.conditional = new Map();
    const entries = doc.conditionalEdges || [];
    for (let k = 0; k < entries.length; k++) {
      const listedEdges = entries[k].edges || [];
      for (let j = 0; j < listedEdges.length; j++) {
        const e = listedEdges[j];
        const a = this.index.get(e.from), b = this.index.get(e.to);
        if (a === undefined || b === undefined) continue;
        const key = a * n + b;
        const listed = this.conditional.get(key);
        if (listed) {
          if (listed[listed.length - 1] !== k) listed.push(k);
          continue;
        }
        this.conditional.set(key, [k]);
        if (!this.unconditional.has(key)) {
          out[a].push(b);
          inn[b].push(a);
        }
      }
    }
    this.conditionalCount = this.conditional.size;
  }

  // isUnconditional tells whether an unconditional edge joins a → b.
  isUnconditional(a, b) {
    return this.unconditional.has(a * this.nodes.length + b);
  }

  // order returns the node indexes newest first (compareVersions), and
  // rank[i] is the position of node i in it. Computed once.
  order() {
    if (!this.newestFirst) {
      const versions = this.nodes.map((node) => node.version);
      this.newestFirst = versions.map((_, i) => i).sort((a, b) => compareVersions(versions[b], versions[a]) || a - b);
      this.rank = new Int32Array(versions.length);
      this.newestFirst.forEach((i, r) => { this.rank[i] = r; });
    }
    return this.newestFirst;
  }

  version(i) { return this.nodes[i].version; }

  // hop describes the edge a → b: conditional only when no unconditional
  // edge joins them (a cluster takes the recommended update then).
  hop(a, b) {
    if (this.isUnconditional(a, b)) return { from: this.version(a), to: this.version(b), conditional: false, risks: [] };
    return { from: this.version(a), to: this.version(b), conditional: true, risks: this.risks(a, b).map((r) => r.name) };
  }

  // risks returns the risk objects ({name, message, url, matchingRules})
  // of the conditional edge a → b, [] when there is none: one per name
  // (the first definition met, in the order the entries list them),
  // sorted by name, as generator/path lists them.
  risks(a, b) {
    const entries = this.conditional.get(a * this.nodes.length + b);
    if (!entries) return [];
    const names = new Set();
    const risks = [];
    for (const k of entries) {
      for (const r of this.doc.conditionalEdges[k].risks || []) {
        if (!names.has(r.name)) {
          names.add(r.name);
          risks.push(r);
        }
      }
    }
    return risks.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  }

  // reachable returns the indexes reachable from i (i excluded).
  reachable(i) {
    const seen = new Uint8Array(this.nodes.length);
    const queue = [i];
    seen[i] = 1;
    const outl = [];
    for (let q = 0; q < queue.length; q++) {
      for (const b of this.out[queue[q]]) {
        if (!seen[b]) {
          seen[b] = 1;
          queue.push(b);
          outl.push(b);
        }
      }
    }
    return outl;
  }

  // planPath plans the update path from → to: fewest hops; among those,
  // fewest conditional hops; among those, the newest intermediate releases
  // (the intermediate versions compared position by position from the
  // first hop, the higher SemVer winning at the first difference).
  // Ties left after that go to the greater version string. It returns
  // {found, hops: [{from, to, conditional, risks: [names]}]}, plus
  // error: 'unknown-version' when from or to is not a node. This is the
  // algorithm of generator/path (Plan), checked against the same vectors
  // (generator/path/testdata/vectors.json).
  planPath(from, to) {
    const s = this.index.get(from), t = this.index.get(to);
    if (s === undefined || t === undefined) return { found: false, hops: [], error: 'unknown-version' };
    if (s === t) return { found: true, hops: [] };
    const n = this.nodes.length;
    // dist[v]: fewest hops v → t, by a breadth-first search backwards.
    const dist = new Int32Array(n).fill(-1);
    dist[t] = 0;
    const order = [t];
    for (let q = 0; q < order.length && dist[s] < 0; q++) {
      const w = order[q];
      for (const v of this.inn[w]) {
        if (dist[v] < 0) {
          dist[v] = dist[w] + 1;
          order.push(v);
        }
      }
    }
    if (dist[s] < 0) return { found: false, hops: [] };
    const cost = (a, b) => (this.isUnconditional(a, b) ? 0 : 1);
    // cond[v]: fewest conditional hops on a shortest path v → t; order is
    // by non-decreasing dist, so successors come first.
    const cond = new Int32Array(n).fill(-1);
    cond[t] = 0;
    for (const v of order) {
      if (v === t) continue;
      let best = -1;
      for (const w of this.out[v]) {
        if (dist[w] === dist[v] - 1 && cond[w] >= 0) {
          const c = cost(v, w) + cond[w];
          if (best < 0 || c < best) best = c;
        }
      }
      cond[v] = best;
    }
    // Walk from s, each time to the newest successor that keeps both
    // minima: that is the lexicographically newest sequence, since every
    // such successor completes to an optimal path.
    const hops = [];
    for (let v = s; v !== t;) {
      let next = -1;
      for (const w of this.out[v]) {
        if (dist[w] !== dist[v] - 1 || cond[w] < 0 || cost(v, w) + cond[w] !== cond[v]) continue;
        if (next < 0 || compareVersions(this.version(w), this.version(next)) > 0) next = w;
      }
      hops.push(this.hop(v, next));
      v = next;
    }
    return { found: true, hops };
  }
}

// updatesOf reads a per-version document the way a cluster does: the
// updates are the edges leaving the current release, the conditional
// updates the conditional edges leaving it, with their risks.
export function updatesOf(doc, version) {
  const nodes = doc.nodes || [];
  const i = nodes.findIndex((n) => n.version === version);
  const recommended = [];
  const conditional = new Map();
  if (i >= 0) {
    for (const [a, b] of doc.edges || []) if (a === i && nodes[b]) recommended.push(nodes[b].version);
    for (const entry of doc.conditionalEdges || []) {
      for (const e of entry.edges || []) {
        if (e.from !== version) continue;
        if (!conditional.has(e.to)) conditional.set(e.to, []);
        conditional.get(e.to).push(...(entry.risks || []));
      }
    }
  }
  recommended.sort((a, b) => compareVersions(b, a));
  const cond = [...conditional].map(([to, risks]) => ({ to, risks })).sort((a, b) => compareVersions(b.to, a.to));
  return { node: nodes[i], recommended, conditional: cond };
}

// ==== Operators view ===========================================================
// The pure logic of the operators view (app.js createOperators): the URL
// state, the file names of a catalog's files (catalog/views.EncodeName),
// the package list's filter and windowing, the model of a channel or
// package graph (typed edges, heads, bundles OLM v0 skips, deprecations),
// the edges the layout follows and how edges bend, and the reading of a
// next/<P>/<CH>/<B>.json file. The files are described in
// docs/operators.md; the Node tests are in test/olm.test.js.

// ---- URL state ---------------------------------------------------------------

// The operators view's state in the URL, in this order:
// ?catalog=C&package=P&channel=CH&installed=B&view=package&q=FILTER.
export const OP_KEYS = ['catalog', 'package', 'channel', 'installed'];

// isOperatorsURL tells whether a location's query is the operators view's
// (it names a catalog, a package or an installed bundle; `?catalog=` alone
// opens the view on the first catalog).
export function isOperatorsURL(search) {
  const p = new URLSearchParams(search);
  return p.has('catalog') || p.has('package') || p.has('installed');
}

// readOpState reads the operators view's state from a location's query:
// {catalog, package, channel, installed, view: 'channel'|'package', q}.
export function readOpState(search) {
  const p = new URLSearchParams(search);
  const s = {};
  for (const k of OP_KEYS) s[k] = p.get(k) || '';
  s.view = p.get('view') === 'package' ? 'package' : 'channel';
  s.q = p.get('q') || '';
  return s;
}

// opSearch is the query that readOpState reads back as state: `catalog`
// always (so the query is the operators view's), the other keys when set.
export function opSearch(state) {
  const p = new URLSearchParams();
  p.set('catalog', state.catalog || '');
  for (const k of OP_KEYS.slice(1)) if (state[k]) p.set(k, state[k]);
  if (state.view === 'package') p.set('view', 'package');
  if (state.q) p.set('q', state.q);
  return `?${p}`;
}

// ---- file names ---------------------------------------------------------------

// MAX_ENCODED is the longest encoded name; a longer one is "!!" and the
// hex SHA-256 of the name.
export const MAX_ENCODED = 200;

// encodeName is catalog/views.EncodeName: the file name (without
// extension) of a package, channel or bundle name. Over the name's UTF-8
// bytes: [0-9a-z-] kept, '.' kept but as the first byte, '+' → '_', an
// upper-case X → '!x', any other byte → '~hh'; longer than MAX_ENCODED
// once encoded: '!!' and the hex SHA-256 of the name.
export function encodeName(name) {
  const bytes = new TextEncoder().encode(name);
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || (c === 0x2e && i > 0)) out += String.fromCharCode(c);
    else if (c === 0x2b) out += '_';
    else if (c >= 0x41 && c <= 0x5a) out += '!' + String.fromCharCode(c + 0x20);
    else out += '~' + c.toString(16).padStart(2, '0');
  }
  return out.length > MAX_ENCODED ? '!!' + sha256Hex(bytes) : out;
}

// metasName is catalog/metas.Encode: a schema, package or name as the
// metas files name it — encodeName's encoding, but never hashed (a query
// finds its file from the value alone): the '.' of a trailing ".jsonl"
// is '~2e', and beyond MAX_ENCODED bytes the encoding is split into
// directories of MAX_ENCODED bytes, each but the last ending in '~~'.
export function metasName(name) {
  const bytes = new TextEncoder().encode(name);
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || (c === 0x2e && i > 0)) out += String.fromCharCode(c);
    else if (c === 0x2b) out += '_';
    else if (c >= 0x41 && c <= 0x5a) out += '!' + String.fromCharCode(c + 0x20);
    else out += '~' + c.toString(16).padStart(2, '0');
  }
  if (out.endsWith('.jsonl')) out = out.slice(0, -6) + '~2ejsonl';
  let split = '';
  for (; out.length > MAX_ENCODED; out = out.slice(MAX_ENCODED)) split += out.slice(0, MAX_ENCODED) + '~~/';
  return split + out;
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

// sha256Hex is the lower-case hex SHA-256 of bytes (a Uint8Array), computed
// synchronously: crypto.subtle is asynchronous and missing outside secure
// contexts (a mirror served over plain HTTP).
export function sha256Hex(bytes) {
  const n = bytes.length;
  const blocks = Math.ceil((n + 9) / 64);
  const msg = new Uint8Array(blocks * 64);
  msg.set(bytes);
  msg[n] = 0x80;
  const view = new DataView(msg.buffer);
  view.setUint32(msg.length - 8, Math.floor(n / 0x20000000));
  view.setUint32(msg.length - 4, (n * 8) >>> 0);
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rotr = (x, r) => (x >>> r) | (x << (32 - r));
  for (let b = 0; b < blocks; b++) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(b * 64 + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, bb, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & bb) ^ (a & c) ^ (bb & c))) >>> 0;
      hh = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = bb; bb = a; a = (t1 + t2) >>> 0;
    }
    h[0] += a; h[1] += bb; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
  }
  return [...h].map((x) => x.toString(16).padStart(8, '0')).join('');
}

// catalogDir is the directory of catalog c (a DNS-1123 label, its own
// file name) in the tree.
export const catalogDir = (c) => `operators/${c}/`;

// packageGraphPath is the cross-channel view of package p of catalog c.
export const packageGraphPath = (c, p) => `${catalogDir(c)}graph/${encodeName(p)}.json`;

// channelGraphPath is the graph of channel ch of package p.
export const channelGraphPath = (c, p, ch) => `${catalogDir(c)}graph/${encodeName(p)}/${encodeName(ch)}.json`;

// nextPath is the file of a cluster running bundle b installed from
// channel ch of package p.
export const nextPath = (c, p, ch, b) => `${catalogDir(c)}next/${encodeName(p)}/${encodeName(ch)}/${encodeName(b)}.json`;

// ---- package list ---------------------------------------------------------------

// matchesName tells whether name holds every whitespace-separated term of
// the filter q, ignoring case.
export function matchesName(name, q) {
  if (!q) return true;
  const lower = name.toLowerCase();
  return q.toLowerCase().split(/\s+/).every((term) => lower.includes(term));
}

// filterNames returns the names matching q, in their order.
export function filterNames(names, q) {
  return q ? names.filter((n) => matchesName(n, q)) : names;
}

// visibleRange is the rows of a virtualised list of count rows of height
// row to put in the DOM for a viewport scrolled to scrollTop of height
// height, overscan rows more on each side: {start, end} (end excluded).
export function visibleRange(scrollTop, height, row, count, overscan = 8) {
  if (count <= 0 || row <= 0) return { start: 0, end: 0 };
  const first = Math.floor(Math.max(0, scrollTop) / row);
  const last = Math.ceil((Math.max(0, scrollTop) + Math.max(0, height)) / row);
  const start = Math.min(count, Math.max(0, first - overscan));
  const end = Math.min(count, Math.max(start, last + overscan));
  return { start, end };
}

// ---- graph model ---------------------------------------------------------------

// EDGE_TYPES are the edge types of a catalog's graphs, as drawn and in
// the legend: replaces (solid), skips (dashed), skipRange (dotted).
export const EDGE_TYPES = ['replaces', 'skips', 'skipRange'];

// edgeClass is the drawing class of an edge type ('untyped' for a type a
// newer upgraph may write).
export function edgeClass(type) {
  return EDGE_TYPES.includes(type) ? type : 'untyped';
}

// bundleLabel is what a bundle's node shows: its version (and release),
// else its name (a bundle outside the graph, known by name only).
export function bundleLabel(node) {
  if (!node.version) return node.name;
  return node.release ? `${node.version} r${node.release}` : node.version;
}

// EDGE_ID prefixes the index of an edge to make its drawing id, which
// must differ from every bundle name (the nodes' ids).
export const EDGE_ID = '\u0001';

// fileEdges lists every edge of a channel or package graph file. The file
// lists replaces and skips edges; a skipRange is written once, on the
// node declaring it (a channel graph's skipRange and skipRangeFrom, a
// package graph's skipRanges: range, from, channels), with spans
// [first, last] of indexes into nodes whose versions it holds: each is
// the source of a skipRange edge (catalog/model's AllEdges). Per node in
// the file's order, the edges into it: skips, skipRange (sources in node
// order), then the others; last, edges into a name no node has.
export function fileEdges(doc) {
  const nodes = doc.nodes || [];
  const into = new Map();
  for (const e of doc.edges || []) {
    const l = into.get(e.to);
    if (l) l.push(e); else into.set(e.to, [e]);
  }
  const out = [];
  const expand = (to, range, spans, channels) => {
    for (const span of spans || []) {
      const [a, b] = span;
      for (let i = Math.max(0, a); i <= b && i < nodes.length; i++) {
        const e = { from: nodes[i].name, to, type: 'skipRange', range };
        if (channels) e.channels = channels;
        out.push(e);
      }
    }
  };
  for (const n of nodes) {
    const es = into.get(n.name) || [];
    into.delete(n.name);
    for (const e of es) if (e.type === 'skips') out.push(e);
    if (n.skipRange) expand(n.name, n.skipRange, n.skipRangeFrom, null);
    for (const r of n.skipRanges || []) expand(n.name, r.range, r.from, r.channels);
    for (const e of es) if (e.type !== 'skips') out.push(e);
  }
  for (const e of doc.edges || []) if (into.has(e.to)) out.push(e);
  return out;
}

// opGraph models a channel graph (graph/P/CH.json) or a package graph
// (graph/P.json): nodes in the file's order (newest first), then the
// bundles outside it that an edge names (external: a chain tail's
// replaces), each {id (the bundle name), label, version, release,
// deprecated (message), skipped (OLM v0 never lands on it), external,
// channels (package graph), head}; edges {id (EDGE_ID and its index),
// from, to, type, cls (edgeClass), range, channels} in fileEdges' order;
// out and inn: bundle → edge indexes.
export function opGraph(doc) {
  const nodes = [];
  const index = new Map();
  const heads = new Set(doc.channels ? doc.channels.map((c) => c.head).filter(Boolean) : doc.head ? [doc.head] : []);
  const add = (n, external) => {
    index.set(n.name, nodes.length);
    nodes.push({
      id: n.name, label: bundleLabel(n), version: n.version || '', release: n.release || '',
      deprecated: n.deprecated || '', skipped: !!n.skippedByV0, external, channels: n.channels || null,
      head: heads.has(n.name), image: n.image || '', maxOpenShiftVersion: n.maxOpenShiftVersion || '',
    });
  };
  for (const n of doc.nodes || []) if (!index.has(n.name)) add(n, false);
  const edges = [];
  const out = new Map(), inn = new Map();
  const push = (m, k, v) => { const l = m.get(k); if (l) l.push(v); else m.set(k, [v]); };
  for (const e of fileEdges(doc)) {
    for (const end of [e.from, e.to]) if (!index.has(end)) add({ name: end }, true);
    const k = edges.length;
    edges.push({ id: EDGE_ID + k, from: e.from, to: e.to, type: e.type, cls: edgeClass(e.type), range: e.range || '', channels: e.channels || null });
    push(out, e.from, k);
    push(inn, e.to, k);
  }
  return { doc, nodes, index, edges, out, inn, heads };
}

// skippedByV0 lists the bundles OLM v0 never moves a cluster to (an entry
// skips them, or they are off the replaces chain from the head; in a
// package graph: in every channel listing them), newest first, as the
// generator marks them (skippedByV0).
export function skippedByV0(model) {
  return model.nodes.filter((n) => n.skipped).map((n) => n.id);
}

// edgeCounts counts a model's edges by drawing class.
export function edgeCounts(model) {
  const c = { replaces: 0, skips: 0, skipRange: 0, untyped: 0 };
  for (const e of model.edges) c[e.cls]++;
  return c;
}

// deprecationsOf lists the deprecations a package graph carries: the
// package's, its channels', its bundles' ({kind, name, message}).
export function deprecationsOf(pkgDoc) {
  const out = [];
  if (pkgDoc.deprecated) out.push({ kind: 'package', name: pkgDoc.package, message: pkgDoc.deprecated });
  for (const c of pkgDoc.channels || []) if (c.deprecated) out.push({ kind: 'channel', name: c.name, message: c.deprecated });
  for (const n of pkgDoc.nodes || []) if (n.deprecated) out.push({ kind: 'bundle', name: n.name, message: n.deprecated });
  return out;
}

// channelEntries lists the bundles of channel ch in a package graph,
// newest first (its nodes' order).
export function channelEntries(pkgDoc, ch) {
  return (pkgDoc.nodes || []).filter((n) => (n.channels || []).includes(ch)).map((n) => n.name);
}

// layoutEdges are the edges the layered layout follows: from each bundle,
// one edge to its lowest successor (version order; ties to the first
// edge), so the layers follow the update order while the dense
// skipRange fan-ins (every older entry to the bundle declaring the range)
// are drawn but do not make the layout quadratic. [[from, to], …].
export function layoutEdges(model) {
  const out = [];
  for (const [from, ks] of model.out) {
    let best = null;
    for (const k of ks) {
      const to = model.edges[k].to;
      if (to === from) continue;
      if (best === null || compareVersions(model.nodes[model.index.get(to)].version, model.nodes[model.index.get(best)].version) < 0) best = to;
    }
    if (best !== null) out.push([from, best]);
  }
  return out;
}

// ladderLayout places bundles without the layout worker (too large, or it
// timed out): newest at the top, one row each (step apart), bundles OLM
// v0 skips and those outside the graph in a second column. {id: [x, y]}.
export function ladderLayout(model, step = 56) {
  const order = model.nodes.map((n, i) => i).sort((a, b) => {
    const na = model.nodes[a], nb = model.nodes[b];
    if (na.external !== nb.external) return na.external ? 1 : -1;
    return compareVersions(nb.version, na.version) || a - b;
  });
  const pos = {};
  order.forEach((i, row) => {
    const n = model.nodes[i];
    pos[n.id] = [n.skipped || n.external ? 220 : 0, row * step];
  });
  return pos;
}

// edgeCurves bends the edges once the bundles are placed (pos: {id: [x,
// y]}), so that an edge spanning several rows arcs around the bundles
// between its ends rather than crossing them, the longer the wider
// (skips on one side, replaces and skipRange on the other), and edges
// joining the same two bundles (a replaces and a skipRange) fan out. It
// returns, per edge index, the distance of its control point from the
// straight line (cytoscape's control-point-distances, positive on the
// left of an upward edge), 0 for a straight edge. step is the distance
// of adjacent rows (the layout's ranks).
export function edgeCurves(model, pos, step) {
  const out = new Array(model.edges.length).fill(0);
  const seen = new Map(); // unordered pair → edges met
  model.edges.forEach((e, k) => {
    const a = pos[e.from], b = pos[e.to];
    if (!a || !b || e.from === e.to) return;
    const pair = e.from < e.to ? `${e.from}\n${e.to}` : `${e.to}\n${e.from}`;
    const j = seen.get(pair) || 0;
    seen.set(pair, j + 1);
    // Rows apart (not the length: a short diagonal edge between
    // adjacent rows stays straight, a bend would put its control point in
    // a bundle).
    const span = Math.round(Math.abs(b[1] - a[1]) / step);
    const base = span > 1 ? Math.min(260, 24 + 20 * (span - 1)) : 0;
    const side = e.cls === 'skips' ? -1 : 1;
    const fan = j === 0 ? 0 : (j % 2 ? 1 : -1) * 16 * Math.ceil(j / 2);
    // A downward edge's left is the other side: keep every arc on its
    // side of the picture.
    const dir = b[1] > a[1] ? -1 : 1;
    out[k] = dir * (base ? side * base + side * Math.abs(fan) : fan);
  });
  return out;
}

// ---- next/<P>/<CH>/<B>.json -------------------------------------------------------

const viaTypes = (h) => (h && h.via ? h.via.map((v) => v.type) : []);

// readNext reads a per installed bundle file into what the page shows:
// {installed, v0: {head, next, path: [{name, version, via, and when the
// file resolves dependencies (a catalog set) dependencies: [{type, text,
// pick: {bundle, catalog, installed} or null, message}], providers:
// [{bundle, catalog, requiredBy}], providersTotal}],
// reachesHead, stranded: {at, bundle, property, message} or null, held:
// {at, message} or null, semantics, error},
// v1: {channels, candidates: [{name, version, installed, deprecated,
// via}], pick, refusal: {bundle, property, message} or null, catalog,
// perCatalog: [{catalog, priority, found, candidates, first}], semantics,
// error}}, names for bundles and type lists for via. A next/ file lists at
// most 16 hops and candidates (model.FileListMax): v0.pathTotal and
// v1.candidatesTotal are the whole counts (the listed counts when not
// cut); a cut path continues in the last listed hop's next/ file
// (readNextWhole follows it). stranded is OLM v0
// stopping before a Prohibited bundle (legacy olm.deprecated); refusal is
// operator-controller refusing the bundle it resolved (it declares a
// dependency): there is no pick then, and no fallback.
export function readNext(doc) {
  const v0 = doc.olmV0 || {};
  const v1 = doc.olmV1 || {};
  // With a catalog set, OLM v0 resolves dependencies (issue 25): each
  // hop's dependencies with the bundle picked for each (or why none),
  // the providers installed with it, and held when the updates stop
  // because no candidate's dependencies can be satisfied.
  const pick = (p) => (p ? { bundle: p.bundle || '', catalog: p.catalog || '', installed: !!p.installed } : null);
  const hop = (h) => {
    const out = { name: h.name, version: h.version || '', via: viaTypes(h) };
    if (!h.dependencies && !h.providers) return out; // graph only: no dependency resolved
    return {
      ...out,
      dependencies: (h.dependencies || []).map((d) => ({ type: d.type || '', text: d.text || '', pick: pick(d.pick), message: d.message || '' })),
      providers: (h.providers || []).map((p) => ({ ...pick(p), requiredBy: p.requiredBy || '' })),
      providersTotal: h.providersTotal || (h.providers || []).length,
    };
  };
  const st = v0.stranded, ref = v1.refusal, held = v0.held;
  return {
    installed: (doc.installed || {}).name || '',
    v0: {
      head: v0.head || '', next: v0.next ? v0.next.name : '', nextVia: viaTypes(v0.next),
      path: (v0.pathToHead || []).map(hop), pathTotal: v0.pathToHeadTotal || (v0.pathToHead || []).length, reachesHead: !!v0.reachesHead,
      stranded: st ? { at: st.at || '', bundle: st.bundle || '', property: st.property || '', message: st.message || '' } : null,
      held: held ? { at: held.at || '', message: held.message || '' } : null,
      semantics: v0.semantics || '', error: v0.error || '',
    },
    v1: {
      channels: v1.channels || [],
      candidates: (v1.candidates || []).map((c) => ({ name: c.name, version: c.version || '', installed: !!c.installed, deprecated: c.deprecated || '', via: viaTypes(c) })),
      candidatesTotal: v1.candidatesTotal || (v1.candidates || []).length,
      pick: v1.pick ? v1.pick.name : '', pickInstalled: !!(v1.pick && v1.pick.installed),
      refusal: ref ? { bundle: ref.bundle || '', property: ref.property || '', message: ref.message || '' } : null,
      catalog: doc.olmV1Catalog || '',
      perCatalog: (doc.olmV1PerCatalog || []).map((c) => ({ catalog: c.catalog, priority: c.priority || 0, found: !!c.found, candidates: c.candidates || 0, first: c.first ? c.first.name : '' })),
      semantics: v1.semantics || '', error: v1.error || '',
    },
  };
}

// readNextWhole is readNext with OLM v0's whole path: while the path is
// cut (fewer hops listed than pathTotal) it appends the hops of
// loadNext(last listed hop)'s file (the path from a hop is the rest of
// the path), up to pathTotal; it stops early, leaving pathTotal, when
// a continuation file is missing or adds no hop.
export async function readNextWhole(doc, loadNext) {
  const next = readNext(doc);
  const path = next.v0.path;
  while (path.length < next.v0.pathTotal) {
    const more = await loadNext(path[path.length - 1].name);
    const add = more ? readNext(more).v0.path.slice(0, next.v0.pathTotal - path.length) : [];
    if (!add.length) break;
    path.push(...add);
  }
  return next;
}

// pathEdges marks, in model, the edges of OLM v0's path from the installed
// bundle to the head (each hop's edges of the types its via lists, all
// edges between the pair when it lists none) and the edge of OLM v1's
// pick: {v0: Set of edge ids, v1: Set of edge ids, v0Nodes: [names]}.
export function pathEdges(model, next) {
  const v0 = new Set(), v1 = new Set();
  const mark = (set, from, to, types) => {
    for (const k of model.out.get(from) || []) {
      const e = model.edges[k];
      if (e.to === to && (!types.length || types.includes(e.type))) set.add(e.id);
    }
  };
  let from = next.installed;
  const v0Nodes = [];
  for (const h of next.v0.path) {
    mark(v0, from, h.name, h.via);
    v0Nodes.push(h.name);
    from = h.name;
  }
  if (next.v1.pick && !next.v1.pickInstalled) {
    const c = next.v1.candidates.find((x) => x.name === next.v1.pick);
    mark(v1, next.installed, next.v1.pick, c ? c.via : []);
  }
  return { v0, v1, v0Nodes };
}

// ---- cluster plan (the plan view, mirroring catalog/plan) -----------------
//
// Minors, olm.maxOpenShiftVersion blocking with 4.23 ≡ 5.0 (catalog/plan
// minor.go), the minors a release path crosses, the default mapping of
// catalogs to minors, the list of installed operators, and computePlan,
// which plans from the tree's files read through a loader (no DOM).

// parseMinor reads "4.21" or "v4.21" (no leading zeros), or null.
export function parseMinor(s) {
  const m = /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)$/.exec(s || '');
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : null;
}
export const minorString = (m) => `${m.major}.${m.minor}`;
export const compareMinors = (a, b) => a.major - b.major || a.minor - b.minor;
const sameMinor = (a, b) => compareMinors(a, b) === 0;
// normalizeMinor is OLM's normalizeOCPVersion: 4.23 is 5.0.
export const normalizeMinor = (m) => (m.major === 4 && m.minor === 23 ? { major: 5, minor: 0 } : m);
// nextY is OLM's nextY (not normalized).
export const nextY = (m) => ({ major: m.major, minor: m.minor + 1 });
// minorBlocks is OLM's rule: max blocks a cluster at minor at when
// normalize(max) < nextY(normalize(at)).
export const minorBlocks = (max, at) => compareMinors(normalizeMinor(max), nextY(normalizeMinor(at))) < 0;
// minorAllows is plan.Allows: OLM's rule at from, and for a hop that
// skips a minor (4.y → 5.0) max must reach to as well.
export function minorAllows(max, from, to) {
  if (minorBlocks(max, from)) return false;
  const next = normalizeMinor(nextY(normalizeMinor(from)));
  return !(compareMinors(normalizeMinor(to), next) > 0 && compareMinors(normalizeMinor(max), normalizeMinor(to)) < 0);
}
// minorOfRelease is the minor of a release version (4.21.3 → 4.21).
export function minorOfRelease(v) {
  const p = parseSemver(v);
  return p ? { major: Number(p.core[0]), minor: Number(p.core[1]) } : null;
}

// bundleAllows tells whether an installed bundle ({maxOpenShiftVersion,
// maxOpenShiftVersionError}) lets the cluster go from minor from to to:
// an invalid value blocks, no value allows.
export function bundleAllows(b, from, to) {
  if (b.maxOpenShiftVersionError) return false;
  if (!b.maxOpenShiftVersion) return true;
  const m = parseMinor(b.maxOpenShiftVersion);
  return !!m && minorAllows(m, from, to);
}

// firstAllowing is the index of the first hop of a route ([{to: bundle}])
// whose bundle allows from → to, or -1.
export function firstAllowing(hops, from, to) {
  return hops.findIndex((h) => h.to.known !== false && bundleAllows(h.to, from, to));
}

// planCrossings is the minors a release path ({from, found, hops: [{from,
// to}]}) crosses: {minors: [minor], crossings: [{from, to, relFrom,
// relTo}]}, as plan.Minors.
export function planCrossings(rel) {
  let m = minorOfRelease(rel.from);
  if (!m) return { minors: [], crossings: [], error: `release ${rel.from} is not a version` };
  const minors = [m];
  const crossings = [];
  if (!rel.found) return { minors, crossings };
  for (const h of rel.hops) {
    const next = minorOfRelease(h.to);
    if (!next) return { minors, crossings, error: `release ${h.to} is not a version` };
    if (!sameMinor(next, m)) {
      crossings.push({ from: m, to: next, relFrom: h.from, relTo: h.to });
      minors.push(next);
      m = next;
    }
  }
  return { minors, crossings };
}

// eusSteps marks the hops of EUS-to-EUS updates (plan's eusSteps).
export function eusSteps(crossings, viaEUS) {
  const out = crossings.map(() => null);
  if (!viaEUS) return out;
  for (let i = 0; i + 1 < crossings.length; i++) {
    const a = crossings[i], b = crossings[i + 1], mid = a.to;
    if (mid.major !== 4 || mid.minor % 2 === 0 || !sameMinor(a.from, { major: 4, minor: mid.minor - 1 }) ||
      !sameMinor(b.to, { major: 4, minor: mid.minor + 1 })) continue;
    const e = { from: minorString(a.from), intermediate: minorString(mid), to: minorString(b.to) };
    out[i] = { ...e, step: 1 };
    out[i + 1] = { ...e, step: 2 };
  }
  return out;
}

// catalogMinor is the minor a catalog's name ends with, the default
// mapping of the plan view: "-v4-21" or "v4.21" at the end of the name
// (ocp-v4-21, redhat-operators-v4-21, v4.21), else null.
export function catalogMinor(name) {
  const m = /(?:^|[^0-9A-Za-z])v(0|[1-9]\d*)[-.](0|[1-9]\d*)$/.exec(name || '') || /^v(0|[1-9]\d*)[-.](0|[1-9]\d*)$/.exec(name || '');
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : null;
}

// defaultCatalogs maps each minor ("4.21") to the first catalog (in the
// given order) whose name ends with it.
export function defaultCatalogs(names, minors) {
  const out = {};
  for (const [k, v] of Object.entries(defaultCatalogSets(names, minors))) out[k] = v[0];
  return out;
}

// defaultCatalogSets maps each minor ("4.21") to its catalog set: every
// catalog (in the given order) whose name ends with the minor, as a tree
// generated with one catalog per minor and source (--catalog-set with
// ocp-v4-21, mirror-v4-21, …) names them.
export function defaultCatalogSets(names, minors) {
  const out = {};
  for (const m of minors) {
    const set = names.filter((c) => { const cm = catalogMinor(c); return cm && sameMinor(cm, m); });
    if (set.length) out[minorString(m)] = set;
  }
  return out;
}

// setName is the name a catalog of the tree has in a plan's catalog set:
// its name without the minor it ends with (ocp-v4-22 and ocp-v5-0 are
// catalog "ocp" at 4.22 and 5.0, as a --catalog-set file's minors name
// one catalog's source per minor); a name without a minor is itself.
export function setName(name) {
  if (!catalogMinor(name)) return name;
  return name.replace(/[-.]?v(0|[1-9]\d*)[-.](0|[1-9]\d*)$/, '') || name;
}

// encodeCatalogMap and decodeCatalogMap are the URL form of a mapping of
// each minor to its catalogs (a name, or a list of names joined by +):
// "4.22:ocp-v4-22+mirror-v4-22,5.0:ocp-v5-0". decodeCatalogMap gives
// lists when asked (sets), else the first name.
export const encodeCatalogMap = (map) => Object.keys(map).sort((a, b) => compareMinors(parseMinor(a), parseMinor(b)))
  .map((k) => `${k}:${[].concat(map[k]).join('+')}`).join(',');
export function decodeCatalogMap(s, sets = false) {
  const out = {};
  for (const part of (s || '').split(',')) {
    const i = part.indexOf(':');
    const names = part.slice(i + 1).split('+').filter(Boolean);
    if (i > 0 && parseMinor(part.slice(0, i)) && names.length) out[minorString(parseMinor(part.slice(0, i)))] = sets ? [...new Set(names)] : names[0];
  }
  return out;
}

// parseInstalls reads the installed operators as `upgraph plan --operators`
// does (a YAML or JSON list of {package, channel, version}: JSON, YAML
// flow or block mappings, comments), or the compact form, one per line or
// comma-separated: package[/channel]@version. {installs, error}.
export function parseInstalls(text) {
  const src = (text || '').trim();
  if (!src) return { installs: [], error: 'no installed operator listed' };
  let list;
  try {
    if (src.startsWith('[')) list = JSON.parse(src);
    else if (/^-/m.test(src.replace(/^\s*#.*$/gm, '').trim())) list = parseYAMLList(src);
    else list = decodeInstalls(src.replace(/\n/g, ','), false);
  } catch (err) {
    return { installs: [], error: err.message };
  }
  if (!Array.isArray(list) || list.length === 0) return { installs: [], error: 'want a YAML or JSON list of {package, channel, version}' };
  const installs = [];
  for (const [i, x] of list.entries()) {
    if (!x || typeof x !== 'object') return { installs: [], error: `entry ${i + 1}: not a mapping` };
    for (const k of Object.keys(x)) {
      if (!['package', 'channel', 'version', 'catalog', 'target'].includes(k)) return { installs: [], error: `entry ${i + 1}: unknown key ${k}` };
    }
    if (x.target) return { installs: [], error: `operator ${i + 1} (${x.package}): target: the plan chooses the operator updates, leave target out` };
    if (!x.package) return { installs: [], error: `entry ${i + 1}: no package` };
    if (x.version === undefined || x.version === '') return { installs: [], error: `entry ${i + 1} (${x.package}): no version` };
    installs.push({ package: String(x.package), channel: x.channel ? String(x.channel) : '', version: String(x.version), catalog: x.catalog ? String(x.catalog) : '' });
  }
  return { installs, error: '' };
}

function yamlScalar(s) {
  const t = s.trim();
  if ((t.startsWith('"') && t.endsWith('"') && t.length > 1)) return JSON.parse(t);
  if (t.startsWith("'") && t.endsWith("'") && t.length > 1) return t.slice(1, -1).replace(/''/g, "'");
  return t;
}

function yamlPairs(text, into) {
  for (const part of text.split(',')) {
    if (!part.trim()) continue;
    const i = part.indexOf(':');
    if (i < 0) throw new Error(`cannot read ${JSON.stringify(part.trim())}: want key: value`);
    into[part.slice(0, i).trim()] = yamlScalar(part.slice(i + 1));
  }
}

// parseYAMLList reads the subset of YAML an operators list is written in:
// a sequence of flow mappings ({package: a, version: 1.0.0}) or of block
// mappings of scalars.
function parseYAMLList(text) {
  const out = [];
  let cur = null;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\s+#.*$/, '').replace(/^\s*#.*$/, '');
    if (!line.trim()) continue;
    const item = /^(\s*)-\s*(.*)$/.exec(line);
    let body;
    if (item) {
      cur = {};
      out.push(cur);
      body = item[2].trim();
      if (!body) continue;
    } else {
      if (!cur) throw new Error(`cannot read ${JSON.stringify(line.trim())}: want a list`);
      body = line.trim();
    }
    if (body.startsWith('{')) {
      if (!body.endsWith('}')) throw new Error(`cannot read ${JSON.stringify(body)}: unterminated mapping`);
      yamlPairs(body.slice(1, -1), cur);
    } else {
      yamlPairs(body, cur);
    }
  }
  return out;
}

// encodeInstalls and decodeInstalls are the compact URL form of the list:
// package[/channel]@version[@catalog], comma-separated, each part
// URI-escaped (catalog: the Subscription's spec.source, in a set).
export const encodeInstalls = (list) => list.map((x) =>
  `${encodeURIComponent(x.package)}${x.channel ? `/${encodeURIComponent(x.channel)}` : ''}@${encodeURIComponent(x.version)}${x.catalog ? `@${encodeURIComponent(x.catalog)}` : ''}`).join(',');
export function decodeInstalls(s, strict = true) {
  const out = [];
  for (const part of (s || '').split(',')) {
    const t = part.trim();
    if (!t) continue;
    const m = /^([^/@]+)(?:\/([^/@]*))?@([^/@]+)(?:@([^/@]+))?$/.exec(t);
    if (!m) {
      if (strict) continue;
      throw new Error(`cannot read ${JSON.stringify(t)}: want package[/channel]@version[@catalog]`);
    }
    const d = decodeURIComponent;
    out.push({ package: d(m[1]), channel: m[2] ? d(m[2]) : '', version: d(m[3]), catalog: m[4] ? d(m[4]) : '' });
  }
  return out;
}

// parseTolerant is blang/semver's ParseTolerant: a leading v dropped,
// missing minor and patch taken as 0; null when it is no version.
export function parseTolerant(s) {
  let t = String(s || '').trim().replace(/^v/, '');
  const m = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?(.*)$/.exec(t);
  if (!m) return null;
  t = `${Number(m[1])}.${Number(m[2] || 0)}.${Number(m[3] || 0)}${m[4]}`;
  return parseSemver(t) ? t : null;
}

// rangeHolds is blang/semver's Range: comparators (>=, <=, >, <, =, ==,
// !=, or none) separated by spaces all hold, alternatives by ||; an
// invalid range holds nothing.
export function rangeHolds(range, version) {
  const v = parseTolerant(version);
  if (!v || !range) return false;
  const alts = String(range).split('||');
  let valid = true;
  const ok = alts.some((alt) => {
    const toks = alt.trim().replace(/(>=|<=|!=|==|>|<|=|!)\s+/g, '$1').split(/\s+/).filter(Boolean);
    if (!toks.length) { valid = false; return false; }
    return toks.every((tok) => {
      const m = /^(>=|<=|!=|==|>|<|=|!)?(.+)$/.exec(tok);
      const w = parseSemver(m[2]) ? m[2] : null;
      if (!w) { valid = false; return false; }
      const c = compareSemver(v, w);
      switch (m[1]) {
        case '>=': return c >= 0;
        case '<=': return c <= 0;
        case '>': return c > 0;
        case '<': return c < 0;
        case '!=': case '!': return c !== 0;
        default: return c === 0;
      }
    });
  });
  return valid && ok;
}

// v0Order is a channel's entries (olm.channel blob) in OLM v0's
// sortChannel order with skipped entries dropped: from the head along
// replaces.
export function v0Order(blob, head) {
  const byName = new Map((blob.entries || []).map((e) => [e.name, e]));
  const out = [];
  const seen = new Set();
  for (let e = byName.get(head); e && !seen.has(e.name); e = byName.get(e.replaces)) {
    seen.add(e.name);
    out.push(e);
  }
  return out;
}

// v0FirstHop is OLM v0's next bundle from an installed bundle ({name,
// version}) the channel does not list: the first entry of v0Order with
// replaces or skips naming it, or a skipRange holding its version
// ({name, via: [types]}), or null. Entries prohibited(name) says are
// Prohibited (legacy olm.deprecated) are never taken (model.ResolveV0):
// when they are the only ones, {prohibited: the first of them}.
export function v0FirstHop(order, inst, prohibited = () => false) {
  let passed = '';
  for (const e of order) {
    const via = [];
    if (e.replaces === inst.name) via.push('replaces');
    if ((e.skips || []).includes(inst.name)) via.push('skips');
    if (e.skipRange && rangeHolds(e.skipRange, inst.version)) via.push('skipRange');
    if (!via.length) continue;
    if (prohibited(e.name)) {
      passed ||= e.name;
      continue;
    }
    if (e.name === inst.name) break;
    return { name: e.name, via };
  }
  return passed ? { prohibited: passed } : null;
}

// DEPENDENCY_PROPERTIES are the property types operator-controller's
// NoDependencyValidation refuses in a resolved bundle.
export const DEPENDENCY_PROPERTIES = ['olm.package.required', 'olm.gvk.required', 'olm.constraint'];

// v1Refusal is model.Bundle.V1Refusal on an olm.bundle blob: the first
// dependency property in the bundle's order and the controller's message,
// or null.
export function v1Refusal(blob) {
  const dep = (blob.properties || []).find((x) => DEPENDENCY_PROPERTIES.includes(x.type));
  if (!dep) return null;
  return { bundle: blob.name, property: dep.type,
    message: `validating bundle "${blob.name}": bundle "${blob.name}" has a dependency declared via property "${dep.type}" which is currently not supported` };
}

// refusedMessage and prohibitedMessage are catalog/upgrade's
// RefusedReason and ProhibitedReason messages.
export const refusedMessage = (installed, ref) => `OLM v1 cannot update ${installed}: ${ref.bundle} declares ${ref.property}, and operator-controller refuses a resolved bundle that declares a dependency, `
  + `with no fallback to an older one (${ref.message})`;
export const prohibitedMessage = (installed, bundle) => `OLM v0 cannot update ${installed}: its next bundle ${bundle} has the legacy olm.deprecated property, which makes it Prohibited: `
  + `the resolver never installs it, so ${installed} stays`;

// v1FirstHop is OLM v1's pick (model.ResolveV1 with the channel as
// filter) for an installed bundle ({name, version}) the channel does not
// list: the package's bundles (nodes, in their order) that are entries of
// the channel (olm.channel blob) with replaces or skips naming it or a
// skipRange holding its version, or of its version (staying is allowed);
// non-deprecated first, then the highest version (a stable sort). {name,
// via: [types]}, or null when there is none or the pick is the installed
// version (it stays). Releases are not compared (the version only).
export function v1FirstHop(blob, nodes, inst) {
  const pick = v1FirstPick(blob, nodes, inst);
  return !pick || pick.installed ? null : { name: pick.name, via: pick.via };
}

// v1FirstPick is v1FirstHop's pick before it is validated, the installed
// version included ({name, via, installed}), or null when there is no
// candidate: operator-controller validates whatever it resolved, staying
// or not.
export function v1FirstPick(blob, nodes, inst) {
  const pick = firstV1Candidate(blob, nodes, inst);
  return pick && { name: pick.name, via: pick.via, installed: pick.installed };
}

// firstV1Candidate is OLM v1's first candidate in one catalog for an
// installed bundle ({name, version}) with the channel blob as filter:
// successors by replaces, skips or skipRange, and the installed version,
// in sortV1's order ({name, version, deprecated, installed, via}), or
// null when there is none.
function firstV1Candidate(blob, nodes, inst) {
  const entries = new Map((blob.entries || []).map((e) => [e.name, e]));
  const cands = [];
  for (const n of nodes || []) {
    const e = entries.get(n.name);
    if (!e) continue;
    const via = [];
    if (e.replaces === inst.name) via.push('replaces');
    if ((e.skips || []).includes(inst.name)) via.push('skips');
    if (e.skipRange && parseSemver(inst.version) && rangeHolds(e.skipRange, inst.version)) via.push('skipRange');
    const installed = !!parseSemver(n.version) && !!parseSemver(inst.version) && compareSemver(n.version, inst.version) === 0;
    if (!via.length && !installed) continue;
    cands.push({ name: n.name, version: n.version, deprecated: !!n.deprecated, installed, via });
  }
  return cands.length ? sortV1(cands)[0] : null;
}

// sortV1 is OLM v1's candidate order: non-deprecated first, then the
// highest version (a stable sort).
function sortV1(cands) {
  return cands.map((c, i) => [c, i]).sort(([a, i], [b, j]) => (a.deprecated - b.deprecated)
    || (parseSemver(a.version) ? (parseSemver(b.version) ? compareSemver(b.version, a.version) : -1) : (parseSemver(b.version) ? 1 : 0)) || i - j).map(([c]) => c);
}

// v1SetPick is model.ResolveV1Set for an installed bundle ({name,
// version}) with the channel as filter, over a catalog set: members are
// [{name, priority, blob (the olm.channel blob), nodes, refusals}] (no
// blob: the catalog lacks the package), in the set's order. Per catalog
// v1FirstPick's candidates; across catalogs a non-deprecated first
// candidate beats deprecated ones, then the highest priority wins; equal
// highest priorities are a tie (the error names every catalog kept,
// sorted); then the winner's first candidate is validated (a dependency
// refuses it). {pick: {name, via, installed, catalog}} or {error, tie,
// none} or {refusal}.
export function v1SetPick(members, pkg, ch, inst) {
  let kept = [];
  for (const m of members) {
    if (!m.blob) continue;
    const first = firstV1Candidate(m.blob, m.nodes, inst);
    if (!first) continue;
    const self = { name: m.name, priority: m.priority || 0, first, refusals: m.refusals, deprecated: first.deprecated };
    if (kept.length) {
      const prior = kept[kept.length - 1].deprecated;
      if (self.deprecated && !prior) continue;
      if (!self.deprecated && prior) kept = [];
    }
    kept.push(self);
  }
  if (kept.length > 1) {
    kept = kept.map((k, i) => [k, i]).sort(([a, i], [b, j]) => b.priority - a.priority || i - j).map(([k]) => k);
    if (kept[0].priority !== kept[1].priority) kept = kept.slice(0, 1);
  }
  if (kept.length !== 1) {
    const names = kept.map((k) => k.name).sort();
    const error = `error upgrading from currently installed version "${inst.version}": ${kept.length > 1 ? 'found' : 'no'} bundles for package "${pkg}" in channels [${ch}]`
      + `${kept.length > 1 ? ` in multiple catalogs with the same priority [${names.join(' ')}]` : ''}`;
    return kept.length > 1 ? { error, tie: true } : { error, none: true };
  }
  const win = kept[0];
  const ref = (win.refusals.get(win.first.name) || {}).refusal;
  if (ref) return { refusal: ref };
  return { pick: { name: win.first.name, via: win.first.via, installed: win.first.installed, catalog: win.name } };
}

// eusChannels is generator/path's EUSChannels for a tree: every
// "eus-X.Y" among channels (in their order) whose X.Y lies between the
// major.minor of from and of to, both included.
export function eusChannels(channels, from, to) {
  const a = minorOfRelease(from), b = minorOfRelease(to);
  if (!a || !b) return [];
  const [lo, hi] = compareMinors(a, b) > 0 ? [b, a] : [a, b];
  return (channels || []).filter((c) => {
    const m = /^eus-(\d+)\.(\d+)$/.exec(c);
    if (!m) return false;
    const x = { major: Number(m[1]), minor: Number(m[2]) };
    return compareMinors(lo, x) <= 0 && compareMinors(x, hi) <= 0;
  });
}

// unionDocs is generator/path's Union of channel graph documents: the
// nodes by version (the first document's node of a version kept), every
// edge of every document, the conditional edges' entries concatenated (an
// edge unconditional in one document is unconditional).
export function unionDocs(docs) {
  if (docs.length === 1) return docs[0];
  const nodes = [];
  const index = new Map();
  const edges = [];
  const conditionalEdges = [];
  for (const d of docs) {
    const dn = d.nodes || [];
    const map = dn.map((n) => {
      if (!index.has(n.version)) {
        index.set(n.version, nodes.length);
        nodes.push(n);
      }
      return index.get(n.version);
    });
    for (const [a, b] of d.edges || []) {
      if (map[a] !== undefined && map[b] !== undefined) edges.push([map[a], map[b]]);
    }
    conditionalEdges.push(...(d.conditionalEdges || []));
  }
  return { ...docs[0], nodes, edges, conditionalEdges };
}

const MAX_RULE = 'L-max-ocp-version';

// PlanCatalog reads one catalog of the tree for the plan: its summary,
// package graphs, next/ files and channel blobs, each once. load(path)
// resolves to the parsed JSON, or null when the tree lacks the file;
// loadText(path) to the text, or null.
export class PlanCatalog {
  constructor(name, load, loadText) {
    this.name = name;
    this.load = load;
    this.loadText = loadText;
    this.cache = new Map();
  }
  get(path, text = false) {
    if (!this.cache.has(path)) this.cache.set(path, text ? this.loadText(path) : this.load(path));
    return this.cache.get(path);
  }
  async summary() { return (await this.get(`${catalogDir(this.name)}catalog.json`)) || { packages: [] }; }
  async hasPackage(p) { return (await this.summary()).packages.some((x) => x.name === p); }
  async pkg(p) {
    if (!(await this.hasPackage(p))) return null;
    return this.get(packageGraphPath(this.name, p));
  }
  // bundle is a bundle of package p with its maxOpenShiftVersion or why
  // it is invalid, or null.
  async bundle(p, name) {
    const doc = await this.pkg(p);
    const n = doc && doc.nodes.find((x) => x.name === name);
    if (!n) return null;
    const s = (await this.summary()).packages.find((x) => x.name === p) || {};
    const bad = (s.warnings || []).concat(s.errors || []).find((w) => w.rule === MAX_RULE && w.bundle === name);
    return {
      name: n.name, version: n.version || '', release: n.release || '', channels: n.channels || [], deprecated: n.deprecated || '',
      maxOpenShiftVersion: n.maxOpenShiftVersion || '', maxOpenShiftVersionError: bad ? bad.message : '',
    };
  }
  // refusals are what the runtimes refuse among the bundles of package
  // p, read from its olm.bundle blobs (metas/): a Map from bundle name to
  // {refusal: v1Refusal or null, prohibited: the legacy olm.deprecated
  // property}. Only a route from a bundle the channel lacks needs them
  // (the next/ files answer for the others).
  refusals(p) {
    const key = `\u0000refusals\u0000${p}`;
    if (!this.cache.has(key)) {
      this.cache.set(key, this.get(`${catalogDir(this.name)}metas/package/${metasName(p)}/olm.bundle.jsonl`, true).then((text) => {
        const out = new Map();
        for (const line of (text || '').split('\n')) {
          if (!line.trim()) continue;
          const b = JSON.parse(line);
          if (b.schema !== 'olm.bundle') continue;
          out.set(b.name, { refusal: v1Refusal(b), prohibited: (b.properties || []).some((x) => x.type === 'olm.deprecated') });
        }
        return out;
      }));
    }
    return this.cache.get(key);
  }
  async channelBlob(p, ch) {
    const text = await this.get(`${catalogDir(this.name)}metas/package/${metasName(p)}/olm.channel.jsonl`, true);
    for (const line of (text || '').split('\n')) {
      if (!line.trim()) continue;
      const b = JSON.parse(line);
      if (b.name === ch) return b;
    }
    return { entries: [] };
  }
  // route is the OLM v0 way from an installed bundle ({name, version}) to
  // the head of channel ch of package p: {head, found, hops: [{from, to:
  // bundle, via}], reason} (plan's route: the next/ file of the bundle
  // when the channel lists it, else v0's first hop from it, then that
  // bundle's next/ file).
  async route(p, ch, inst, olm = 'v0') {
    if (olm === 'v1') return this.routeV1(p, ch, inst);
    const doc = await this.pkg(p);
    const chDoc = doc.channels.find((c) => c.name === ch);
    const head = chDoc && chDoc.head ? chDoc.head : null;
    const node = doc.nodes.find((n) => n.name === inst.name);
    let first = null;
    let from = inst.name;
    if (!node || !(node.channels || []).includes(ch)) {
      const refused = await this.refusals(p);
      const hop = v0FirstHop(v0Order(await this.channelBlob(p, ch), head), inst, (name) => !!(refused.get(name) || {}).prohibited);
      if (!hop) return { head, found: false, hops: [], reason: 'stranded' };
      if (hop.prohibited) return { head, found: false, hops: [], reason: 'prohibited', message: prohibitedMessage(inst.name, hop.prohibited) };
      first = { from: inst.name, to: await this.bundle(p, hop.name), via: hop.via };
      from = hop.name;
    }
    const next = await this.get(nextPath(this.name, p, ch, from));
    const v0 = (next && next.olmV0) || {};
    const hops = first ? [first] : [];
    let prev = from;
    // A next/ file lists at most 16 hops: when cut (pathToHeadTotal),
    // the last listed hop's file continues the path, up to the total.
    const total = v0.pathToHeadTotal || (v0.pathToHead || []).length;
    let page = v0.pathToHead || [];
    for (let taken = 0; taken < total && page.length;) {
      for (const h of page.slice(0, total - taken)) {
        hops.push({ from: prev, to: (await this.bundle(p, h.name)) || { name: h.name, version: h.version || '', known: false }, via: viaTypes(h) });
        prev = h.name;
        taken++;
      }
      if (taken < total) {
        const more = await this.get(nextPath(this.name, p, ch, prev));
        page = (more && more.olmV0 && more.olmV0.pathToHead) || [];
      }
    }
    const found = inst.name === v0.head || !!v0.reachesHead;
    // OLM v0 stops before a Prohibited bundle (the next/ file's
    // olmV0.stranded): catalog/upgrade's reason prohibited.
    if (!found && !v0.error && v0.stranded) {
      return { head: v0.head || head, found, hops, reason: 'prohibited', message: prohibitedMessage(v0.stranded.at, v0.stranded.bundle) };
    }
    return { head: v0.head || head, found, hops, reason: found ? '' : v0.error ? 'channel-invalid' : 'stranded' };
  }
  // routeV1 is route with OLM v1 (catalog/upgrade's walkV1): from the
  // installed bundle, the pick of its next/ file's olmV1 (ResolveV1 with
  // the channel as filter), once per resolution, until it picks the
  // installed bundle; for a bundle the channel does not list, the first
  // pick is v1FirstHop's over the channel's entries. found when it lands
  // on the head (the hops end there).
  async routeV1(p, ch, inst) {
    const doc = await this.pkg(p);
    const chDoc = doc.channels.find((c) => c.name === ch);
    const head = chDoc && chDoc.head ? chDoc.head : null;
    const node = doc.nodes.find((n) => n.name === inst.name);
    const hops = [];
    let cur = inst.name;
    let reason = '', message = '';
    if (!node || !(node.channels || []).includes(ch)) {
      // operator-controller validates what it resolved, the installed
      // version included: a dependency refuses it, with no fallback.
      const pick = v1FirstPick(await this.channelBlob(p, ch), doc.nodes, inst);
      const ref = pick && ((await this.refusals(p)).get(pick.name) || {}).refusal;
      if (ref) return { head, found: false, hops: [], reason: 'refused-by-v1', message: refusedMessage(inst.name, ref) };
      if (!pick || pick.installed) return { head, found: false, hops: [], reason: 'stranded' };
      hops.push({ from: inst.name, to: await this.bundle(p, pick.name), via: pick.via });
      cur = pick.name;
    }
    const seen = new Set([inst.name, cur]);
    while (cur !== head) {
      const next = await this.get(nextPath(this.name, p, ch, cur));
      const v1 = (next && next.olmV1) || {};
      if (v1.refusal) {
        // The next/ file's refusal: OLM v1 resolves a bundle that
        // declares a dependency and stays on cur.
        reason = 'refused-by-v1';
        message = refusedMessage(cur, v1.refusal);
        break;
      }
      if (v1.error || !v1.pick) {
        reason = v1.error && !v1.error.includes('no bundles found') ? 'channel-invalid' : 'stranded';
        break;
      }
      if (v1.pick.installed || v1.pick.name === cur) break;
      if (seen.has(v1.pick.name)) {
        reason = 'loop';
        break;
      }
      seen.add(v1.pick.name);
      hops.push({ from: cur, to: (await this.bundle(p, v1.pick.name)) || { name: v1.pick.name, version: v1.pick.version || '', known: false }, via: viaTypes(v1.pick) });
      cur = v1.pick.name;
    }
    const k = hops.findIndex((h) => h.to.name === head);
    const found = inst.name === head || k >= 0;
    const rt = { head, found, hops: k >= 0 ? hops.slice(0, k + 1) : hops, reason: found ? '' : reason || 'stranded' };
    if (!found && message) rt.message = message;
    return rt;
  }
  // deprecations are the package's, the channel's (ch '' for none) and
  // the named bundles' olm.deprecations, as plan's deprecations.
  async deprecations(p, ch, names) {
    const doc = await this.pkg(p);
    const out = [];
    if (doc.deprecated) out.push({ schema: 'olm.package', message: doc.deprecated });
    const c = ch && doc.channels.find((x) => x.name === ch);
    if (c && c.deprecated) out.push({ schema: 'olm.channel', name: ch, message: c.deprecated });
    const seen = new Set();
    for (const n of names) {
      const b = doc.nodes.find((x) => x.name === n);
      if (b && b.deprecated && !seen.has(n)) {
        seen.add(n);
        out.push({ schema: 'olm.bundle', name: n, message: b.deprecated });
      }
    }
    return out;
  }
}

// routeV1Set is plan's route with OLM v1 over a minor's catalog set
// (set: {home: {name, cat}, all: [{name, priority, cat}]}, two catalogs
// or more): catalog/upgrade's walkV1Set from the installed bundle when
// the home catalog has it (v1SetPick once per resolution, hops landing in
// whichever catalog wins, found when a hop lands on the home channel's
// head), else plan's firstHop: one pick, and a pick from another catalog
// ends the route (the plan follows the operator's own catalog). The
// next/ files are not read: on a --catalog-set tree they resolve across
// the tree's whole set, not the plan's.
export async function routeV1Set(set, p, ch, inst) {
  const home = set.home.cat;
  const doc = await home.pkg(p);
  const chDoc = doc.channels.find((c) => c.name === ch);
  const head = chDoc && chDoc.head ? chDoc.head : null;
  const members = [];
  let bundles = 0;
  for (const m of set.all) {
    const d = await m.cat.pkg(p);
    if (d) bundles += d.nodes.length;
    members.push({ name: m.name, priority: m.priority, cat: m.cat, nodes: d ? d.nodes : [],
      blob: d ? await m.cat.channelBlob(p, ch) : null, refusals: d ? await m.cat.refusals(p) : new Map() });
  }
  const inHome = doc.nodes.some((n) => n.name === inst.name);
  const hops = [];
  let cur = inst;
  let reason = '', message = '';
  const seen = new Set([inst.name]);
  for (let i = 0; i <= bundles; i++) {
    const r = v1SetPick(members, p, ch, cur);
    if (r.refusal) {
      reason = 'refused-by-v1';
      message = refusedMessage(cur.name, r.refusal);
      break;
    }
    if (r.error) {
      // plan's firstHop reads a tie as a channel it cannot resolve in;
      // catalog/upgrade's walk names the tie.
      reason = r.none ? 'stranded' : r.tie && (inHome || i > 0) ? 'catalog-tie' : 'channel-invalid';
      message = r.tie && (inHome || i > 0) ? `OLM v1 cannot update ${cur.name}: its best bundle is in several catalogs of the same priority, and operator-controller refuses to choose (${r.error})` : r.none ? '' : r.error;
      break;
    }
    if (r.pick.installed || r.pick.name === cur.name) break;
    const m = members.find((x) => x.name === r.pick.catalog);
    const to = (await m.cat.bundle(p, r.pick.name)) || { name: r.pick.name, version: '', known: false };
    if (seen.has(to.name)) {
      reason = 'loop';
      break;
    }
    seen.add(to.name);
    hops.push({ from: cur.name, to, via: r.pick.via, catalog: r.pick.catalog });
    if (!inHome && i === 0 && r.pick.catalog !== set.home.name) {
      return { head, found: false, hops, reason: 'unreachable',
        message: `OLM v1 resolves ${to.name} from catalog ${r.pick.catalog}; this plan follows the operator's own catalog ${set.home.name}` };
    }
    cur = to;
  }
  const k = hops.findIndex((h) => h.to.name === head);
  const found = inst.name === head || k >= 0;
  const rt = { head, found, hops: inst.name === head ? [] : k >= 0 ? hops.slice(0, k + 1) : hops, reason: found ? '' : reason || 'stranded' };
  if (!found && message) rt.message = message;
  return rt;
}

// routeIn is the operator's route at a minor: OLM v1 across the minor's
// catalogs when it has several, else (OLM v0, or one catalog) in the
// operator's own catalog.
const routeIn = (set, p, ch, inst, olm) => (olm === 'v1' && set.all.length > 1 ? routeV1Set(set, p, ch, inst) : set.home.cat.route(p, ch, inst, olm));

// homeCatalog is plan's homeCatalog: the catalog of the first minor an
// install comes from (the one it names, else the only one, or the only
// one with its package), or {error}.
async function homeCatalog(set, op) {
  const names = set.map((m) => m.name);
  const has = [];
  for (const m of set) {
    if (op.catalog && m.name === op.catalog) return { home: m };
    if (await m.cat.hasPackage(op.package)) has.push(m);
  }
  if (op.catalog) return { error: `catalog "${op.catalog}": not a catalog of the set (it has ${names.join(', ')})` };
  if (set.length === 1) return { home: set[0] };
  if (has.length === 1) return { home: has[0] };
  if (!has.length) return { error: `no catalog of the first minor has the package (it has ${names.join(', ')})` };
  return { error: `catalogs ${has.map((m) => m.name).join(', ')} have the package: name the one its Subscription uses (spec.source) as its catalog` };
}

// minorSet is plan's minorSet: the operator's catalog at a minor (a
// catalog without packages when the set has none of its name there: the
// package is gone) and all of the minor's.
const EMPTY = { name: '', pkg: async () => null, hasPackage: async () => false, deprecations: async () => [] };
function minorSet(set, name) {
  const home = set.find((m) => m.name === name);
  return { home: home || { name, cat: { ...EMPTY, name: `${name} (not in the catalog set)` } }, all: set };
}

// asSet reads a computePlan catalog: a PlanCatalog alone (a catalog per
// minor) or a list of {name, priority, cat} (a catalog set).
const asSet = (c) => (Array.isArray(c) ? c : [{ name: c.name, priority: 0, cat: c }]);

const refOf = (b) => ({ name: b.name, version: b.version });
const bundleOut = (b) => ({ name: b.name, version: b.version, maxOpenShiftVersion: b.maxOpenShiftVersion || '', maxOpenShiftVersionError: b.maxOpenShiftVersionError || '' });
const hopsOut = (hops) => hops.map((h) => ({ from: h.from, to: h.to.name, via: h.via, ...(h.catalog ? { catalog: h.catalog } : {}) }));

// computePlan plans the operators along a release path, as
// catalog/plan.Compute with OLM v0: rel is the path ({from, to, channel,
// arch, found, hops: [{from, to}]}), catalogs maps each minor ("4.22")
// to a PlanCatalog or to its catalog set ([{name, priority, cat:
// PlanCatalog}], plan's --catalog-set: an operator names its catalog,
// optional when one catalog of the first minor has the package; OLM v0
// follows that catalog, OLM v1 resolves across the minor's catalogs),
// operators are parseInstalls' list. It resolves to the
// plan ({minors, catalogs, operators, hops, blocked, blockers}), or to
// {error} when the request cannot be answered (a minor without catalog,
// an operator the first catalog lacks).
export async function computePlan({ rel, catalogs, operators, viaEUS, olm = 'v0' }) {
  if (olm !== 'v0' && olm !== 'v1') return { error: `--olm ${olm}: want v0 or v1` };
  const { minors, crossings, error } = planCrossings(rel);
  if (error) return { error };
  const missing = minors.map(minorString).filter((m) => !catalogs[m]);
  if (missing.length) {
    return { error: `no catalog for ${missing.map((m) => `v${m}`).join(', ')}: the path goes through ${minors.map(minorString).join(' → ')}, and each minor needs the catalog the cluster uses then`, missing };
  }
  const plan = {
    from: rel.from, to: rel.to, channel: rel.channel, arch: rel.arch, viaEUS: !!viaEUS, olm,
    release: { found: !!rel.found, channels: rel.channels && rel.channels.length ? rel.channels : [rel.channel], hops: (rel.found ? rel.hops : []).map((h) => ({ from: h.from, to: h.to })) },
    minors: minors.map(minorString), catalogs: minors.flatMap((m) => asSet(catalogs[minorString(m)]).map((c) => ({ minor: minorString(m), catalog: c.cat.name, name: c.name, priority: c.priority }))),
    operators: [], hops: [], blocked: false, blockers: [],
  };
  const sets = Object.fromEntries(minors.map((m) => [minorString(m), asSet(catalogs[minorString(m)])]));
  for (const [k, set] of Object.entries(sets)) {
    const dup = set.find((c, i) => set.findIndex((x) => x.name === c.name) !== i);
    if (dup) return { error: `two catalogs named ${dup.name} for ${k} (${set.filter((c) => c.name === dup.name).map((c) => c.cat.name).join(', ')}): a set names each catalog once` };
  }
  const firsts = sets[minorString(minors[0])];
  const states = [];
  for (const [i, op] of operators.entries()) {
    if (op.catalog && !Array.isArray(catalogs[minorString(minors[0])])) {
      return { error: `operator ${i + 1} (${op.package}): catalog "${op.catalog}": the plan reads one catalog per minor, leave catalog out (or pick several catalogs for a minor)` };
    }
    const { home, error: homeError } = await homeCatalog(firsts, op);
    if (homeError) return { error: `operator ${i + 1} (${op.package}): ${homeError}` };
    const first = home.cat;
    const doc = await first.pkg(op.package);
    if (!doc) return { error: `operator ${i + 1}: the v${minorString(minors[0])} catalog (${first.name}) has no package "${op.package}"` };
    let node = doc.nodes.find((n) => n.name === op.version);
    if (!node) {
      const byVersion = doc.nodes.filter((n) => n.version === op.version || (n.release && `${n.version}-${n.release}` === op.version));
      if (byVersion.length !== 1) {
        return { error: byVersion.length ? `operator ${i + 1}: package ${op.package} has ${byVersion.length} bundles of version ${op.version}: name one` : `operator ${i + 1}: package ${op.package} has no bundle named or versioned "${op.version}"` };
      }
      node = byVersion[0];
    }
    let channel = op.channel;
    const chans = node.channels || [];
    if (channel) {
      if (!doc.channels.some((c) => c.name === channel)) return { error: `operator ${i + 1}: package ${op.package} has no channel "${channel}"` };
    } else if (chans.includes(doc.defaultChannel)) {
      channel = doc.defaultChannel;
    } else if (chans.length === 1) {
      channel = chans[0];
    } else {
      return { error: `operator ${i + 1}: bundle ${node.name} of package ${op.package} is in ${chans.length ? `channels ${chans.join(', ')}` : 'no channel'}, not in the default channel: name the channel` };
    }
    const b = await first.bundle(op.package, node.name);
    states.push({ catalog: home.name, pkg: op.package, channel, bundle: b });
    plan.operators.push({ catalog: home.name, package: op.package, channel, version: op.version, installed: bundleOut(b) });
  }
  if (!rel.found) {
    plan.blocked = true;
    plan.blockers.push({ message: `no update path from ${rel.from} to ${rel.to} in ${(rel.channels && rel.channels.length ? rel.channels : [rel.channel]).join(' + ')} (${rel.arch})` });
  }
  const eus = eusSteps(crossings, viaEUS);
  for (const [i, c] of crossings.entries()) {
    const curs = sets[minorString(c.from)], nexts = sets[minorString(c.to)];
    const hop = {
      from: minorString(c.from), to: minorString(c.to), releaseFrom: c.relFrom, releaseTo: c.relTo,
      olmChecks: minorString(nextY(normalizeMinor(c.from))), fromCatalog: curs.map((x) => x.cat.name).join(' + '), toCatalog: nexts.map((x) => x.cat.name).join(' + '),
      eus: eus[i], blocked: false, operators: [],
    };
    for (const s of states) {
      const oh = await stepOperator(s, c, minorSet(curs, s.catalog), minorSet(nexts, s.catalog), olm);
      if (oh.state === 'blocked') {
        hop.blocked = true;
        plan.blockers.push({ hop: `${hop.from} → ${hop.to}`, package: oh.package, channel: oh.channel, installed: oh.installed, message: oh.message });
      }
      hop.operators.push(oh);
    }
    plan.blocked ||= hop.blocked;
    plan.hops.push(hop);
  }
  return plan;
}

// stepOperator is plan's step: what the operator needs in cur before
// crossing c, and where it stands in next after it; it moves s to the
// bundle installed after the hop.
async function stepOperator(s, c, curSet, nextSet, olm) {
  const cur = curSet.home.cat, next = nextSet.home.cat;
  const oh = { package: s.pkg, channel: s.channel, installed: bundleOut(s.bundle), state: '', message: '', update: null, otherChannels: [], next: null, deprecations: [] };
  const to = minorString(c.to);
  if (bundleAllows(s.bundle, c.from, c.to)) {
    oh.state = 'compatible';
    oh.message = s.bundle.maxOpenShiftVersion ? `maxOpenShiftVersion ${s.bundle.maxOpenShiftVersion} allows ${to}` : 'no olm.maxOpenShiftVersion';
  } else {
    // OLM checks only nextY of the cluster's minor; a hop that skips it
    // is blocked by upgraph's stricter policy (plan's allows).
    const max = parseMinor(s.bundle.maxOpenShiftVersion);
    const why = s.bundle.maxOpenShiftVersionError ? 'invalid olm.maxOpenShiftVersion, which OLM reports as blocking every minor update'
      : max && !minorBlocks(max, c.from)
        ? `maxOpenShiftVersion ${s.bundle.maxOpenShiftVersion}: OLM lets the cluster leave ${minorString(c.from)} (it checks ${minorString(nextY(normalizeMinor(c.from)))}, the next minor), but the hop skips to ${to}, past what the bundle declares; upgraph blocks the update to ${to} (its policy for a hop that skips a minor, stricter than OLM's)`
        : `maxOpenShiftVersion ${s.bundle.maxOpenShiftVersion}: OLM blocks the update to ${to}`;
    const doc = await cur.pkg(s.pkg);
    const ch = doc && doc.channels.find((x) => x.name === s.channel);
    if (!doc) {
      oh.state = 'blocked';
      oh.message = `${why}; the ${cur.name} catalog has no package ${s.pkg}, so no update can be installed`;
    } else if (!ch) {
      oh.state = 'blocked';
      oh.message = `${why}; package ${s.pkg} has no channel ${s.channel} in the ${cur.name} catalog, so no update can be installed`;
    } else {
      const rt = await routeIn(curSet, s.pkg, s.channel, s.bundle, olm);
      const k = firstAllowing(rt.hops, c.from, c.to);
      if (k >= 0) {
        const b = rt.hops[k].to;
        oh.state = 'update-required';
        oh.update = { to: bundleOut(b), hops: hopsOut(rt.hops.slice(0, k + 1)) };
        oh.message = `${why}; update it before the hop to ${b.name}, ${k + 1} hop${k ? 's' : ''} in ${cur.name}`;
        s.bundle = b;
      } else {
        oh.state = 'blocked';
        oh.path = { head: rt.head, found: rt.found, hops: hopsOut(rt.hops), reason: rt.reason || '' };
        if (rt.message) oh.path.message = rt.message;
        oh.message = `${why}; no bundle on its OLM ${olm} path in channel ${s.channel} of the ${cur.name} catalog allows ${to}${rt.message ? ` (${rt.reason}: ${rt.message})` : ''}`;
        for (const other of doc.channels) {
          if (other.name === s.channel) continue;
          const ort = await routeIn(curSet, s.pkg, other.name, s.bundle, olm);
          const j = firstAllowing(ort.hops, c.from, c.to);
          if (j >= 0) oh.otherChannels.push({ channel: other.name, to: bundleOut(ort.hops[j].to), hops: hopsOut(ort.hops.slice(0, j + 1)) });
        }
      }
    }
  }
  // Into the next minor's catalog.
  const n = { catalog: next.name, state: '', inChannel: false, route: null };
  const ndoc = await next.pkg(s.pkg);
  if (!ndoc) {
    n.state = 'package-gone';
  } else if (!ndoc.channels.some((x) => x.name === s.channel)) {
    n.state = 'channel-gone';
    n.channels = ndoc.channels.map((x) => x.name);
    n.defaultChannel = ndoc.defaultChannel;
    oh.deprecations = await next.deprecations(s.pkg, '', []);
  } else {
    const node = ndoc.nodes.find((x) => x.name === s.bundle.name);
    n.inChannel = !!node && (node.channels || []).includes(s.channel);
    const rt = await routeIn(nextSet, s.pkg, s.channel, s.bundle, olm);
    n.route = { head: rt.head, found: rt.found, hops: hopsOut(rt.hops), reason: rt.reason };
    if (rt.message) n.route.message = rt.message;
    n.state = rt.found ? 'reaches-head' : 'stranded';
    oh.deprecations = await next.deprecations(s.pkg, s.channel, [s.bundle.name, ...rt.hops.map((h) => h.to.name)]);
  }
  oh.next = n;
  return oh;
}

// The plan view's URL state: ?plan&channel=CH&arch=A&from=F&to=T (&eus=1,
// olm=v1 (v0 is the default),
// ops= the compact list, cats= the mapping when not the default). Any
// query naming plan is the plan view's.
export const isPlanURL = (search) => new URLSearchParams(search).has('plan');
export function readPlanState(search) {
  const p = new URLSearchParams(search);
  return {
    arch: p.get('arch') || '', channel: p.get('channel') || '', from: p.get('from') || '', to: p.get('to') || '',
    eus: p.get('eus') === '1', olm: p.get('olm') === 'v1' ? 'v1' : 'v0', ops: p.get('ops') || '', cats: p.get('cats') || '',
  };
}
export function planSearch(s) {
  const p = new URLSearchParams();
  p.set('plan', '');
  for (const k of ['channel', 'arch', 'from', 'to']) if (s[k]) p.set(k, s[k]);
  if (s.eus) p.set('eus', '1');
  if (s.olm === 'v1') p.set('olm', 'v1');
  if (s.ops) p.set('ops', s.ops);
  if (s.cats) p.set('cats', s.cats);
  return `?${p}`;
}
