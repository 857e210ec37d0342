// upgraph: the Cincinnati graph API as a CloudFront Function (runtime
// cloudfront-js-2.0, viewer request) in front of an S3 copy of a generated
// tree. It validates a request exactly as the Go handler (upgraph serve)
// does, answers errors itself, and otherwise rewrites the URI to the object
// to serve: graph/<arch>/<channel>/<version>.json when a version is given,
// else graph/<arch>/<channel>.json. The query string is cleared, so the
// cache key is the object alone and a cluster's id never splits the cache.
//
// A viewer accepting gzip gets FILE.gz, stored with Content-Encoding: gzip.
//
// Unknown channels, arches and versions name objects that do not exist.
// The distribution maps origin 403 and 404 to /graph/empty.json with
// response code 200 (a custom error response): the policy-engine's answer
// for an unknown channel, and for a version not in the channel a cluster
// reads the same VersionNotFound from it as from the channel graph.
// Setup and differences from the Go handler: site/edge/README.md.

var PREFIXES = ['', '/api/upgrades_info'];
var JSON_TYPE = 'application/json';
var V1_TYPE = 'application/vnd.redhat.cincinnati.v1+json';
var CHANNEL_RE = /^[0-9a-z\-\.]+$/;
var ARCH_RE = /^[0-9a-z]+$/;
var VARY = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';
var STATUS = { 200: 'OK', 400: 'Bad Request', 405: 'Method Not Allowed', 406: 'Not Acceptable' };
// SemVer 2.0, as the Go handler parses versions (no "v", no leading zeros).
var ID = '(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)';
var SEMVER_RE = new RegExp('^(?:0|[1-9]\\d*)\\.(?:0|[1-9]\\d*)\\.(?:0|[1-9]\\d*)(?:-' + ID + '(?:\\.' + ID +
  ')*)?(?:\\+[0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*)?$');

function handler(event) {
  var req = event.request;
  var h = req.headers || {};
  var origin = value(h.origin);
  var acrm = value(h['access-control-request-method']);
  // CORS first, on every path, as site.CORS.
  if (req.method === 'OPTIONS' && acrm) {
    if (!origin || (acrm !== 'GET' && acrm !== 'HEAD') || value(h['access-control-request-headers'])) {
      return reply(400, 'text/plain; charset=utf-8', 'CORS request not allowed\n', '', { 'x-content-type-options': 'nosniff' });
    }
    return reply(200, '', '', origin, { 'access-control-allow-methods': 'GET, HEAD' });
  }
  if (!isGraphRoute(req.uri)) {
    return req; // other objects are served as stored
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return fail(405, 'method_not_allowed', 'method ' + req.method + ' is not allowed; use GET or HEAD', origin, { allow: 'GET, HEAD' });
  }
  if (!negotiate(h.accept)) {
    return fail(406, 'invalid_content_type', 'invalid Content-Type requested', origin);
  }
  var q = parseQuery(rawQuery(req));
  if (!q.$channel) {
    return fail(400, 'missing_params', 'mandatory client parameters missing: channel', origin);
  }
  var channel = last(q.$channel);
  if (!CHANNEL_RE.test(channel)) {
    return fail(400, 'invalid_params', mismatch('channel', channel, '^[0-9a-z\\-\\.]+$'), origin);
  }
  var arch = q.$arch ? last(q.$arch) : 'amd64';
  if (!ARCH_RE.test(arch)) {
    return fail(400, 'invalid_params', mismatch('arch', arch, '^[0-9a-z]+$'), origin);
  }
  var version = q.$version ? last(q.$version).trim() : '';
  if (channel === '.' || channel === '..') {
    req.uri = '/graph/empty.json'; // valid, but dot segments must stay out of the path
  } else if (SEMVER_RE.test(version)) {
    // Looked up without build metadata, as the Go handler does; the file
    // name encodes an upper-case X as !x.
    req.uri = '/graph/' + arch + '/' + channel + '/' +
      version.split('+')[0].replace(/[A-Z]/g, function (c) { return '!' + c.toLowerCase(); }) + '.json';
  } else {
    req.uri = '/graph/' + arch + '/' + channel + '.json';
  }
  if (acceptsGzip(h['accept-encoding'])) {
    req.uri += '.gz';
  }
  req.querystring = {};
  return req;
}

