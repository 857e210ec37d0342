// Node unit tests of the plan view's pure logic (graph.js, mirroring
// tools/plan): minors, blocking with 4.23 ≡ 5.0, the first allowing
// bundle on a path, crossings, EUS steps, the default catalog mapping,
// the operators list and its URL form, skipRange matching, OLM v0's first
// hop from a bundle a channel lacks, OLM v1's (v1FirstHop) and its walk
// over next/ files (PlanCatalog.routeV1), the EUS channels --via-eus adds
// and the union of channel graphs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseMinor, normalizeMinor, minorBlocks, minorAllows, bundleAllows, firstAllowing, planCrossings, eusSteps,
  catalogMinor, defaultCatalogs, defaultCatalogSets, setName, v1SetPick, routeV1Set, parseInstalls, encodeInstalls, decodeInstalls, encodeCatalogMap, decodeCatalogMap,
  rangeHolds, v0Order, v0FirstHop, isPlanURL, readPlanState, planSearch,
  v1FirstHop, v1FirstPick, v1Refusal, eusChannels, unionDocs, Graph, PlanCatalog, nextPath, packageGraphPath,
} from '../web/graph.js';

const M = (s) => parseMinor(s);

test('parseMinor', () => {
  assert.deepEqual(M('4.21'), { major: 4, minor: 21 });
  assert.deepEqual(M('v5.0'), { major: 5, minor: 0 });
  for (const bad of ['', '4', '4.', '04.1', '4.01', '4.22.1', 'x.y', 'v']) assert.equal(M(bad), null, bad);
});

test('normalize: 4.23 is 5.0, nothing else moves', () => {
  assert.deepEqual(normalizeMinor(M('4.23')), M('5.0'));
  for (const s of ['4.22', '5.0', '4.24', '5.1', '3.23']) assert.deepEqual(normalizeMinor(M(s)), M(s), s);
});

// The table of tools/plan's minor_test (Blocks: at 4.22, 4.22 blocks,
// 4.23 and 5.0 do not; at 5.0, 4.23 blocks).
test('minorBlocks', () => {
  const cases = [
    ['4.21', '4.21', true], ['4.22', '4.21', false], ['4.21', '4.20', false], ['4.20', '4.20', true],
    ['4.22', '4.22', true], ['4.23', '4.22', false], ['5.0', '4.22', false], ['5.1', '4.22', false],
    ['4.23', '5.0', true], ['5.0', '5.0', true], ['5.1', '5.0', false], ['4.24', '5.0', true],
  ];
  for (const [max, at, want] of cases) assert.equal(minorBlocks(M(max), M(at)), want, `max ${max} at ${at}`);
});

test('minorAllows: a hop that skips a minor needs max to reach it', () => {
  assert.equal(minorAllows(M('4.23'), M('4.22'), M('5.0')), true);
  assert.equal(minorAllows(M('5.0'), M('4.22'), M('5.0')), true);
  assert.equal(minorAllows(M('4.22'), M('4.22'), M('5.0')), false);
  assert.equal(minorAllows(M('4.21'), M('4.20'), M('4.21')), true);
  assert.equal(minorAllows(M('4.21'), M('4.21'), M('4.22')), false);
  // 4.21 → 5.0 skips 4.22 (4.23): 4.22 passes OLM's check at 4.21 but
  // does not reach 5.0.
  assert.equal(minorAllows(M('4.22'), M('4.21'), M('5.0')), false);
  assert.equal(minorAllows(M('5.0'), M('4.21'), M('5.0')), true);
});

test('bundleAllows: no value allows, an invalid one blocks', () => {
  assert.equal(bundleAllows({}, M('4.22'), M('5.0')), true);
  assert.equal(bundleAllows({ maxOpenShiftVersionError: 'bad' }, M('4.22'), M('5.0')), false);
  assert.equal(bundleAllows({ maxOpenShiftVersion: '4.22' }, M('4.22'), M('5.0')), false);
  assert.equal(bundleAllows({ maxOpenShiftVersion: '4.23' }, M('4.22'), M('5.0')), true);
});

