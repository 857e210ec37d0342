
// upgraph phased rollouts (docs/rollouts.md), added by
// CloudFrontRolloutFunction for trees with rollouts: the query's bucket
// is computed as upgraph serve and the nginx configuration compute it, and
// a graph file the tree has a copy of for that bucket is served from
// rollout/<bucket>/. Which files have copies is in the KeyValueStore
// associated with the function (CloudFrontRolloutKVS's import file): a
// key per such file, its path in the tree, valued "K-" (buckets K..N) or
// "K1,K2,…". The cache key is the rewritten URI, so buckets never share a
// cached answer. A store that cannot be read fails the request (CloudFront
// answers 503) rather than offer a rolling release to every bucket.
var ROLLOUT_N = 10;
var KVS = cf.kvs();

async function rolloutURI(uri, q) {
  var key = uri.slice(1).replace(/\.gz$/, '');
  if (!/^graph\/[^\/]+\/[^\/]+(\/[^\/]+)?\.json$/.test(key) || !(await KVS.exists(key))) {
    return uri;
  }
  var k = rolloutBucket(q, ROLLOUT_N), copies = await KVS.get(key);
  var has = /-$/.test(copies) ? k >= Number(copies.slice(0, -1)) : copies.split(',').indexOf(String(k)) >= 0;
  return has ? '/rollout/' + k + uri : uri;
}

// rolloutBucket: a plain-decimal rollout_wariness W gives ceil(W*n)
// (clamped, exact on W's digits), else the id, else node_uuid, hashed
// as nginx's split_clients hashes, else the fixed bucket n.
function rolloutBucket(q, n) {
  if (q.$rollout_wariness) {
    var k = warinessBucket(last(q.$rollout_wariness), n);
    if (k >= 0) {
      return k;
    }
  }
  var id = q.$id ? last(q.$id) : '';
  if (id === '') {
    id = q.$node_uuid ? last(q.$node_uuid) : '';
  }
  return id === '' ? n : hashBucket(id, n);
}

function warinessBucket(w, n) {
  var m = /^([+-]?)([0-9]*)\.?([0-9]*)$/.exec(w);
  if (!m || !/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$/.test(w)) {
    return -1;
  }
  var whole = m[2].replace(/^0+/, ''), frac = m[3].replace(/0+$/, '');
  if (whole === '' && frac === '' || m[1] === '-') {
    return 0;
  }
  if (whole !== '') {
    return n;
  }
  for (var k = 1; k < n; k++) {
    var t = String(10000 + k * 10000 / n).slice(1).replace(/0+$/, '');
    var len = Math.max(t.length, frac.length);
    if (pad(frac, len) <= pad(t, len)) {
      return k;
    }
  }
  return n;
}

function pad(s, len) {
  while (s.length < len) {
    s += '0';
  }
  return s;
}

// hashBucket is split_clients with n equal parts: MurmurHash2 of the
// value's UTF-8 bytes against cumulative bounds of part*0xffffffff/10000.
function hashBucket(value, n) {
  var h = murmurHash2(utf8Bytes(value)), part = 10000 / n, bound = 0;
  for (var k = 1; k < n; k++) {
    bound += Math.floor(part * 0xffffffff / 10000);
    if (h < bound) {
      return k;
    }
  }
  return n;
}

function mul32(a, b) {
  return ((a & 0xffff) * b + (((a >>> 16) * b & 0xffff) << 16)) >>> 0;
}

function murmurHash2(bytes) {
  var m = 0x5bd1e995, len = bytes.length, h = len >>> 0, i = 0;
  for (; len - i >= 4; i += 4) {
    var k = (bytes[i] | bytes[i + 1] << 8 | bytes[i + 2] << 16 | bytes[i + 3] << 24) >>> 0;
    k = mul32(k, m);
    k = (k ^ k >>> 24) >>> 0;
    k = mul32(k, m);
    h = mul32(h, m);
    h = (h ^ k) >>> 0;
  }
  switch (len - i) {
    case 3:
      h = (h ^ bytes[i + 2] << 16) >>> 0;
    // falls through
    case 2:
      h = (h ^ bytes[i + 1] << 8) >>> 0;
    // falls through
    case 1:
      h = (h ^ bytes[i]) >>> 0;
      h = mul32(h, m);
  }
  h = (h ^ h >>> 13) >>> 0;
  h = mul32(h, m);
  return (h ^ h >>> 15) >>> 0;
}

function utf8Bytes(s) {
  var out = [], e = encodeURIComponent(s);
  for (var i = 0; i < e.length; i++) {
    if (e.charAt(i) === '%') {
      out.push(parseInt(e.substr(i + 1, 2), 16));
      i += 2;
    } else {
      out.push(e.charCodeAt(i));
    }
  }
  return out;
}
