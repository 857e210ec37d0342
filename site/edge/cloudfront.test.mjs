// Tests for cloudfront.js, run with `node --test` (go test runs them too,
// see cloudfront_test.go). The function is plain CloudFront Functions code
// with a top-level handler, so it is loaded into a fresh VM context.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';

const source = readFileSync(new URL('./cloudfront.js', import.meta.url), 'utf8');
const context = vm.createContext({});
vm.runInContext(source, context, { filename: 'cloudfront.js' });

const VARY = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';
const CHANNEL_RE = "'^[0-9a-z\\\\-\\\\.]+$'"; // as it appears inside the JSON body
const ID = '01234567-89ab-4def-8123-456789abcdef';

// event builds a viewer-request event. raw is the query string as sent
// (what rawQueryString() returns); querystring is CloudFront's parsed form,
// derived from raw unless given.
function event({ method = 'GET', uri = '/api/upgrades_info/v1/graph', raw, querystring, headers = {} } = {}) {
  const request = { method, uri, querystring: querystring ?? parsed(raw), headers: {}, cookies: {} };
  for (const [k, v] of Object.entries(headers)) {
    request.headers[k] = Array.isArray(v) ? { value: v[0], multiValue: v.map((value) => ({ value })) } : { value: v };
  }
  if (raw !== null) {
    request.rawQueryString = () => raw;
  }
  return { version: '1.0', context: { eventType: 'viewer-request' }, viewer: { ip: '192.0.2.1' }, request };
}

function parsed(raw) {
  const qs = {};
  for (const pair of (raw ?? '').split('&').filter(Boolean)) {
    const [k, v = ''] = pair.split('=');
    if (qs[k]) {
      qs[k].multiValue ??= [{ value: qs[k].value }];
      qs[k].multiValue.push({ value: v });
    } else {
      qs[k] = { value: v };
    }
  }
  return qs;
}

// run calls the handler and copies the result out of the VM's realm.
function run(opts) {
  return JSON.parse(JSON.stringify(context.handler(event(opts))));
}

function assertRewrite(opts, uri) {
  const out = run(opts);
  assert.equal(out.statusCode, undefined, `expected a request, got ${JSON.stringify(out)}`);
  assert.equal(out.uri, uri);
  assert.deepEqual(out.querystring, {}, 'the query string must not reach the cache key');
}

function assertError(opts, status, kind, value, extraHeaders = {}) {
  const out = run(opts);
  assert.equal(out.statusCode, status, JSON.stringify(out));
  assert.equal(out.body.encoding, 'text');
  assert.equal(out.body.data, `{"kind":"${kind}","value":"${value}"}`);
  assert.equal(out.headers['content-type'].value, 'application/json');
  assert.equal(out.headers.vary.value, VARY);
  for (const [k, v] of Object.entries(extraHeaders)) {
    assert.equal(out.headers[k]?.value, v, k);
  }
}

test('rewrites a cluster request to its per-version object', () => {
  assertRewrite({ raw: `arch=amd64&channel=stable-4.16&id=${ID}&version=4.16.3` }, '/graph/amd64/stable-4.16/4.16.3.json');
  assertRewrite({ raw: `arch=arm64&channel=candidate-4.17&id=${ID}&version=4.17.0-rc.1` }, '/graph/arm64/candidate-4.17/4.17.0-rc.1.json');
  assertRewrite({ raw: 'arch=multi&channel=fast-4.16&version=4.16.3' }, '/graph/multi/fast-4.16/4.16.3.json');
});

test('a viewer accepting gzip gets the gzip copy, FILE.gz (Accept-Encoding read as the Go handler reads it)', () => {
  const raw = `arch=amd64&channel=stable-4.16&id=${ID}&version=4.16.3`;
  for (const [ae, gz] of [['gzip', true], ['gzip, deflate, br', true], ['br;q=1.0, gzip;q=0.8, *;q=0.1', true], ['x-gzip', true],
    ['*', true], ['GZIP ; Q=0.001', true], ['gzip;q=0', false], ['gzip;q=0, *', false], ['*;q=0', false], ['br', false],
    ['identity', false], ['', false], [['br', 'gzip'], true], ['gzip;q=oops', true], ['*;q=0, gzip;q=0.5', true]]) {
    assertRewrite({ raw, headers: { 'accept-encoding': ae } }, '/graph/amd64/stable-4.16/4.16.3.json' + (gz ? '.gz' : ''));
  }
  assertRewrite({ raw: 'channel=stable-4.16', headers: { 'accept-encoding': 'gzip' } }, '/graph/amd64/stable-4.16.json.gz');
  assertRewrite({ raw: 'channel=..', headers: { 'accept-encoding': 'gzip' } }, '/graph/empty.json.gz');
  // Other paths are served as stored, whatever the viewer accepts.
  const out = run({ uri: '/index.json', headers: { 'accept-encoding': 'gzip' } });
  assert.equal(out.uri, '/index.json');
});