test('firstAllowing: the first bundle on the path that allows the hop', () => {
  const hops = [
    { to: { name: 'a.v1.1.0', maxOpenShiftVersion: '4.22' } },
    { to: { name: 'a.v1.2.0', maxOpenShiftVersion: '4.23' } },
    { to: { name: 'a.v1.3.0' } },
  ];
  assert.equal(firstAllowing(hops, M('4.22'), M('5.0')), 1);
  assert.equal(firstAllowing(hops, M('4.21'), M('4.22')), 0);
  assert.equal(firstAllowing(hops.slice(0, 1), M('4.22'), M('5.0')), -1);
  assert.equal(firstAllowing([{ to: { name: 'x', known: false } }, hops[2]], M('4.22'), M('5.0')), 1);
  assert.equal(firstAllowing([], M('4.22'), M('5.0')), -1);
});

test('planCrossings and eusSteps', () => {
  const rel = { from: '4.20.0', found: true, hops: [{ from: '4.20.0', to: '4.20.1' }, { from: '4.20.1', to: '4.21.0' }, { from: '4.21.0', to: '4.22.0' }, { from: '4.22.0', to: '5.0.0' }] };
  const { minors, crossings } = planCrossings(rel);
  assert.deepEqual(minors.map((m) => `${m.major}.${m.minor}`), ['4.20', '4.21', '4.22', '5.0']);
  assert.deepEqual(crossings.map((c) => `${c.relFrom}>${c.relTo}`), ['4.20.1>4.21.0', '4.21.0>4.22.0', '4.22.0>5.0.0']);
  assert.deepEqual(eusSteps(crossings, false), [null, null, null]);
  const e = eusSteps(crossings, true);
  assert.deepEqual(e[0], { from: '4.20', intermediate: '4.21', to: '4.22', step: 1 });
  assert.equal(e[1].step, 2);
  assert.equal(e[2], null);
  assert.deepEqual(planCrossings({ from: '4.22.1', found: false, hops: [] }).crossings, []);
});

test('catalog mapping by name', () => {
  assert.deepEqual(catalogMinor('ocp-v4-21'), M('4.21'));
  assert.deepEqual(catalogMinor('redhat-operators-v5-0'), M('5.0'));
  assert.deepEqual(catalogMinor('v4.21'), M('4.21'));
  for (const n of ['community', 'ocp-4-21', 'ocp-v4', 'xv4-21']) assert.equal(catalogMinor(n), null, n);
  assert.deepEqual(defaultCatalogs(['community', 'ocp-v4-22', 'ocp-v5-0', 'other-v4-22'], [M('4.22'), M('5.0'), M('4.23')]),
    { '4.22': 'ocp-v4-22', '5.0': 'ocp-v5-0' });
  const map = { '5.0': 'b', '4.22': 'a' };
  assert.equal(encodeCatalogMap(map), '4.22:a,5.0:b');
  assert.deepEqual(decodeCatalogMap('4.22:a,5.0:b,bad,x:y'), map);
  // Catalog sets: every catalog named for the minor, named in the set
  // without the minor; the URL form joins them with +.
  assert.deepEqual(defaultCatalogSets(['community', 'ocp-v4-22', 'ocp-v5-0', 'other-v4-22'], [M('4.22'), M('5.0'), M('4.23')]),
    { '4.22': ['ocp-v4-22', 'other-v4-22'], '5.0': ['ocp-v5-0'] });
  assert.deepEqual(['ocp-v4-22', 'redhat-operators-v5-0', 'v4.21', 'community'].map(setName), ['ocp', 'redhat-operators', 'v4.21', 'community']);
  const sets = { '5.0': ['b'], '4.22': ['a', 'c'] };
  assert.equal(encodeCatalogMap(sets), '4.22:a+c,5.0:b');
  assert.deepEqual(decodeCatalogMap('4.22:a+c+a,5.0:b,bad', true), sets);
  assert.deepEqual(decodeCatalogMap('4.22:a+c,5.0:b'), { '4.22': 'a', '5.0': 'b' });
});

