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
export class Graph {
  constructor(doc) {
    this.doc = doc;
    this.nodes = doc.nodes || [];
    const n = this.nodes.length;
    this.index = new Map();
    this.nodes.forEach((node, i) => {
      if (!this.index.has(node.version)) this.index.set(node.version, i);
    });
    this.uncond = Array.from({ length: n }, () => new Set());
    // cond[i]: Map target → risk objects, in the order the entries list them.
    this.cond = Array.from({ length: n }, () => new Map());
    this.edgeCount = 0;
    for (const [a, b] of doc.edges || []) {
      if (a >= 0 && a < n && b >= 0 && b < n && !this.uncond[a].has(b)) {
        this.uncond[a].add(b);
        this.edgeCount++;
      }
    }
    this.conditionalCount = 0;
    for (const entry of doc.conditionalEdges || []) {
      for (const e of entry.edges || []) {
        const a = this.index.get(e.from), b = this.index.get(e.to);
        if (a === undefined || b === undefined) continue;
        let risks = this.cond[a].get(b);
        if (!risks) {
          risks = [];
          this.cond[a].set(b, risks);
          this.conditionalCount++;
        }
        for (const r of entry.risks || []) {
          if (!risks.some((x) => x.name === r.name)) risks.push(r);
        }
      }
    }
    // One risk per name (the first definition met), sorted by name, as
    // generator/path lists them.
    for (const m of this.cond) for (const risks of m.values()) risks.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
    this.out = Array.from({ length: n }, () => []);
    this.inn = Array.from({ length: n }, () => []);
    for (let a = 0; a < n; a++) {
      const seen = new Set(this.uncond[a]);
      for (const b of this.cond[a].keys()) seen.add(b);
      for (const b of seen) {
        this.out[a].push(b);
        this.inn[b].push(a);
      }
    }
  }

  version(i) { return this.nodes[i].version; }

  // hop describes the edge a → b: conditional only when no unconditional
  // edge joins them (a cluster takes the recommended update then).
  hop(a, b) {
    if (this.uncond[a].has(b)) return { from: this.version(a), to: this.version(b), conditional: false, risks: [] };
    return { from: this.version(a), to: this.version(b), conditional: true, risks: this.risks(a, b).map((r) => r.name) };
  }

  // risks returns the risk objects ({name, message, url, matchingRules})
  // of the conditional edge a → b, [] when there is none.
  risks(a, b) {
    return this.cond[a].get(b) || [];
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
    const cost = (a, b) => (this.uncond[a].has(b) ? 0 : 1);
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
