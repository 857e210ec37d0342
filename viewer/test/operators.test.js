// The operators view's pure logic (web/graph.js, its second part): URL
// state, file names, the package list's filter and window, the graph model
// (typed edges, heads, bundles OLM v0 skips, bundles outside the graph,
// deprecations), the layout's edges and their bends, and the reading of
// next/<P>/<CH>/<B>.json (run: node --test test/). Go checks encodeName against catalog/views.EncodeName
// (viewer_test.go TestEncodeNameMatchesGo).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  EDGE_ID, channelEntries, channelGraphPath, deprecationsOf, edgeClass, edgeCounts, edgeCurves, encodeName, filterNames,
  fileEdges, isOperatorsURL, ladderLayout, layoutEdges, matchesName, nextPath, opGraph, opSearch, packageGraphPath,
  pathEdges, readNext, readOpState, sha256Hex, skippedByV0, visibleRange,
} from '../web/graph.js';

test('URL state round-trips and tells the views apart', () => {
  assert.equal(isOperatorsURL(''), false);
  assert.equal(isOperatorsURL('?channel=fast-4.16&arch=amd64&from=4.16.0'), false);
  assert.equal(isOperatorsURL('?catalog='), true);
  assert.equal(isOperatorsURL('?package=etcd'), true);
  assert.equal(isOperatorsURL('?installed=etcd.v1'), true);
  assert.deepEqual(readOpState(''), { catalog: '', package: '', channel: '', installed: '', view: 'channel', q: '' });
  const s = { catalog: 'community', package: 'slurm-operator', channel: 'release-1.0', installed: 'slurm-operator.v1.0.1', view: 'channel', q: '' };
  assert.equal(opSearch(s), '?catalog=community&package=slurm-operator&channel=release-1.0&installed=slurm-operator.v1.0.1');
  assert.deepEqual(readOpState(opSearch(s)), s);
  // Names with any bytes, the package view and the filter.
  const odd = { catalog: 'c', package: 'p', channel: 'Fast Track/&=+%', installed: 'b.v1.0.0+build', view: 'package', q: 'quay op' };
  assert.deepEqual(readOpState(opSearch(odd)), odd);
  assert.match(opSearch(odd), /&view=package&q=quay\+op$/);
  // The catalog key is always there, so the query stays the operators view's.
  assert.equal(opSearch({ catalog: '', view: 'channel' }), '?catalog=');
  assert.equal(isOperatorsURL(opSearch({ catalog: '' })), true);
  // Unknown views are the channel view.
  assert.equal(readOpState('?catalog=c&view=full').view, 'channel');
});

test('encodeName: the encoding of catalog/views', () => {
  const cases = [
    ['etcdoperator.v0.9.4', 'etcdoperator.v0.9.4'],
    ['Stable', '!stable'],
    ['stable', 'stable'],
    ['Fast_Track', '!fast~5f!track'],
    ['1.0.0+build.1', '1.0.0_build.1'],
    ['.hidden', '~2ehidden'],
    ['a.b', 'a.b'],
    ['a/b', 'a~2fb'],
    ['~!', '~7e~21'],
    ['é', '~c3~a9'],
    ['with space', 'with~20space'],
  ];
  for (const [name, want] of cases) assert.equal(encodeName(name), want, name);
  // Past 200 bytes once encoded: "!!" and the SHA-256 of the name.
  const long = 'a'.repeat(201);
  assert.equal(encodeName(long), '!!' + createHash('sha256').update(long).digest('hex'));
  assert.equal(encodeName('a'.repeat(200)), 'a'.repeat(200));
  const escaped = 'A'.repeat(101); // 202 bytes once encoded
  assert.equal(encodeName(escaped), '!!' + createHash('sha256').update(escaped).digest('hex'));
  assert.equal(encodeName('A'.repeat(100)), '!a'.repeat(100));
});

test('sha256Hex agrees with node:crypto', () => {
  for (const n of [0, 1, 55, 56, 63, 64, 65, 119, 120, 200, 1000, 4097]) {
    const bytes = new Uint8Array(n).map((_, i) => (i * 31 + n) & 0xff);
    assert.equal(sha256Hex(bytes), createHash('sha256').update(bytes).digest('hex'), `${n} bytes`);
  }
});