// model.ResolveV1Set's rules (olmv1set_test's cases in small): across
// catalogs a non-deprecated first candidate wins, then the highest
// priority; equal highest priorities tie (every kept catalog named,
// sorted); the winner's pick is validated (a dependency refuses it).
test('v1SetPick', () => {
  const blob = { entries: [{ name: 'p.v1' }, { name: 'p.v2', replaces: 'p.v1' }] };
  const nodes = (dep = false) => [{ name: 'p.v1', version: '1.0.0', deprecated: dep ? 'old' : '' }, { name: 'p.v2', version: '2.0.0', deprecated: dep ? 'old' : '' }];
  const m = (name, priority, opts = {}) => ({ name, priority, blob: opts.none ? null : blob, nodes: nodes(opts.dep),
    refusals: new Map(opts.refuse ? [['p.v2', { refusal: { bundle: 'p.v2', property: 'olm.gvk.required', message: 'no' } }]] : []) });
  const inst = { name: 'p.v1', version: '1.0.0' };
  assert.deepEqual(v1SetPick([m('a', 0), m('b', 10)], 'p', 'stable', inst).pick, { name: 'p.v2', via: ['replaces'], installed: false, catalog: 'b' });
  // b's first candidate is deprecated: a's non-deprecated one wins over b's priority.
  assert.equal(v1SetPick([m('a', 0), m('b', 10, { dep: true })], 'p', 'stable', inst).pick.catalog, 'a');
  assert.equal(v1SetPick([m('a', 0), m('b', 10, { none: true })], 'p', 'stable', inst).pick.catalog, 'a');
  const tie = v1SetPick([m('z', 0), m('b', 5), m('a', 5)], 'p', 'stable', inst);
  assert.equal(tie.tie, true);
  assert.equal(tie.error, 'error upgrading from currently installed version "1.0.0": found bundles for package "p" in channels [stable] in multiple catalogs with the same priority [a b z]');
  assert.equal(v1SetPick([m('a', 0, { refuse: true }), m('b', -1)], 'p', 'stable', inst).refusal.property, 'olm.gvk.required');
  assert.equal(v1SetPick([m('a', 0, { none: true })], 'p', 'stable', inst).none, true);
});

test('parseInstalls reads what upgraph plan --operators reads', () => {
  const want = [{ package: 'a', channel: 'stable', version: '1.0.0', catalog: '' }, { package: 'b', channel: '', version: 'b.v0.1.0', catalog: '' }];
  const forms = [
    '# comment\n- {package: a, channel: stable, version: 1.0.0}\n- {package: b, version: b.v0.1.0}  # trailing\n',
    '- package: a\n  channel: "stable"\n  version: 1.0.0\n- package: b\n  version: \'b.v0.1.0\'\n',
    '[{"package":"a","channel":"stable","version":"1.0.0"},{"package":"b","version":"b.v0.1.0"}]',
    'a/stable@1.0.0\nb@b.v0.1.0',
  ];
  for (const f of forms) assert.deepEqual(parseInstalls(f), { installs: want, error: '' }, f);
  assert.match(parseInstalls('').error, /no installed operator/);
  assert.match(parseInstalls('- {package: a}').error, /no version/);
  assert.deepEqual(parseInstalls('- {package: a, version: 1, catalog: c}').installs, [{ package: 'a', channel: '', version: '1', catalog: 'c' }]);
  assert.match(parseInstalls('- {package: a, version: 1, target: x}').error, /target/);
  assert.match(parseInstalls('- {package: a, version: 1, colour: x}').error, /unknown key/);
  const odd = [{ package: 'p,@/', channel: 'ch@x', version: '1.0.0+b/c', catalog: '' }, { package: 'q', channel: '', version: '1', catalog: 'c@t' }];
  assert.deepEqual(decodeInstalls(encodeInstalls([...want, ...odd])), [...want, ...odd]);
});

