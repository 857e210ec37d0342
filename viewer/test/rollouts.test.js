// Run with: node --test viewer/test/ (the viewer tests' runner).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bucketOf, murmurHash2, bucketPath, progress } from '../web/rollouts.js';

test('murmurHash2 is nginx ngx_murmur_hash2', () => {
  const enc = (s) => new TextEncoder().encode(s);
  assert.equal(murmurHash2(enc('')), 0);
  assert.equal(murmurHash2(enc('a')), 0x92685f5e);
  assert.equal(murmurHash2(enc('abcd')), 0x26873021);
  assert.equal(murmurHash2(enc('3e7b9d0a-8a43-4a54-9d1e-5c0f2b1a7e62')), 0x7bd37a35);
});

test('bucketOf: wariness, id, none', () => {
  assert.equal(bucketOf('', 10), 10);
  assert.equal(bucketOf('0', 10), 0);
  assert.equal(bucketOf('0.3', 10), 3);
  assert.equal(bucketOf('0.300001', 10), 4);
  assert.equal(bucketOf('1', 10), 10);
  // 0x7bd37a35 = 2077456949 < 5·429496729: bucket 5.
  assert.equal(bucketOf('3e7b9d0a-8a43-4a54-9d1e-5c0f2b1a7e62', 10), 5);
});

test('bucketPath and progress', () => {
  const ro = { buckets: 10, at: '2026-01-01T00:00:00Z', variants: { 'graph/amd64/fast-4.16.json': [4, 5, 6, 7, 8, 9, 10] },
    releases: [{ version: '4.16.2', throttling: 0.37, openBuckets: 3, opens: ['2025-12-31T00:00:00Z', '', '', '2026-01-01T01:00:00Z', '', '', '', '', '', ''] }] };
  assert.equal(bucketPath(ro, 5, 'graph/amd64/fast-4.16.json'), 'rollout/5/graph/amd64/fast-4.16.json');
  assert.equal(bucketPath(ro, 3, 'graph/amd64/fast-4.16.json'), 'graph/amd64/fast-4.16.json');
  assert.equal(bucketPath(ro, null, 'graph/amd64/fast-4.16.json'), 'graph/amd64/fast-4.16.json');
  assert.match(progress(ro, 4)[0], /bucket 4: from 2026-01-01T01:00:00Z/);
  assert.match(progress(ro, 1)[0], /bucket 1: offered/);
});

test('progress: the canary (bucket 0) is offered from the start, not before', () => {
  const release = { version: '4.16.2', startEpoch: 1767225600, throttling: 0, openBuckets: 0, opens: Array(10).fill('') }; // 2026-01-01T00:00:00Z
  const before = { buckets: 10, at: '2025-12-31T23:59:59Z', variants: {}, releases: [release] };
  assert.match(progress(before, 0)[0], /bucket 0: from 2026-01-01T00:00:00Z/);
  assert.match(progress({ ...before, at: '2026-01-01T00:00:00Z' }, 0)[0], /bucket 0: offered/);
});