test('file paths', () => {
  assert.equal(packageGraphPath('community', 'slurm-operator'), 'operators/community/graph/slurm-operator.json');
  assert.equal(channelGraphPath('community', 'slurm-operator', 'release-1.0'), 'operators/community/graph/slurm-operator/release-1.0.json');
  assert.equal(nextPath('c', 'p', 'Fast_Track', 'p.v1.0.0+1'), 'operators/c/next/p/!fast~5f!track/p.v1.0.0_1.json');
});

test('package filter and the virtualised window', () => {
  const names = ['apicurio-registry-3', 'project-quay', 'quay-bridge', 'slurm-operator'];
  assert.deepEqual(filterNames(names, ''), names);
  assert.deepEqual(filterNames(names, 'QUAY'), ['project-quay', 'quay-bridge']);
  assert.deepEqual(filterNames(names, 'quay proj'), ['project-quay']);
  assert.equal(matchesName('slurm-operator', '  '), true);
  assert.deepEqual(visibleRange(0, 240, 24, 1000, 5), { start: 0, end: 15 });
  assert.deepEqual(visibleRange(2400, 240, 24, 1000, 5), { start: 95, end: 115 });
  assert.deepEqual(visibleRange(23990, 240, 24, 1000, 5), { start: 994, end: 1000 });
  assert.deepEqual(visibleRange(0, 240, 24, 3, 5), { start: 0, end: 3 });
  assert.deepEqual(visibleRange(500, 240, 24, 0), { start: 0, end: 0 });
  assert.deepEqual(visibleRange(-50, 100, 24, 10, 0), { start: 0, end: 5 });
});

// A channel graph as graph/P/CH.json has it: 1.2.0 skipped by 1.3.0, a
// skipRange on the head (written once, with the nodes it holds), a chain
// tail replacing a bundle outside the catalog, a deprecated bundle.
const channelDoc = {
  package: 'demo', channel: 'stable', default: true, head: 'demo.v1.4.0',
  nodes: [
    { name: 'demo.v1.4.0', version: '1.4.0', skippedByV0: false, skipRange: '>=1.0.0 <1.4.0', skipRangeFrom: [[1, 4]] },
    { name: 'demo.v1.3.0', version: '1.3.0', skippedByV0: false },
    { name: 'demo.v1.2.0', version: '1.2.0', skippedByV0: true },
    { name: 'demo.v1.1.0', version: '1.1.0', deprecated: 'data loss', skippedByV0: false },
    { name: 'demo.v1.0.0', version: '1.0.0', release: '2', skippedByV0: false },
  ],
  edges: [
    { from: 'demo.v1.3.0', to: 'demo.v1.4.0', type: 'replaces' },
    { from: 'demo.v1.2.0', to: 'demo.v1.3.0', type: 'skips' },
    { from: 'demo.v1.1.0', to: 'demo.v1.3.0', type: 'replaces' },
    { from: 'demo.v1.1.0', to: 'demo.v1.2.0', type: 'replaces' },
    { from: 'demo.v1.0.0', to: 'demo.v1.1.0', type: 'replaces' },
    { from: 'demo.v0.9.0', to: 'demo.v1.0.0', type: 'replaces' },
  ],
};

// channelEdges are the edges channelDoc holds, one by one, in fileEdges'
// order.
const channelEdges = [
  { from: 'demo.v1.3.0', to: 'demo.v1.4.0', type: 'skipRange', range: '>=1.0.0 <1.4.0' },
  { from: 'demo.v1.2.0', to: 'demo.v1.4.0', type: 'skipRange', range: '>=1.0.0 <1.4.0' },
  { from: 'demo.v1.1.0', to: 'demo.v1.4.0', type: 'skipRange', range: '>=1.0.0 <1.4.0' },
  { from: 'demo.v1.0.0', to: 'demo.v1.4.0', type: 'skipRange', range: '>=1.0.0 <1.4.0' },
  { from: 'demo.v1.3.0', to: 'demo.v1.4.0', type: 'replaces' },
  { from: 'demo.v1.2.0', to: 'demo.v1.3.0', type: 'skips' },
  { from: 'demo.v1.1.0', to: 'demo.v1.3.0', type: 'replaces' },
  { from: 'demo.v1.1.0', to: 'demo.v1.2.0', type: 'replaces' },
  { from: 'demo.v1.0.0', to: 'demo.v1.1.0', type: 'replaces' },
  { from: 'demo.v0.9.0', to: 'demo.v1.0.0', type: 'replaces' },
];