test('plan URL state round trip', () => {
  const s = { arch: 'amd64', channel: 'eus-4.22', from: '4.20.0', to: '4.22.0', eus: true, olm: 'v0', ops: 'a@1.0.0', cats: '4.21:x' };
  const q = planSearch(s);
  assert.ok(isPlanURL(q));
  assert.ok(!isPlanURL('?channel=x'));
  assert.deepEqual(readPlanState(q), s);
});

test('rangeHolds is blang/semver ranges on ParseTolerant versions', () => {
  assert.equal(rangeHolds('>=2.0.0 <3.0.0', '2.0.0'), true);
  assert.equal(rangeHolds('>=2.0.0 <3.0.0', '3.0.0'), false);
  assert.equal(rangeHolds('>= 2.0.0 < 3.0.0', 'v2.5'), true);
  assert.equal(rangeHolds('<1.0.0 || >=2.0.0', '0.9.0'), true);
  assert.equal(rangeHolds('<1.0.0 || >=2.0.0', '1.5.0'), false);
  assert.equal(rangeHolds('>=1.0.0 <2.0.0', '1.5.0-rc.1'), true);
  assert.equal(rangeHolds('nonsense', '1.0.0'), false);
  assert.equal(rangeHolds('>=1.0.0', 'not-a-version'), false);
});

test('v0FirstHop: OLM v0 from a bundle the channel lacks', () => {
  const blob = { entries: [
    { name: 'x.v1.0.0' },
    { name: 'x.v1.1.0', replaces: 'x.v1.0.0', skipRange: '>=0.9.0 <1.1.0' },
    { name: 'x.v1.2.0', replaces: 'x.v1.1.0', skips: ['x.v0.8.0'] },
    { name: 'x.v1.3.0', replaces: 'x.v1.2.0', skipRange: '>=0.5.0 <1.3.0' },
  ] };
  const order = v0Order(blob, 'x.v1.3.0');
  assert.deepEqual(order.map((e) => e.name), ['x.v1.3.0', 'x.v1.2.0', 'x.v1.1.0', 'x.v1.0.0']);
  // head first: the head's skipRange holds 0.9.5.
  assert.deepEqual(v0FirstHop(order, { name: 'x.v0.9.5', version: '0.9.5' }), { name: 'x.v1.3.0', via: ['skipRange'] });
  assert.deepEqual(v0FirstHop(v0Order(blob, 'x.v1.2.0'), { name: 'x.v0.8.0', version: '0.8.0' }), { name: 'x.v1.2.0', via: ['skips'] });
  assert.equal(v0FirstHop(order, { name: 'y.v9.0.0', version: '9.0.0' }), null);
});

// OLM v1's pick for a bundle the channel lacks: successors by
// replaces/skips/skipRange among the channel's entries, or the installed
// version; non-deprecated first, then the highest version.
test('v1FirstHop', () => {
  const blob = { entries: [
    { name: 'p.v1.2.0', replaces: 'p.v1.1.0', skipRange: '>=1.0.0 <1.2.0' },
    { name: 'p.v1.1.0', replaces: 'p.v1.0.0' },
    { name: 'p.v1.3.0', skips: ['p.v1.0.0'] },
  ] };
  const nodes = [{ name: 'p.v1.1.0', version: '1.1.0' }, { name: 'p.v1.2.0', version: '1.2.0' }, { name: 'p.v1.3.0', version: '1.3.0', deprecated: 'old' }, { name: 'p.v9', version: '9.0.0' }];
  // 1.3.0 is deprecated: sorted last; 1.2.0 (skipRange) beats 1.1.0 (replaces).
  assert.deepEqual(v1FirstHop(blob, nodes, { name: 'p.v1.0.0', version: '1.0.0' }), { name: 'p.v1.2.0', via: ['skipRange'] });
  const fresh = nodes.map((n) => ({ ...n, deprecated: '' }));
  assert.deepEqual(v1FirstHop(blob, fresh, { name: 'p.v1.0.0', version: '1.0.0' }), { name: 'p.v1.3.0', via: ['skips'] });
  // No edge: none; the installed version listed under another name: stays.
  assert.equal(v1FirstHop(blob, nodes, { name: 'q.v0.1.0', version: '0.1.0' }), null);
  assert.equal(v1FirstHop({ entries: [{ name: 'p.v1.1.0' }] }, nodes, { name: 'x', version: '1.1.0' }), null);
  // Not in the channel: never a candidate.
  assert.equal(v1FirstHop({ entries: [] }, nodes, { name: 'p.v1.0.0', version: '1.0.0' }), null);
});