test('every graph route is served, other paths pass through untouched', () => {
  for (const uri of ['/graph', '/v1/graph', '/api/upgrades_info/graph', '/api/upgrades_info/v1/graph']) {
    assertRewrite({ uri, raw: 'channel=stable-4.16' }, '/graph/amd64/stable-4.16.json');
  }
  for (const uri of ['/graph/', '/index.json', '/graph/amd64/stable-4.16.json', '/api/upgrades_info']) {
    const out = run({ uri, raw: 'channel=stable-4.16' });
    assert.equal(out.uri, uri);
    assert.deepEqual(out.querystring, { channel: { value: 'stable-4.16' } });
  }
});

test('channel graph without a usable version', () => {
  assertRewrite({ raw: 'channel=stable-4.16' }, '/graph/amd64/stable-4.16.json');
  assertRewrite({ raw: 'channel=stable-4.16&version=' }, '/graph/amd64/stable-4.16.json');
  assertRewrite({ raw: 'channel=stable-4.16&version=latest' }, '/graph/amd64/stable-4.16.json');
  assertRewrite({ raw: 'channel=stable-4.16&version=4.16' }, '/graph/amd64/stable-4.16.json');
  assertRewrite({ raw: 'channel=stable-4.16&version=v4.16.3' }, '/graph/amd64/stable-4.16.json');
  assertRewrite({ raw: 'channel=stable-4.16&version=4.16.03' }, '/graph/amd64/stable-4.16.json');
});

test('versions are decoded, trimmed, looked up without build metadata and file-encoded', () => {
  assertRewrite({ raw: 'channel=c&version=4.16.3%2Bamd64' }, '/graph/amd64/c/4.16.3.json');
  assertRewrite({ raw: 'channel=c&version=+4.16.3' }, '/graph/amd64/c/4.16.3.json');
  assertRewrite({ raw: 'channel=c&version=4.1.0-RC.1' }, '/graph/amd64/c/4.1.0-!r!c.1.json');
});

test('unknown channels and arches name missing objects (the custom error response answers)', () => {
  assertRewrite({ raw: 'channel=nope-1.0' }, '/graph/amd64/nope-1.0.json');
  assertRewrite({ raw: 'channel=stable-4.16&arch=ppc64le&version=4.16.3' }, '/graph/ppc64le/stable-4.16/4.16.3.json');
  assertRewrite({ raw: 'channel=..&version=4.16.3' }, '/graph/empty.json');
  assertRewrite({ raw: 'channel=.' }, '/graph/empty.json');
});

test('the last of repeated parameters wins, unknown ones are ignored', () => {
  assertRewrite({ raw: 'channel=fast-4.16&channel=stable-4.16&version=4.16.0&version=4.16.1&id=x&foo' },
    '/graph/amd64/stable-4.16/4.16.1.json');
  assertRewrite({ raw: 'arch=x86_64&channel=c&arch=arm64' }, '/graph/arm64/c.json');
});

test('the parsed query string is used when rawQueryString() is missing or console-empty', () => {
  const querystring = {
    channel: { value: 'fast-4.16', multiValue: [{ value: 'fast-4.16' }, { value: 'stable-4.16' }] },
    version: { value: '4.16.1' }, id: { value: ID },
  };
  assertRewrite({ raw: null, querystring }, '/graph/amd64/stable-4.16/4.16.1.json');
  assertRewrite({ raw: '', querystring }, '/graph/amd64/stable-4.16/4.16.1.json');
  assertRewrite({ raw: 'channel=a', querystring }, '/graph/amd64/a.json');
});

test('a missing channel', () => {
  const msg = 'mandatory client parameters missing: channel';
  assertError({ raw: null, querystring: {} }, 400, 'missing_params', msg);
  assertError({ raw: '' }, 400, 'missing_params', msg);
  assertError({ raw: 'arch=amd64&version=4.16.3' }, 400, 'missing_params', msg);
  assertError({ raw: 'channels=a&xchannel=b' }, 400, 'missing_params', msg);
});

test('keys are decoded too', () => {
  assertRewrite({ raw: '%63hannel=stable-4.16&ar%63h=arm64' }, '/graph/arm64/stable-4.16.json');
});

