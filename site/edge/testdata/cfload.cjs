// Loads a CloudFront function (a file) into a fresh VM context, as
// cloudfront-js-2.0 runs it, and returns the context. A function that
// imports the 'cloudfront' module (the phased-rollout graph function)
// gets a stand-in for CloudFront KeyValueStore that reads the store's
// import file kvsFile ({"data":[{"key":…,"value":…}]}, what upgraph edge
// cloudfront --kvs writes and CloudFront imports). There is no local
// KeyValueStore server to run instead: this stand-in is the one part of
// the edge tests that is not the real component. It answers as the
// documented helpers do: exists(key) resolves to a boolean, get(key)
// resolves to the value as a string and rejects for a missing key.
'use strict';
const fs = require('fs');
const vm = require('vm');

const IMPORT = "import cf from 'cloudfront';\n";

function kvsStandIn(kvsFile) {
  if (!kvsFile) {
    throw new Error('the function reads a KeyValueStore: give its import file');
  }
  const doc = JSON.parse(fs.readFileSync(kvsFile, 'utf8'));
  if (!doc || !Array.isArray(doc.data) || Object.keys(doc).length !== 1) {
    throw new Error(kvsFile + ': not a KeyValueStore import file ({"data":[…]})');
  }
  const store = new Map();
  for (const e of doc.data) {
    if (typeof e.key !== 'string' || typeof e.value !== 'string' || Object.keys(e).length !== 2) {
      throw new Error(kvsFile + ': entry ' + JSON.stringify(e) + ' is not {"key": string, "value": string}');
    }
    if (store.has(e.key)) {
      throw new Error(kvsFile + ': key ' + e.key + ' twice');
    }
    store.set(e.key, e.value);
  }
  return {
    exists: async (key) => store.has(key),
    get: async (key, options) => {
      if (!store.has(key)) {
        throw new Error('KeyValueStore: key not found: ' + key);
      }
      const v = store.get(key);
      return options && options.format === 'json' ? JSON.parse(v) : v;
    },
  };
}

// The modules of cloudfront-js-2.0 the functions use.
const modules = { crypto: require('crypto') };

function load(file, kvsFile) {
  let src = fs.readFileSync(file, 'utf8');
  const globals = {
    Buffer,
    require: (name) => {
      if (!(name in modules)) {
        throw new Error('module ' + name + ' is not available to CloudFront Functions here');
      }
      return modules[name];
    },
  };
  if (src.startsWith(IMPORT)) {
    // An ES module import cannot run in a script context: the stand-in
    // takes its place, and the line stays (blank) so line numbers hold.
    src = '\n' + src.slice(IMPORT.length);
    const kvs = kvsStandIn(kvsFile);
    globals.cf = { kvs: () => kvs };
  } else if (src.includes("from 'cloudfront'")) {
    throw new Error(file + ": imports 'cloudfront' other than on its first line");
  }
  const ctx = vm.createContext(globals);
  vm.runInContext(src, ctx, { filename: 'cloudfront.js' });
  return ctx;
}

module.exports = { load };