// OLM v1's walk over next/ files: pick after pick until it stays, found
// when it lands on the head, stranded otherwise.
test('PlanCatalog.routeV1', async () => {
  const files = new Map();
  const pkg = { name: 'p', defaultChannel: 'stable', channels: [{ name: 'stable', head: 'p.v3' }], nodes: [
    { name: 'p.v1', version: '1.0.0', channels: ['stable'] }, { name: 'p.v2', version: '2.0.0', channels: ['stable'] },
    { name: 'p.v3', version: '3.0.0', channels: ['stable'] }, { name: 'p.v0', version: '0.5.0', channels: [] }] };
  files.set('operators/c/catalog.json', { packages: [{ name: 'p' }] });
  files.set(packageGraphPath('c', 'p'), pkg);
  const pick = (name, installed = false, via = ['replaces']) => ({ olmV1: { pick: { name, installed, via: via.map((type) => ({ type })) } } });
  files.set(nextPath('c', 'p', 'stable', 'p.v1'), pick('p.v2'));
  files.set(nextPath('c', 'p', 'stable', 'p.v2'), pick('p.v3', false, ['skips']));
  files.set(nextPath('c', 'p', 'stable', 'p.v3'), pick('p.v3', true));
  const cat = new PlanCatalog('c', async (path) => files.get(path) || null,
    async () => `${JSON.stringify({ schema: 'olm.channel', name: 'stable', entries: [{ name: 'p.v1', skipRange: '<1.0.0' }] })}\n`);
  let rt = await cat.route('p', 'stable', { name: 'p.v1', version: '1.0.0' }, 'v1');
  assert.equal(rt.found, true);
  assert.deepEqual(rt.hops.map((h) => [h.from, h.to.name, h.via]), [['p.v1', 'p.v2', ['replaces']], ['p.v2', 'p.v3', ['skips']]]);
  // A bundle the channel lacks: v1FirstHop from the blob, then the walk.
  rt = await cat.route('p', 'stable', { name: 'p.v0', version: '0.5.0' }, 'v1');
  assert.deepEqual(rt.hops.map((h) => h.to.name), ['p.v1', 'p.v2', 'p.v3']);
  assert.equal(rt.found, true);
  // Staying short of the head: stranded.
  files.set(nextPath('c', 'p', 'stable', 'p.v2'), pick('p.v2', true));
  cat.cache.clear();
  rt = await cat.route('p', 'stable', { name: 'p.v1', version: '1.0.0' }, 'v1');
  assert.equal(rt.found, false);
  assert.equal(rt.reason, 'stranded');
  assert.deepEqual(rt.hops.map((h) => h.to.name), ['p.v2']);
  // The head itself: found, no hop.
  rt = await cat.route('p', 'stable', { name: 'p.v3', version: '3.0.0' }, 'v1');
  assert.deepEqual([rt.found, rt.hops.length], [true, 0]);
});

// What the runtimes refuse (tools/plan with h1's rules): OLM v0 never
// takes a Prohibited entry (legacy olm.deprecated) and says so when it
// was the only way; OLM v1 validates what it resolved, the installed
// version included, and refuses a dependency with no fallback.
test('v0FirstHop skips Prohibited entries', () => {
  const blob = { entries: [
    { name: 'x.v1.0.0' },
    { name: 'x.v1.1.0', replaces: 'x.v1.0.0', skipRange: '>=0.9.0 <1.1.0' },
    { name: 'x.v1.2.0', replaces: 'x.v1.1.0', skipRange: '>=0.9.0 <1.2.0' },
  ] };
  const order = v0Order(blob, 'x.v1.2.0');
  const inst = { name: 'x.v0.9.5', version: '0.9.5' };
  assert.deepEqual(v0FirstHop(order, inst, (n) => n === 'x.v1.2.0'), { name: 'x.v1.1.0', via: ['skipRange'] });
  assert.deepEqual(v0FirstHop(order, inst, (n) => n !== 'x.v1.0.0'), { prohibited: 'x.v1.2.0' });
  assert.deepEqual(v0FirstHop(order, inst), { name: 'x.v1.2.0', via: ['skipRange'] });
});

