// Node unit tests of reading next/ files that list at most 16 hops and
// candidates (model.FileListMax): readNext's totals, readNextWhole and
// PlanCatalog.route following a cut OLM v0 path into the last listed
// hop's next/ file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readNext, readNextWhole, PlanCatalog, nextPath, packageGraphPath } from '../web/graph.js';

// A replaces chain p.v0 … p.v(n-1) in channel stable; each next/ file
// lists at most k hops of its path (k stands for 16), pathToHeadTotal
// when cut, as catalog/views writes them.
function chain(n, k) {
  const names = Array.from({ length: n }, (_, i) => `p.v${i}`);
  const files = new Map();
  files.set(packageGraphPath('c', 'p'), { name: 'p', defaultChannel: 'stable', channels: [{ name: 'stable', head: names[n - 1] }],
    nodes: names.map((name, i) => ({ name, version: `${i}.0.0`, channels: ['stable'] })) });
  files.set('operators/c/catalog.json', { packages: [{ name: 'p' }] });
  names.forEach((name, i) => {
    const path = names.slice(i + 1).map((h) => ({ name: h, version: `${names.indexOf(h)}.0.0`, channel: 'stable', via: [{ channel: 'stable', type: 'replaces' }] }));
    const v0 = { head: names[n - 1], next: path[0] || null, pathToHead: path.slice(0, k), reachesHead: true };
    if (path.length > k) v0.pathToHeadTotal = path.length;
    files.set(nextPath('c', 'p', 'stable', name), { installed: { name }, olmV0: v0, olmV1: { candidates: [], pick: null } });
  });
  return { names, files };
}

test('readNext: the totals of a cut file', () => {
  const cut = readNext({
    installed: { name: 'a' },
    olmV0: { head: 'z', next: { name: 'b' }, pathToHead: [{ name: 'b' }, { name: 'c' }], pathToHeadTotal: 40, reachesHead: true },
    olmV1: { candidates: [{ name: 'z' }, { name: 'y' }], candidatesTotal: 30, pick: { name: 'z' } },
  });
  assert.deepEqual([cut.v0.path.length, cut.v0.pathTotal, cut.v1.candidates.length, cut.v1.candidatesTotal], [2, 40, 2, 30]);
  const whole = readNext({ installed: { name: 'a' }, olmV0: { pathToHead: [{ name: 'b' }] }, olmV1: { candidates: [{ name: 'b' }] } });
  assert.deepEqual([whole.v0.pathTotal, whole.v1.candidatesTotal], [1, 1]);
});

test('readNextWhole follows the last listed hop to the whole path', async () => {
  const { names, files } = chain(12, 3);
  const loads = [];
  const load = async (b) => {
    loads.push(b);
    return files.get(nextPath('c', 'p', 'stable', b)) || null;
  };
  const n = await readNextWhole(files.get(nextPath('c', 'p', 'stable', 'p.v0')), load);
  assert.deepEqual(n.v0.path.map((h) => h.name), names.slice(1));
  assert.deepEqual(loads, ['p.v3', 'p.v6', 'p.v9']); // ⌈11/3⌉ files in all
  // A missing continuation leaves what was listed.
  const short = await readNextWhole(files.get(nextPath('c', 'p', 'stable', 'p.v0')), async () => null);
  assert.deepEqual([short.v0.path.length, short.v0.pathTotal], [3, 11]);
});

test('PlanCatalog.route follows a cut OLM v0 path to the head', async () => {
  const { names, files } = chain(12, 3);
  const cat = new PlanCatalog('c', async (path) => files.get(path) || null, async () => null);
  const rt = await cat.route('p', 'stable', { name: 'p.v1', version: '1.0.0' }, 'v0');
  assert.deepEqual([rt.found, rt.reason, rt.head], [true, '', 'p.v11']);
  assert.deepEqual(rt.hops.map((h) => [h.from, h.to.name]), names.slice(1, -1).map((f, i) => [f, names[i + 2]]));
});

test('readNext: OLM v0 dependencies of a catalog set tree (picks, providers, held)', () => {
  const n = readNext({
    installed: { name: 't.v1' },
    olmV0: {
      head: 't.v3', next: { name: 't.v2' }, reachesHead: false,
      pathToHead: [{
        name: 't.v2', version: '2.0.0',
        dependencies: [
          { type: 'olm.package.required', text: 'with package: c and with version in range: >2.0.0', pick: { catalog: 'rmq-high', package: 'c', channel: 'stable', bundle: 'c.v2.2', version: '2.2.0' } },
          { type: 'olm.gvk.required', text: 'providing an API with group: g, version: v1, kind: K', reason: 'no-provider', message: 'no bundle in catalogs a, b provides an operator providing an API with group: g, version: v1, kind: K' },
        ],
        providers: [{ catalog: 'rmq-high', package: 'c', channel: 'stable', bundle: 'c.v2.2', version: '2.2.0', requiredBy: 't.v2' }],
        providersTotal: 20,
      }],
      held: { at: 't.v2', reason: 'unsatisfied-dependency', message: 'OLM v0 stays at t.v2: …', passedOver: [] },
    },
    olmV1: { candidates: [], pick: null },
  });
  const h = n.v0.path[0];
  assert.deepEqual(h.dependencies.map((d) => [d.type, d.pick && `${d.pick.bundle}@${d.pick.catalog}`, d.message !== '']), [['olm.package.required', 'c.v2.2@rmq-high', false], ['olm.gvk.required', null, true]]);
  assert.deepEqual([h.providers.map((p) => `${p.bundle}@${p.catalog}<${p.requiredBy}`), h.providersTotal], [['c.v2.2@rmq-high<t.v2'], 20]);
  assert.deepEqual(n.v0.held, { at: 't.v2', message: 'OLM v0 stays at t.v2: …' });
  const plain = readNext({ installed: { name: 'a' }, olmV0: { pathToHead: [{ name: 'b' }] }, olmV1: {} });
  assert.deepEqual([plain.v0.path[0], plain.v0.held], [{ name: 'b', version: '', via: [] }, null]);
});
