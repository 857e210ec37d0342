// upgraph: catalogd's API for the operator catalogs of a tree, as a
// CloudFront Function (runtime cloudfront-js-2.0, viewer request) on the
// cache behaviour /catalogs/* in front of an S3 copy of the tree. It checks
// a request as catalogd (and upgraph serve) does: the method, the catalog
// name, the metas parameters, then the catalog (CATALOGS: the tree's, when
// the function was generated), answering those errors itself; then it
// rewrites the URI to the object catalog/metas precomputed for the query
// (catalog/metas.Resolve) and clears the query string:
//   /catalogs/C/api/v1/all, or metas without parameters -> operators/C/all.jsonl
//   ?schema=S                   -> operators/C/metas/schema/S.jsonl
//   ?package=P                  -> operators/C/metas/package/P.jsonl
//   ?schema=S&package=P         -> operators/C/metas/package/P/S.jsonl
//   ?name=N                     -> operators/C/metas/name/N.jsonl
//   ?schema=S&name=N            -> operators/C/metas/schema/S/N.jsonl
//   ?package=P&name=N           -> operators/C/metas/package/P/name/N.jsonl
//   ?schema=S&package=P&name=N  -> operators/C/metas/package/P/schema/S/N.jsonl
// (S, P and N encoded as file names). A value the catalog does not have
// names a missing object, which the distribution's custom error response
// answers with metas/empty.jsonl. Setup and differences: docs/operators.md.

var CATALOGS = {};
var VARY = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';
var DNS = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
var INVALID = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', " +
  "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is " +
  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
var TOO_LONG = 'must be no more than 253 characters';
var STATUS = { 200: 'OK', 400: 'Bad Request', 404: 'Not Found', 405: 'Method Not Allowed' };

function handler(event) {
  var req = event.request;
  var h = req.headers || {};
  var origin = value(h.origin);
  var acrm = value(h['access-control-request-method']);
  // CORS first, on every path, as upgraph serve (site.CORS).
  if (req.method === 'OPTIONS' && acrm) {
    if (!origin || (acrm !== 'GET' && acrm !== 'HEAD') || value(h['access-control-request-headers'])) {
      return reply(400, 'text/plain; charset=utf-8', 'CORS request not allowed\n', '', VARY, { 'x-content-type-options': 'nosniff' });
    }
    return reply(200, '', '', origin, VARY, { 'access-control-allow-methods': 'GET, HEAD' });
  }
  var m = /^\/catalogs\/([^\/]*)\/api\/v1\/(all|metas)$/.exec(req.uri);
  if (!m) {
    return req; // other objects are served as stored
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return text(405, 'Method Not Allowed', origin);
  }
  var cat = bin(unescape(bytesOf(m[1]), false) || bytesOf(m[1]));
  var errs = [];
  if (cat.length > 253) {
    errs.push(TOO_LONG);
  }
  if (!DNS.test(cat)) {
    errs.push(INVALID);
  }
  if (errs.length) {
    return text(400, 'invalid catalog name: ' + errs.join('; '), origin);
  }
  var file = 'all.jsonl';
  var q = {};
  if (m[2] === 'metas') {
    q = parseQuery(rawQuery(req));
    if (!q) {
      return text(400, '400 Bad Request', origin);
    }
  }
  if (!Object.prototype.hasOwnProperty.call(CATALOGS, cat)) {
    return text(404, '404 Not Found', origin);
  }
  var s = q.schema, p = q.package, n = q.name;
  if (n && s && p) {
    file = 'metas/package/' + encode(p) + '/schema/' + encode(s) + '/' + encode(n) + '.jsonl';
  } else if (n && p) {
    file = 'metas/package/' + encode(p) + '/name/' + encode(n) + '.jsonl';
  } else if (n && s) {
    file = 'metas/schema/' + encode(s) + '/' + encode(n) + '.jsonl';
  } else if (n) {
    file = 'metas/name/' + encode(n) + '.jsonl';
  } else if (s && p) {
    file = 'metas/package/' + encode(p) + '/' + encode(s) + '.jsonl';
  } else if (p) {
    file = 'metas/package/' + encode(p) + '.jsonl';
  } else if (s) {
    file = 'metas/schema/' + encode(s) + '.jsonl';
  }
  req.uri = '/operators/' + cat + '/' + file;
  req.querystring = {};
  return req;
}

