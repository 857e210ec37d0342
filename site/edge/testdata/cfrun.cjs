// Runs a CloudFront function (the file argv[2]; argv[3]: the KeyValueStore
// import file of a function that reads one, see cfload.cjs) on a JSON
// array of viewer-request events read from stdin and writes the array of
// results. An event's "raw" field becomes request.rawQueryString() (null:
// no '?' in the URL, which gives undefined). An async handler is awaited.
'use strict';
const fs = require('fs');
const { load } = require('./cfload.cjs');

(async () => {
  const ctx = load(process.argv[2], process.argv[3]);
  const events = JSON.parse(fs.readFileSync(0, 'utf8'));
  const results = [];
  for (const e of events) {
    const raw = e.raw === null ? undefined : e.raw;
    delete e.raw;
    e.request.rawQueryString = () => raw;
    results.push(await ctx.handler(e));
  }
  process.stdout.write(JSON.stringify(results));
})().catch((err) => {
  process.stderr.write(String(err && err.stack || err) + '\n');
  process.exit(1);
});