// Accept-Encoding as the Go handler reads it: gzip's q, else *'s, above 0.
function acceptsGzip(hdr) {
  var g = -1, star = -1;
  (hdr ? (hdr.multiValue ? hdr.multiValue.map(value).join(',') : hdr.value) : '').split(',').forEach(function (part) {
    var ps = part.split(';'), c = ps[0].trim().toLowerCase(), q = 1;
    ps.slice(1).forEach(function (p) {
      var m = /^\s*q\s*=\s*([+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)\s*$/i.exec(p);
      if (m) q = Number(m[1]);
    });
    if (c === 'gzip' || c === 'x-gzip') g = q; else if (c === '*') star = q;
  });
  return g >= 0 ? g > 0 : star > 0;
}

function isGraphRoute(uri) {
  for (var i = 0; i < PREFIXES.length; i++) {
    if (uri === PREFIXES[i] + '/graph' || uri === PREFIXES[i] + '/v1/graph') {
      return true;
    }
  }
  return false;
}

function value(hdr) {
  return hdr ? hdr.value : '';
}

function last(list) {
  return list[list.length - 1];
}

function mismatch(name, v, re) {
  return 'invalid client parameters: ' + name + " '" + v + "' does not match regex '" + re + "'";
}

// Accept as the Go handler negotiates it: upstream's exact values, then
// RFC 9110: each offer takes the q of the most specific range matching it,
// and some offer must get q > 0. CloudFront serves the object's own
// Content-Type, so which offer wins does not matter here.
function negotiate(hdr) {
  if (!hdr) {
    return true;
  }
  var s = hdr.multiValue ? hdr.multiValue.map(value).join(', ') : hdr.value;
  if (s === JSON_TYPE || s === V1_TYPE || s === '*/*' || s === '*' || s === 'application/*') {
    return true;
  }
  var ranges = s.split(',').map(parseRange).filter(Boolean);
  return [JSON_TYPE, V1_TYPE].some(function (offer) {
    var spec = -1, q = 0;
    ranges.forEach(function (r) {
      var sp = r.mr === offer ? 2 : r.mr === 'application/*' ? 1 : r.mr === '*/*' ? 0 : -1;
      if (sp > spec) {
        spec = sp; q = r.q;
      }
    });
    return spec >= 0 && q > 0;
  });
}

function parseRange(s) {
  var params = s.split(';'), mr = params[0].trim().toLowerCase(), q = 1;
  if (mr === '*') {
    mr = '*/*';
  }
  if (mr.indexOf('/') < 0) {
    return null;
  }
  for (var i = 1; i < params.length; i++) {
    var kv = params[i].split('=');
    if (kv.length < 2 || kv[0].trim().toLowerCase() !== 'q') {
      continue;
    }
    var v = params[i].slice(params[i].indexOf('=') + 1).trim();
    if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(v) || Number(v) < 0 || Number(v) > 1) {
      return null;
    }
    q = Number(v);
  }
  return { mr: mr, q: q };
}

// rawQueryString() (2025) gives the query as sent, undefined without '?'.
// Console test events give '' for it, so fall back to the parsed object.
function rawQuery(req) {
  var raw = typeof req.rawQueryString === 'function' ? req.rawQueryString() : undefined;
  var qs = req.querystring || {};
  if (typeof raw === 'string' && (raw !== '' || Object.keys(qs).length === 0)) {
    return raw;
  }
  var pairs = [];
  Object.keys(qs).forEach(function (k) {
    (qs[k].multiValue || [qs[k]]).forEach(function (e) {
      pairs.push(k + '=' + e.value);
    });
  });
  return pairs.join('&');
}