test('file edges: a skipRange written once on its node draws an edge from each node it holds', () => {
  assert.deepEqual(fileEdges(channelDoc), channelEdges);
  // A package graph's skipRanges carry their channels; spans past the
  // nodes draw nothing; an edge into a name no node has comes last.
  const pkgDoc = {
    nodes: [
      { name: 'p.v3', channels: ['a', 'b'], skipRanges: [{ range: '<3.0.0', from: [[1, 1], [2, 9]], channels: ['a'] }, { range: '<2.0.0', from: [], channels: ['b'] }] },
      { name: 'p.v2', channels: ['a'] },
      { name: 'p.v1', channels: ['b'] },
    ],
    edges: [{ from: 'p.v2', to: 'gone', type: 'replaces', channels: ['a'] }, { from: 'p.v2', to: 'p.v3', type: 'replaces', channels: ['a'] }],
  };
  assert.deepEqual(fileEdges(pkgDoc), [
    { from: 'p.v2', to: 'p.v3', type: 'skipRange', range: '<3.0.0', channels: ['a'] },
    { from: 'p.v1', to: 'p.v3', type: 'skipRange', range: '<3.0.0', channels: ['a'] },
    { from: 'p.v2', to: 'p.v3', type: 'replaces', channels: ['a'] },
    { from: 'p.v2', to: 'gone', type: 'replaces', channels: ['a'] },
  ]);
});

test('graph model: typed edges, heads, skipped and external bundles', () => {
  const m = opGraph(channelDoc);
  assert.deepEqual(m.nodes.map((n) => n.id), ['demo.v1.4.0', 'demo.v1.3.0', 'demo.v1.2.0', 'demo.v1.1.0', 'demo.v1.0.0', 'demo.v0.9.0']);
  assert.deepEqual(m.nodes.map((n) => n.label), ['1.4.0', '1.3.0', '1.2.0', '1.1.0', '1.0.0 r2', 'demo.v0.9.0']);
  assert.deepEqual(m.nodes.filter((n) => n.head).map((n) => n.id), ['demo.v1.4.0']);
  assert.deepEqual(m.nodes.filter((n) => n.external).map((n) => n.id), ['demo.v0.9.0']);
  assert.deepEqual(m.nodes.filter((n) => n.deprecated).map((n) => n.id), ['demo.v1.1.0']);
  assert.deepEqual(skippedByV0(m), ['demo.v1.2.0']);
  // Every edge of the file, once, in order, with its type and range; two
  // edges of different types may join the same pair.
  assert.equal(m.edges.length, channelEdges.length);
  assert.deepEqual(m.edges.map((e) => [e.from, e.to, e.type, e.range]), channelEdges.map((e) => [e.from, e.to, e.type, e.range || '']));
  assert.deepEqual(m.edges.map((e) => e.cls), ['skipRange', 'skipRange', 'skipRange', 'skipRange', 'replaces', 'skips', 'replaces', 'replaces', 'replaces', 'replaces']);
  assert.deepEqual(edgeCounts(m), { replaces: 5, skips: 1, skipRange: 4, untyped: 0 });
  assert.equal(edgeClass('replaces'), 'replaces');
  assert.equal(edgeClass('skips'), 'skips');
  assert.equal(edgeClass('skipRange'), 'skipRange');
  assert.equal(edgeClass('somethingNew'), 'untyped');
  // Edge ids differ from every bundle name.
  assert.ok(m.edges.every((e) => e.id.startsWith(EDGE_ID) && !m.index.has(e.id)));
  assert.deepEqual(m.out.get('demo.v1.3.0').map((k) => m.edges[k].type), ['skipRange', 'replaces']);
  assert.deepEqual(m.inn.get('demo.v1.4.0').length, 5);
});

