// Update-path planning of web/graph.js against the vectors shared with
// tools/path (run: node --test test/). UPGRAPH_PATH_VECTORS overrides
// where the vectors are read from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Graph, updatesOf } from '../web/graph.js';

const vectorsFile = process.env.UPGRAPH_PATH_VECTORS ||
  fileURLToPath(new URL('../../../tools/path/testdata/vectors.json', import.meta.url));

test('shared path vectors', async (t) => {
  if (!existsSync(vectorsFile)) {
    t.skip(`no vectors at ${vectorsFile}`);
    return;
  }
  const vectors = JSON.parse(readFileSync(vectorsFile, 'utf8'));
  assert.ok(vectors.length > 0, 'no vectors');
  const names = new Set();
  for (const v of vectors) {
    assert.ok(!names.has(v.name), `duplicate vector ${v.name}`);
    names.add(v.name);
    await t.test(v.name, () => {
      const got = new Graph(v.graph).planPath(v.from, v.to);
      const want = { found: v.want.found, hops: v.want.hops };
      if (v.want.error !== undefined) want.error = v.want.error;
      assert.deepEqual(got, want);
    });
  }
});

// A layered graph where every criterion matters, beyond the vectors.
const node = (version) => ({ version, payload: `example.com/r@${version}`, metadata: {} });
function doc(versions, edges, conditional = []) {
  const ix = new Map(versions.map((v, i) => [v, i]));
  return {
    version: 1,
    nodes: versions.map(node),
    edges: edges.map(([a, b]) => [ix.get(a), ix.get(b)]),
    conditionalEdges: conditional.map(([pairs, risks]) => ({
      edges: pairs.map(([from, to]) => ({ from, to })),
      risks: risks.map((name) => ({ url: `https://example.com/${name}`, name, message: `${name} happens`, matchingRules: [{ type: 'Always' }] })),
    })),
  };
}

test('criteria in order', () => {
  const g = new Graph(doc(
    ['1.0.0', '1.1.0', '1.1.1', '1.1.1-rc.1', '1.1.2', '1.2.0', '1.3.0'],
    [['1.0.0', '1.1.0'], ['1.0.0', '1.1.1'], ['1.1.0', '1.2.0'], ['1.1.1', '1.2.0'], ['1.2.0', '1.3.0'], ['1.0.0', '1.1.1-rc.1'], ['1.1.1-rc.1', '1.2.0']],
    [[[['1.0.0', '1.1.2'], ['1.1.2', '1.2.0']], ['B', 'A']], [[['1.0.0', '1.1.2']], ['A', 'C']]],
  ));
  // Two hops to 1.2.0: through 1.1.2 costs conditional hops, so the newest
  // unconditional intermediate wins, 1.1.1 (not 1.1.1-rc.1: a pre-release is below its release).
  assert.deepEqual(g.planPath('1.0.0', '1.2.0').hops.map((h) => h.to), ['1.1.1', '1.2.0']);
  assert.deepEqual(g.planPath('1.0.0', '1.1.2'), {
    found: true,
    hops: [{ from: '1.0.0', to: '1.1.2', conditional: true, risks: ['A', 'B', 'C'] }],
  });
  assert.deepEqual(g.planPath('1.3.0', '1.0.0'), { found: false, hops: [] });
  assert.deepEqual(g.planPath('1.0.0', '9.9.9'), { found: false, hops: [], error: 'unknown-version' });
  assert.deepEqual(g.planPath('1.0.0', '1.0.0'), { found: true, hops: [] });
  assert.deepEqual(g.risks(0, 4).map((r) => r.name), ['A', 'B', 'C']);
});

test('updates of a per-version document', () => {
  const d = doc(['1.0.0', '1.1.0', '1.2.0', '1.3.0'], [['1.0.0', '1.1.0'], ['1.0.0', '1.3.0'], ['1.1.0', '1.2.0']], [[[['1.0.0', '1.2.0']], ['R']]]);
  const u = updatesOf(d, '1.0.0');
  assert.equal(u.node.version, '1.0.0');
  assert.deepEqual(u.recommended, ['1.3.0', '1.1.0']);
  assert.deepEqual(u.conditional.map((c) => [c.to, c.risks.map((r) => r.name)]), [['1.2.0', ['R']]]);
  assert.deepEqual(updatesOf(d, '9.9.9'), { node: undefined, recommended: [], conditional: [] });
});
