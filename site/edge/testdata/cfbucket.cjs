// Loads a CloudFront function (argv[2]; argv[3] its KeyValueStore import
// file, see cfload.cjs) and prints, for each raw query string of the JSON
// array on stdin, the phased-rollout bucket its rolloutBucket gives.
'use strict';
const fs = require('fs');
const { load } = require('./cfload.cjs');

const ctx = load(process.argv[2], process.argv[3]);
const queries = JSON.parse(fs.readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(queries.map((raw) => ctx.rolloutBucket(ctx.parseQuery(raw), ctx.ROLLOUT_N))));
