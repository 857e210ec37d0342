// Runs a CloudFront function (the file argv[2]) on a JSON array of viewer-request events read
// from stdin and writes the array of results. An event's "raw" field becomes
// request.rawQueryString() (null: no '?' in the URL, which gives undefined).
'use strict';
const fs = require('fs');
const vm = require('vm');

// The modules of cloudfront-js-2.0 the functions use.
const modules = { crypto: require('crypto') };
const ctx = vm.createContext({
  Buffer,
  require: (name) => {
    if (!(name in modules)) {
      throw new Error('module ' + name + ' is not available to CloudFront Functions here');
    }
    return modules[name];
  },
});
vm.runInContext(fs.readFileSync(process.argv[2], 'utf8'), ctx, { filename: 'cloudfront.js' });
const events = JSON.parse(fs.readFileSync(0, 'utf8'));
const results = events.map((e) => {
  const raw = e.raw === null ? undefined : e.raw;
  delete e.raw;
  e.request.rawQueryString = () => raw;
  return ctx.handler(e);
});
process.stdout.write(JSON.stringify(results));
