#!/bin/sh
# Refreshes assets/, the vendored third-party files of the viewer, from the
# npm packages pinned in package.json and package-lock.json. The result is
# checked in, so `go build` needs neither npm nor the network. To update a
# dependency: change its version in package.json, run `npm install
# --package-lock-only`, run this script, run the tests, commit all of it.
set -eu
cd "$(dirname "$0")"
npm ci --ignore-scripts --no-audit --no-fund
rm -rf assets
mkdir assets
cp node_modules/cytoscape/dist/cytoscape.min.js assets/cytoscape.min.js
cp node_modules/cytoscape/LICENSE assets/cytoscape.LICENSE.txt
# dagre.min.js bundles @dagrejs/graphlib. Its source map is not vendored,
# so the comment pointing at it goes.
sed '/^\/\/# sourceMappingURL=/d' node_modules/@dagrejs/dagre/dist/dagre.min.js >assets/dagre.min.js
cp node_modules/@dagrejs/dagre/dist/dagre.min.js.LEGAL.txt assets/dagre.min.js.LEGAL.txt
cp node_modules/@dagrejs/dagre/LICENSE assets/dagre.LICENSE.txt
cp node_modules/@dagrejs/graphlib/LICENSE assets/graphlib.LICENSE.txt
# What was vendored, checked by TestVendoredVersions against the lock file.
node -e '
const lock = require("./package-lock.json").packages;
for (const name of ["cytoscape", "@dagrejs/dagre", "@dagrejs/graphlib"]) {
  const p = lock["node_modules/" + name];
  console.log(name + "@" + p.version + " " + p.integrity);
}' >assets/VERSIONS.txt
echo "assets/ refreshed:" && cat assets/VERSIONS.txt
