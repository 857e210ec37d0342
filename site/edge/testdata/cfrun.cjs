// Runs cloudfront.js (argv[2]) on a JSON array of viewer-request events read
// from stdin and writes the array of results. An event's "raw" field becomes
// request.rawQueryString() (null: no '?' in the URL, which gives undefined).
'use strict';
const fs = require('fs');
const vm = require('vm');

const ctx = vm.createContext({});
vm.runInContext(fs.readFileSync(process.argv[2], 'utf8'), ctx, { filename: 'cloudfront.js' });
const events = JSON.parse(fs.readFileSync(0, 'utf8'));
const results = events.map((e) => {
  const raw = e.raw === null ? undefined : e.raw;
  delete e.raw;
  e.request.rawQueryString = () => raw;
  return ctx.handler(e);
});
process.stdout.write(JSON.stringify(results));