test('v1FirstPick and v1Refusal', () => {
  const blob = { entries: [{ name: 'p.v1.1.0', skipRange: '<1.1.0' }, { name: 'p.v1.0.0' }] };
  const nodes = [{ name: 'p.v1.0.0', version: '1.0.0' }, { name: 'p.v1.1.0', version: '1.1.0' }];
  assert.deepEqual(v1FirstPick(blob, nodes, { name: 'x', version: '1.0.0' }), { name: 'p.v1.1.0', via: ['skipRange'], installed: false });
  assert.deepEqual(v1FirstPick(blob, nodes, { name: 'x', version: '1.1.0' }), { name: 'p.v1.1.0', via: [], installed: true });
  assert.equal(v1FirstHop(blob, nodes, { name: 'x', version: '1.1.0' }), null);
  assert.equal(v1FirstPick({ entries: [] }, nodes, { name: 'x', version: '1.0.0' }), null);
  // The first dependency property in the bundle's order, the controller's message.
  assert.deepEqual(v1Refusal({ name: 'b', properties: [{ type: 'olm.package' }, { type: 'olm.constraint' }, { type: 'olm.gvk.required' }] }),
    { bundle: 'b', property: 'olm.constraint', message: 'validating bundle "b": bundle "b" has a dependency declared via property "olm.constraint" which is currently not supported' });
  assert.equal(v1Refusal({ name: 'b', properties: [{ type: 'olm.gvk' }, { type: 'olm.deprecated' }] }), null);
});