test('layout edges: one per bundle, to its lowest successor', () => {
  const m = opGraph(channelDoc);
  assert.deepEqual(new Map(layoutEdges(m)), new Map([
    ['demo.v1.0.0', 'demo.v1.1.0'], // not 1.4.0 (skipRange)
    ['demo.v1.1.0', 'demo.v1.2.0'],
    ['demo.v1.2.0', 'demo.v1.3.0'],
    ['demo.v1.3.0', 'demo.v1.4.0'],
    ['demo.v0.9.0', 'demo.v1.0.0'],
  ]));
  const pos = ladderLayout(m);
  assert.equal(Object.keys(pos).length, m.nodes.length);
  // Newest at the top; skipped and outside bundles in the second column.
  assert.ok(pos['demo.v1.4.0'][1] < pos['demo.v1.3.0'][1] && pos['demo.v1.0.0'][1] < pos['demo.v0.9.0'][1]);
  assert.equal(pos['demo.v1.2.0'][0] > 0 && pos['demo.v0.9.0'][0] > 0 && pos['demo.v1.3.0'][0] === 0, true);
});

test('edge curves: long edges arc, parallel edges fan out, short ones are straight', () => {
  const m = opGraph(channelDoc);
  // One column, newest at the top, 56 apart (the ladder).
  const pos = {};
  ['demo.v1.4.0', 'demo.v1.3.0', 'demo.v1.2.0', 'demo.v1.1.0', 'demo.v1.0.0', 'demo.v0.9.0'].forEach((id, i) => { pos[id] = [0, i * 56]; });
  const c = edgeCurves(m, pos, 56);
  const at = (from, to, type) => c[m.edges.findIndex((e) => e.from === from && e.to === to && e.type === type)];
  // Adjacent bundles: straight, but the second edge of a pair fans out.
  assert.equal(at('demo.v1.0.0', 'demo.v1.1.0', 'replaces'), 0);
  assert.equal(at('demo.v1.3.0', 'demo.v1.4.0', 'skipRange'), 0);
  assert.notEqual(at('demo.v1.3.0', 'demo.v1.4.0', 'replaces'), 0);
  // Longer spans arc wider; skips on the other side.
  const r2 = at('demo.v1.2.0', 'demo.v1.4.0', 'skipRange'), r4 = at('demo.v1.0.0', 'demo.v1.4.0', 'skipRange');
  assert.ok(r2 > 0 && r4 > r2, `${r2} ${r4}`);
  assert.ok(at('demo.v1.1.0', 'demo.v1.3.0', 'replaces') > 0);
  // channelDoc's nodes without the head's skipRange: one edge each.
  const plain = channelDoc.nodes.map(({ skipRange, skipRangeFrom, ...n }) => n);
  const sk = edgeCurves(opGraph({ nodes: plain, edges: [{ from: 'demo.v1.1.0', to: 'demo.v1.3.0', type: 'skips' }] }), pos, 56);
  assert.ok(sk[0] < 0);
  // A downward edge (to a lower version) arcs on the same side.
  const down = edgeCurves(opGraph({ nodes: plain, edges: [{ from: 'demo.v1.4.0', to: 'demo.v1.1.0', type: 'replaces' }] }), pos, 56);
  assert.ok(down[0] < 0);
  // Edges to bundles without a position are left straight.
  assert.deepEqual(edgeCurves(m, {}, 56), new Array(m.edges.length).fill(0));
});

