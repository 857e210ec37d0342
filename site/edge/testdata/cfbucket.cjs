// Loads a CloudFront function (argv[2]) and prints, for each raw query
// string of the JSON array on stdin, the phased-rollout bucket its
// rolloutBucket gives.
'use strict';
const fs = require('fs');
const vm = require('vm');

const ctx = vm.createContext({ Buffer, require: () => { throw new Error('no modules'); } });
vm.runInContext(fs.readFileSync(process.argv[2], 'utf8'), ctx, { filename: 'cloudfront.js' });
const queries = JSON.parse(fs.readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(queries.map((raw) => ctx.rolloutBucket(ctx.parseQuery(raw), ctx.ROLLOUT.n))));