function value(hdr) {
  return hdr ? hdr.value : '';
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

// parseQuery reads the query as catalogd's r.URL.Query() (Go's
// url.ParseQuery): pairs split on '&', a pair with ';' or a malformed
// escape dropped, '+' a space. It returns the first value of schema,
// package and name (as binary strings: one character a byte), or null
// when there is another key.
function parseQuery(raw) {
  var out = {};
  var pairs = raw.split('&');
  for (var i = 0; i < pairs.length; i++) {
    var pair = pairs[i];
    if (pair === '' || pair.indexOf(';') >= 0) {
      continue;
    }
    var eq = pair.indexOf('=');
    var k = unescape(bytesOf(eq < 0 ? pair : pair.slice(0, eq)), true);
    var v = unescape(bytesOf(eq < 0 ? '' : pair.slice(eq + 1)), true);
    if (!k || !v) {
      continue;
    }
    k = bin(k);
    if (k !== 'schema' && k !== 'package' && k !== 'name') {
      return null;
    }
    if (!(k in out)) {
      out[k] = bin(v);
    }
  }
  return out;
}

// bytesOf is the UTF-8 bytes of s (raw non-ASCII arrives as text).
function bytesOf(s) {
  var b = [];
  for (var i = 0; i < s.length; i++) {
    var c = s.charCodeAt(i);
    var d = s.charCodeAt(i + 1);
    if (c >= 0xd800 && c < 0xdc00 && d >= 0xdc00 && d < 0xe000) {
      c = 0x10000 + (c - 0xd800 << 10) + d - 0xdc00;
      i++;
    }
    if (c < 0x80) {
      b.push(c);
      continue;
    }
    var n = c < 0x800 ? 1 : c < 0x10000 ? 2 : 3;
    b.push([0xc0, 0xe0, 0xf0][n - 1] | c >> 6 * n);
    for (; n > 0; n--) {
      b.push(0x80 | c >> 6 * (n - 1) & 0x3f);
    }
  }
  return b;
}

// unescape decodes %XX (and '+' in a query), or returns null for a
// malformed escape, as Go's url.QueryUnescape and PathUnescape do.
function unescape(b, query) {
  var out = [];
  for (var i = 0; i < b.length; i++) {
    if (b[i] === 0x25) {
      var hx = String.fromCharCode(b[i + 1], b[i + 2]);
      if (i + 2 >= b.length || !/^[0-9A-Fa-f]{2}$/.test(hx)) {
        return null;
      }
      out.push(parseInt(hx, 16));
      i += 2;
    } else {
      out.push(query && b[i] === 0x2b ? 0x20 : b[i]);
    }
  }
  return out;
}

function bin(b) {
  return b.map(function (c) { return String.fromCharCode(c); }).join('');
}

// encode is catalog/metas.Encode of a binary string: the '.' of a
// trailing ".jsonl" escaped, and beyond 200 bytes encoded split into
// components of 200 bytes, each but the last followed by "~~/".
function encode(s) {
  var out = '';
  for (var i = 0; i < s.length; i++) {
    var c = s.charCodeAt(i), ch = s.charAt(i);
    if (/[a-z0-9-]/.test(ch) || (ch === '.' && i > 0)) {
      out += ch;
    } else if (ch === '+') {
      out += '_';
    } else if (/[A-Z]/.test(ch)) {
      out += '!' + ch.toLowerCase();
    } else {
      out += '~' + (c < 16 ? '0' : '') + c.toString(16);
    }
  }
  if (/\.jsonl$/.test(out)) {
    out = out.slice(0, -6) + '~2ejsonl';
  }
  var split = '';
  while (out.length > 200) {
    split += out.slice(0, 200) + '~~/';
    out = out.slice(200);
  }
  return split + out;
}

function text(status, msg, origin) {
  return reply(status, 'text/plain; charset=utf-8', msg + '\n', origin, VARY + ', Accept-Encoding', { 'x-content-type-options': 'nosniff' });
}

function reply(status, type, body, origin, vary, extra) {
  var headers = { vary: { value: vary } };
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