// parseQuery decodes the query as the Go handler does (leniently, as
// upstream): pairs split on '&' only, '+' is a space, a malformed escape
// stays as it is. Keys get a '$' so none is taken for an Object property.
function parseQuery(raw) {
  var values = {};
  raw.split('&').forEach(function (pair) {
    if (pair !== '') {
      var eq = pair.indexOf('='), k = '$' + formDecode(eq < 0 ? pair : pair.slice(0, eq));
      (values[k] = values[k] || []).push(formDecode(eq < 0 ? '' : pair.slice(eq + 1)));
    }
  });
  return values;
}

function formDecode(s) {
  var bytes = [];
  for (var i = 0; i < s.length; i++) {
    var c = s.charCodeAt(i);
    if (c === 0x2b) {
      bytes.push(0x20);
    } else if (c === 0x25 && /^[0-9A-Fa-f]{2}$/.test(s.substr(i + 1, 2))) {
      bytes.push(parseInt(s.substr(i + 1, 2), 16));
      i += 2;
    } else if (c < 0x80) {
      bytes.push(c);
    } else { // raw non-ASCII arrives as text: back to its UTF-8 bytes
      var d = s.charCodeAt(i + 1);
      if (c >= 0xd800 && c < 0xdc00 && d >= 0xdc00 && d < 0xe000) {
        c = 0x10000 + (c - 0xd800 << 10) + d - 0xdc00;
        i++;
      }
      var n = c < 0x800 ? 1 : c < 0x10000 ? 2 : 3;
      bytes.push([0xc0, 0xe0, 0xf0][n - 1] | c >> 6 * n);
      for (; n > 0; n--) {
        bytes.push(0x80 | c >> 6 * (n - 1) & 0x3f);
      }
    }
  }
  return utf8(bytes);
}

// utf8 decodes bytes as Go's strings.ToValidUTF8(s, "\uFFFD"): each run of
// invalid bytes becomes one U+FFFD.
function utf8(bytes) {
  var out = '', invalid = false;
  for (var i = 0; i < bytes.length;) {
    var b = bytes[i], n = b < 0x80 ? 0 : b < 0xc2 ? -1 : b < 0xe0 ? 1 : b < 0xf0 ? 2 : b < 0xf5 ? 3 : -1;
    var cp = b & [0x7f, 0x1f, 0x0f, 0x07][n], ok = n >= 0;
    for (var j = 1; ok && j <= n; j++) {
      var c = bytes[i + j];
      var lo = j > 1 ? 0x80 : b === 0xe0 ? 0xa0 : b === 0xf0 ? 0x90 : 0x80;
      var hi = j > 1 ? 0xbf : b === 0xed ? 0x9f : b === 0xf4 ? 0x8f : 0xbf;
      ok = c >= lo && c <= hi;
      cp = cp << 6 | c & 0x3f;
    }
    if (!ok) {
      out += invalid ? '' : '\ufffd';
      invalid = true;
      i++;
      continue;
    }
    out += cp < 0x10000 ? String.fromCharCode(cp) : String.fromCharCode(0xd7c0 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
    invalid = false;
    i += n + 1;
  }
  return out;
}

function fail(status, kind, msg, origin, extra) {
  // JSON.stringify escapes exactly as the Go handler's writer: '"', '\'
  // and control characters.
  return reply(status, JSON_TYPE, '{"kind":' + JSON.stringify(kind) + ',"value":' + JSON.stringify(msg) + '}', origin, extra);
}

function reply(status, type, body, origin, extra) {
  var headers = { vary: { value: VARY } };
  if (type) {
    headers['content-type'] = { value: type };
  }
  if (origin) {
    headers['access-control-allow-origin'] = { value: origin };
  }
  Object.keys(extra || {}).forEach(function (k) {
    headers[k] = { value: extra[k] };
  });
  var r = { statusCode: status, statusDescription: STATUS[status], headers: headers };
  if (body) {
    r.body = { encoding: 'text', data: body };
  }
  return r;
}
