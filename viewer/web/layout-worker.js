// Layered (dagre) layout off the main thread. Request:
// {id, nodes: [[id, width, height], …], edges: [[source, target], …],
// rankdir, ranksep, nodesep}; answer: {id, positions: {id: [x, y]}, ms}
// or {id, error}.
/* global dagre */
importScripts('dagre.min.js');

self.onmessage = (ev) => {
  const req = ev.data;
  const start = performance.now();
  try {
    self.postMessage({ id: req.id, positions: layout(req), ms: performance.now() - start });
  } catch (err) {
    self.postMessage({ id: req.id, error: String(err && err.message || err) });
  }
};

function layout(req) {
  const g = new dagre.graphlib.Graph({ multigraph: false });
  g.setGraph({ rankdir: req.rankdir || 'LR', ranksep: req.ranksep || 60, nodesep: req.nodesep || 10, edgesep: 5, marginx: 10, marginy: 10 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const [id, width, height] of req.nodes) g.setNode(id, { width, height });
  for (const [s, t] of req.edges) g.setEdge(s, t);
  dagre.layout(g);
  const positions = {};
  for (const id of g.nodes()) {
    const n = g.node(id);
    positions[id] = [n.x, n.y];
  }
  return positions;
}