test('PlanCatalog routes stop where the runtime refuses', async () => {
  const files = new Map();
  const pkg = { name: 'p', defaultChannel: 'stable', channels: [{ name: 'stable', head: 'p.v3' }], nodes: [
    { name: 'p.v1', version: '1.0.0', channels: ['stable'] }, { name: 'p.v2', version: '2.0.0', channels: ['stable'] },
    { name: 'p.v3', version: '3.0.0', channels: ['stable'] }] };
  files.set('operators/c/catalog.json', { packages: [{ name: 'p' }] });
  files.set(packageGraphPath('c', 'p'), pkg);
  const ref = { bundle: 'p.v3', property: 'olm.gvk.required', message: 'validating bundle "p.v3": …' };
  files.set(nextPath('c', 'p', 'stable', 'p.v1'), {
    olmV0: { head: 'p.v3', pathToHead: [{ name: 'p.v2', via: [{ type: 'replaces' }] }], reachesHead: false, stranded: { at: 'p.v2', bundle: 'p.v3', property: 'olm.deprecated' } },
    olmV1: { pick: { name: 'p.v2', via: [{ type: 'replaces' }] } },
  });
  files.set(nextPath('c', 'p', 'stable', 'p.v2'), { olmV1: { pick: null, refusal: ref, error: ref.message } });
  const texts = new Map([
    ['operators/c/metas/package/p/olm.channel.jsonl', `${JSON.stringify({ schema: 'olm.channel', name: 'stable', entries: [
      { name: 'p.v1' }, { name: 'p.v2', replaces: 'p.v1' }, { name: 'p.v3', replaces: 'p.v2', skipRange: '<3.0.0' }] })}\n`],
    ['operators/c/metas/package/p/olm.bundle.jsonl', [
      { schema: 'olm.bundle', name: 'p.v1', properties: [] },
      { schema: 'olm.bundle', name: 'p.v2', properties: [{ type: 'olm.deprecated', value: {} }] },
      { schema: 'olm.bundle', name: 'p.v3', properties: [{ type: 'olm.gvk.required', value: {} }, { type: 'olm.deprecated', value: {} }] },
    ].map((b) => JSON.stringify(b)).join('\n')],
  ]);
  const cat = new PlanCatalog('c', async (path) => files.get(path) || null, async (path) => texts.get(path) || null);
  // From next/ files: OLM v1 stops at p.v2 (its resolution is refused), OLM v0 before the Prohibited p.v3.
  let rt = await cat.route('p', 'stable', { name: 'p.v1', version: '1.0.0' }, 'v1');
  assert.deepEqual([rt.found, rt.reason, rt.hops.map((h) => h.to.name)], [false, 'refused-by-v1', ['p.v2']]);
  assert.match(rt.message, /^OLM v1 cannot update p\.v2: p\.v3 declares olm\.gvk\.required, and operator-controller refuses/);
  rt = await cat.route('p', 'stable', { name: 'p.v1', version: '1.0.0' }, 'v0');
  assert.deepEqual([rt.found, rt.reason, rt.hops.map((h) => h.to.name)], [false, 'prohibited', ['p.v2']]);
  assert.match(rt.message, /^OLM v0 cannot update p\.v2: its next bundle p\.v3 has the legacy olm\.deprecated property/);
  // From a bundle the catalog lacks: the olm.bundle blobs say. OLM v1
  // resolves p.v3 (the highest successor) and refuses it; OLM v0's only
  // hop from 0.5.0 is the Prohibited p.v3.
  const old = { name: 'p.v0', version: '0.5.0' };
  rt = await cat.route('p', 'stable', old, 'v1');
  assert.deepEqual([rt.found, rt.reason, rt.hops.length], [false, 'refused-by-v1', 0]);
  assert.match(rt.message, /^OLM v1 cannot update p\.v0: p\.v3 declares olm\.gvk\.required/);
  rt = await cat.route('p', 'stable', old, 'v0');
  assert.deepEqual([rt.found, rt.reason, rt.hops.length], [false, 'prohibited', 0]);
  assert.match(rt.message, /^OLM v0 cannot update p\.v0: its next bundle p\.v3/);
});

test('eusChannels: the EUS channels between the two minors, in the tree order', () => {
  const chans = ['candidate-5.0', 'eus-4.22', 'eus-4.18', 'stable-4.22', 'eus-5.0', 'eus-4.20', 'eus-x'];
  assert.deepEqual(eusChannels(chans, '4.20.1', '5.0.1'), ['eus-4.22', 'eus-5.0', 'eus-4.20']);
  assert.deepEqual(eusChannels(chans, '5.0.1', '4.21.0'), ['eus-4.22', 'eus-5.0']);
  assert.deepEqual(eusChannels(chans, 'bad', '5.0.1'), []);
});

test('unionDocs: the path searched across channels', () => {
  const a = { nodes: [{ version: '4.22.1' }, { version: '5.0.1' }], edges: [[0, 1]], conditionalEdges: [] };
  const b = { nodes: [{ version: '4.20.1' }, { version: '4.21.1' }, { version: '4.22.1' }], edges: [[0, 1], [1, 2]],
    conditionalEdges: [{ edges: [{ from: '4.20.1', to: '4.21.1' }], risks: [{ name: 'R' }] }] };
  const g = new Graph(unionDocs([a, b]));
  assert.deepEqual(g.planPath('4.20.1', '5.0.1').hops.map((h) => [h.from, h.to]), [['4.20.1', '4.21.1'], ['4.21.1', '4.22.1'], ['4.22.1', '5.0.1']]);
  assert.equal(new Graph(a).planPath('4.22.1', '5.0.1').found, true);
  assert.equal(unionDocs([a]), a);
});

test('plan URL: the OLM runtime', () => {
  const s = { channel: 'eus-4.22', arch: 'amd64', from: '4.20.0', to: '4.22.0', eus: true, olm: 'v1', ops: 'a@1', cats: '' };
  assert.equal(readPlanState(planSearch(s)).olm, 'v1');
  assert.ok(!planSearch({ ...s, olm: 'v0' }).includes('olm='));
  assert.equal(readPlanState('?plan&olm=v2').olm, 'v0');
});