// A package graph as graph/P.json has it.
const packageDoc = {
  package: 'demo', defaultChannel: 'stable', deprecated: 'end of life',
  channels: [
    { name: 'candidate', head: 'demo.v2.1.0', deprecated: 'use stable', entries: 2 },
    { name: 'stable', head: 'demo.v2.0.0', entries: 2 },
  ],
  nodes: [
    { name: 'demo.v2.1.0', version: '2.1.0', skippedByV0: false, channels: ['candidate'] },
    { name: 'demo.v2.0.0', version: '2.0.0', skippedByV0: false, channels: ['candidate', 'stable'] },
    { name: 'demo.v1.0.0', version: '1.0.0', deprecated: 'old', skippedByV0: true, channels: ['stable'] },
  ],
  edges: [
    { from: 'demo.v2.0.0', to: 'demo.v2.1.0', type: 'replaces', channels: ['candidate'] },
    { from: 'demo.v1.0.0', to: 'demo.v2.0.0', type: 'skips', channels: ['stable'] },
  ],
};

test('package graph: every head, deprecations, channel entries', () => {
  const m = opGraph(packageDoc);
  assert.deepEqual(m.nodes.filter((n) => n.head).map((n) => n.id), ['demo.v2.1.0', 'demo.v2.0.0']);
  assert.deepEqual(m.nodes.map((n) => n.channels), [['candidate'], ['candidate', 'stable'], ['stable']]);
  assert.deepEqual(m.edges.map((e) => e.channels), [['candidate'], ['stable']]);
  assert.deepEqual(skippedByV0(m), ['demo.v1.0.0']);
  assert.deepEqual(deprecationsOf(packageDoc), [
    { kind: 'package', name: 'demo', message: 'end of life' },
    { kind: 'channel', name: 'candidate', message: 'use stable' },
    { kind: 'bundle', name: 'demo.v1.0.0', message: 'old' },
  ]);
  assert.deepEqual(deprecationsOf({ package: 'x', channels: [{ name: 'a' }], nodes: [{ name: 'b' }] }), []);
  assert.deepEqual(channelEntries(packageDoc, 'stable'), ['demo.v2.0.0', 'demo.v1.0.0']);
  assert.deepEqual(channelEntries(packageDoc, 'nope'), []);
});