test('invalid channels and arches, channel first, values decoded (leniently) and echoed', () => {
  const bad = (name, v, re) => `invalid client parameters: ${name} '${v}' does not match regex ${re}`;
  for (const [raw, shown] of [['', ''], ['Stable-4.9', 'Stable-4.9'], ['invalid_channel', 'invalid_channel'],
    ['invalid:channel', 'invalid:channel'], ['invalid=channel', 'invalid=channel'], ['stable+4.9', 'stable 4.9'],
    ['a%20b', 'a b'], ['caf%C3%A9', 'café'], ['a%22b%5C', 'a\\"b\\\\'], ['tab%09', 'tab\\t'],
    ['s;x', 's;x'], ['%zz', '%zz'], ['a%4', 'a%4'], ['%', '%'], ['bad%FF%FEutf8', 'bad\ufffdutf8'], ['a%C3', 'a\ufffd'],
    ['%F0%9F%98%80', '\u{1F600}'], ['%ED%A0%80', '\ufffd'], ['raw-é-\u{1F600}', 'raw-é-\u{1F600}']]) {
    assertError({ raw: `channel=${raw}&arch=BAD` }, 400, 'invalid_params', bad('channel', shown, CHANNEL_RE));
  }
  assertError({ raw: 'channel' }, 400, 'invalid_params', bad('channel', '', CHANNEL_RE));
  for (const arch of ['x86_64', '', 'AMD64']) {
    assertError({ raw: `channel=stable-4.16&arch=${arch}` }, 400, 'invalid_params', bad('arch', arch, "'^[0-9a-z]+$'"));
  }
});

test('Accept negotiation (spec §6.4, plus q-value lists)', () => {
  const ok = ['application/json', 'application/vnd.redhat.cincinnati.v1+json', '*/*', '*', 'application/*',
    'application/json, text/plain', 'application/json;q=0.9', 'Application/JSON', 'text/html,*/*;q=0.8',
    'application/json; charset=utf-8', '*/*, application/json;q=0', 'application/*;q=0, application/json',
    'application/json;q=0, */*', 'text/plain;q=0.9, application/json;Q=.5'];
  for (const accept of ok) {
    assertRewrite({ raw: 'channel=c', headers: { accept } }, '/graph/amd64/c.json');
  }
  assertRewrite({ raw: 'channel=c', headers: { accept: ['text/html', 'application/json'] } }, '/graph/amd64/c.json');
  const notOK = ['', 'text/html', 'application/vnd.redhat.cincinnati.v2+json', 'application/json;q=0', 'text/*',
    'application/json;q=2', 'application/json;q=x', '*/*, application/*;q=0',
    'application/*, application/json;q=0, application/vnd.redhat.cincinnati.v1+json;q=0'];
  for (const accept of notOK) {
    assertError({ raw: 'channel=c', headers: { accept } }, 406, 'invalid_content_type', 'invalid Content-Type requested');
  }
  // Accept is checked before the parameters.
  assertError({ raw: '', headers: { accept: 'text/html' } }, 406, 'invalid_content_type', 'invalid Content-Type requested');
});

test('CORS: echoed origin, preflights on any path', () => {
  const origin = 'https://console.example.com';
  assertError({ raw: 'channel=BAD', headers: { origin } }, 400, 'invalid_params',
    `invalid client parameters: channel 'BAD' does not match regex ${CHANNEL_RE}`, { 'access-control-allow-origin': origin });
  for (const uri of ['/api/upgrades_info/v1/graph', '/elsewhere']) {
    const out = run({ method: 'OPTIONS', uri, raw: null, headers: { origin, 'access-control-request-method': 'GET' } });
    assert.equal(out.statusCode, 200);
    assert.equal(out.body, undefined);
    assert.equal(out.headers['access-control-allow-origin'].value, origin);
    assert.equal(out.headers['access-control-allow-methods'].value, 'GET, HEAD');
    assert.equal(out.headers.vary.value, VARY);
  }
  for (const headers of [{ origin, 'access-control-request-method': 'PUT' },
    { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-foo' },
    { 'access-control-request-method': 'HEAD' }]) {
    const out = run({ method: 'OPTIONS', raw: null, headers });
    assert.equal(out.statusCode, 400);
    assert.equal(out.body.data, 'CORS request not allowed\n');
    assert.equal(out.headers['content-type'].value, 'text/plain; charset=utf-8');
    assert.equal(out.headers['access-control-allow-origin'], undefined);
  }
});

test('methods other than GET and HEAD on the graph routes', () => {
  assertRewrite({ method: 'HEAD', raw: 'channel=c' }, '/graph/amd64/c.json');
  assertError({ method: 'OPTIONS', raw: 'channel=c' }, 405, 'method_not_allowed',
    'method OPTIONS is not allowed; use GET or HEAD', { allow: 'GET, HEAD' });
});