// OLM v1 over a minor's catalog set (routeV1Set, as catalog/upgrade's
// walkV1Set and plan's firstHop): picks land in whichever catalog wins
// and the walk goes on from there; a tie on the way is catalog-tie; from
// a bundle the operator's catalog lacks, a tie is channel-invalid and a
// pick from another catalog ends the route (unreachable).
test('routeV1Set', async () => {
  const mk = (name, nodes, entries, head) => {
    const files = new Map();
    const texts = new Map();
    files.set(`operators/${name}/catalog.json`, { packages: [{ name: 'p' }] });
    files.set(packageGraphPath(name, 'p'), { name: 'p', defaultChannel: 'stable', channels: [{ name: 'stable', head }],
      nodes: nodes.map(([n, v]) => ({ name: n, version: v, channels: ['stable'] })) });
    texts.set(`operators/${name}/metas/package/p/olm.channel.jsonl`, `${JSON.stringify({ schema: 'olm.channel', package: 'p', name: 'stable', entries })}\n`);
    texts.set(`operators/${name}/metas/package/p/olm.bundle.jsonl`, '');
    return new PlanCatalog(name, async (path) => files.get(path) || null, async (path) => texts.get(path) || null);
  };
  const home = mk('home', [['p.v1', '1.0.0'], ['p.v3', '3.0.0']], [{ name: 'p.v1' }, { name: 'p.v3', replaces: 'p.v2' }], 'p.v3');
  const hi = mk('hi', [['p.v2', '2.0.0'], ['p.v3', '3.0.0']], [{ name: 'p.v2', replaces: 'p.v1' }, { name: 'p.v3', replaces: 'p.v2' }], 'p.v3');
  const set = (others) => ({ home: { name: 'home', cat: home }, all: [{ name: 'home', priority: 0, cat: home }, ...others] });
  // p.v1 → p.v2 → p.v3, both from hi (priority 5 beats home's staying
  // on p.v1): found, the hop landing on home's head by name.
  let rt = await routeV1Set(set([{ name: 'hi', priority: 5, cat: hi }]), 'p', 'stable', { name: 'p.v1', version: '1.0.0' });
  assert.deepEqual(rt.hops.map((h) => [h.to.name, h.catalog]), [['p.v2', 'hi'], ['p.v3', 'hi']]);
  assert.equal(rt.found, true);
  // A catalog with p.v3 at hi's priority: the pick from p.v2 ties, every
  // catalog kept named (home's lower priority included).
  const twin = mk('twin', [['p.v3', '3.0.0']], [{ name: 'p.v3', replaces: 'p.v2' }], 'p.v3');
  rt = await routeV1Set(set([{ name: 'hi', priority: 5, cat: hi }, { name: 'twin', priority: 5, cat: twin }]), 'p', 'stable', { name: 'p.v1', version: '1.0.0' });
  assert.deepEqual([rt.found, rt.reason, rt.hops.map((h) => h.to.name)], [false, 'catalog-tie', ['p.v2']]);
  assert.match(rt.message, /same priority \[hi home twin\]/);
  // From p.v2, which home lacks: the tie is plan's firstHop's channel-invalid.
  rt = await routeV1Set(set([{ name: 'twin', priority: 0, cat: twin }]), 'p', 'stable', { name: 'p.v2', version: '2.0.0' });
  assert.deepEqual([rt.found, rt.reason, rt.hops.length], [false, 'channel-invalid', 0]);
  // From p.v2 with twin of higher priority: its pick ends the route.
  rt = await routeV1Set(set([{ name: 'twin', priority: 1, cat: twin }]), 'p', 'stable', { name: 'p.v2', version: '2.0.0' });
  assert.deepEqual([rt.found, rt.reason, rt.hops.map((h) => h.catalog)], [false, 'unreachable', ['twin']]);
});