test('next file: OLM v0 path and OLM v1 pick, marked on the graph', () => {
  const m = opGraph(channelDoc);
  const doc = {
    package: 'demo', channel: 'stable', installed: { name: 'demo.v1.0.0', version: '1.0.0' },
    olmV0: {
      semantics: 'olm-v0: …', channel: 'stable', head: 'demo.v1.4.0',
      next: { name: 'demo.v1.4.0', version: '1.4.0', channel: 'stable', via: [{ channel: 'stable', type: 'skipRange' }] },
      pathToHead: [{ name: 'demo.v1.4.0', version: '1.4.0', channel: 'stable', via: [{ channel: 'stable', type: 'skipRange' }] }],
      reachesHead: true,
    },
    olmV1: {
      semantics: 'olm-v1: …', channels: ['stable'],
      candidates: [
        { name: 'demo.v1.4.0', version: '1.4.0', via: [{ channel: 'stable', type: 'skipRange' }] },
        { name: 'demo.v1.1.0', version: '1.1.0', deprecated: 'data loss', via: [{ channel: 'stable', type: 'replaces' }] },
        { name: 'demo.v1.0.0', version: '1.0.0', installed: true },
      ],
      pick: { name: 'demo.v1.4.0', version: '1.4.0', via: [{ channel: 'stable', type: 'skipRange' }] },
    },
  };
  const n = readNext(doc);
  assert.equal(n.installed, 'demo.v1.0.0');
  assert.equal(n.v0.next, 'demo.v1.4.0');
  assert.deepEqual(n.v0.nextVia, ['skipRange']);
  assert.deepEqual(n.v0.path, [{ name: 'demo.v1.4.0', version: '1.4.0', via: ['skipRange'] }]);
  assert.equal(n.v0.reachesHead, true);
  assert.deepEqual(n.v1.candidates.map((c) => [c.name, c.installed, c.deprecated]), [['demo.v1.4.0', false, ''], ['demo.v1.1.0', false, 'data loss'], ['demo.v1.0.0', true, '']]);
  assert.equal(n.v1.pick, 'demo.v1.4.0');
  assert.equal(n.v1.pickInstalled, false);
  // The hop's edge is the skipRange one, not the replaces chain.
  const marks = pathEdges(m, n);
  const ids = (set) => [...set].map((id) => m.edges.find((e) => e.id === id)).map((e) => [e.from, e.to, e.type]);
  assert.deepEqual(ids(marks.v0), [['demo.v1.0.0', 'demo.v1.4.0', 'skipRange']]);
  assert.deepEqual(ids(marks.v1), [['demo.v1.0.0', 'demo.v1.4.0', 'skipRange']]);
  assert.deepEqual(marks.v0Nodes, ['demo.v1.4.0']);

  // Several hops; no update; staying.
  const walk = readNext({
    installed: { name: 'demo.v1.1.0' },
    olmV0: { head: 'demo.v1.4.0', next: { name: 'demo.v1.3.0', via: [{ type: 'replaces' }] },
      pathToHead: [{ name: 'demo.v1.3.0', via: [{ type: 'replaces' }] }, { name: 'demo.v1.4.0', via: [{ type: 'replaces' }, { type: 'skipRange' }] }], reachesHead: true },
    olmV1: { candidates: [{ name: 'demo.v1.1.0', installed: true }], pick: { name: 'demo.v1.1.0', installed: true } },
  });
  const wm = pathEdges(m, walk);
  assert.deepEqual(ids(wm.v0), [['demo.v1.1.0', 'demo.v1.3.0', 'replaces'], ['demo.v1.3.0', 'demo.v1.4.0', 'skipRange'], ['demo.v1.3.0', 'demo.v1.4.0', 'replaces']]);
  assert.equal(wm.v1.size, 0);
  assert.equal(walk.v1.pickInstalled, true);
  const none = readNext({ installed: { name: 'demo.v1.4.0' }, olmV0: { head: 'demo.v1.4.0', next: null, pathToHead: [], reachesHead: true }, olmV1: { candidates: [], pick: null } });
  assert.equal(none.v0.next, '');
  assert.equal(none.v1.pick, '');
  assert.equal(pathEdges(m, none).v0.size, 0);
  assert.equal(none.v0.stranded, null);
  assert.equal(none.v1.refusal, null);

  // OLM v1 refuses its pick (it declares a dependency): no pick, no edge
  // marked, the refusal read; across catalogs, the winner and one line a
  // catalog. OLM v0 stops before a Prohibited bundle.
  const refused = readNext({
    installed: { name: 'demo.v1.0.0' },
    olmV0: { head: 'demo.v1.4.0', next: null, pathToHead: [], reachesHead: false,
      stranded: { at: 'demo.v1.0.0', bundle: 'demo.v1.4.0', property: 'olm.deprecated', message: 'OLM v0 never installs demo.v1.4.0' } },
    olmV1: { candidates: [{ name: 'demo.v1.4.0', via: [{ type: 'skipRange' }] }, { name: 'demo.v1.0.0', installed: true }], pick: null,
      refusal: { bundle: 'demo.v1.4.0', property: 'olm.gvk.required', message: 'validating bundle "demo.v1.4.0": …' }, error: 'validating bundle "demo.v1.4.0": …' },
    olmV1Catalog: 'certified',
    olmV1PerCatalog: [{ catalog: 'certified', priority: 10, found: true, candidates: 2, first: { name: 'demo.v1.4.0' } }, { catalog: 'community', priority: 0, found: false, candidates: 0 }],
  });
  assert.equal(refused.v1.pick, '');
  assert.deepEqual(refused.v1.refusal, { bundle: 'demo.v1.4.0', property: 'olm.gvk.required', message: 'validating bundle "demo.v1.4.0": …' });
  assert.equal(refused.v1.catalog, 'certified');
  assert.deepEqual(refused.v1.perCatalog, [{ catalog: 'certified', priority: 10, found: true, candidates: 2, first: 'demo.v1.4.0' },
    { catalog: 'community', priority: 0, found: false, candidates: 0, first: '' }]);
  assert.equal(pathEdges(m, refused).v1.size, 0);
  assert.deepEqual(refused.v0.stranded, { at: 'demo.v1.0.0', bundle: 'demo.v1.4.0', property: 'olm.deprecated', message: 'OLM v0 never installs demo.v1.4.0' });
});
