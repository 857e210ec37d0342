// Pure graph logic of the viewer: SemVer precedence, file names, the
// channel-graph model and update-path planning. No DOM: the page and the
// Node tests (test/*.test.js) import this same file.

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
