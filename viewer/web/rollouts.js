// Phased rollouts in the viewer (docs/rollouts.md): which bucket a cluster
// is in, which file it reads, and how far each rollout has come. The
// bucket rule is the edges' (generator/rollout Bucket): a plain decimal is
// a rollout_wariness W, bucket ceil(W*n); anything else a cluster id,
// hashed with nginx split_clients' MurmurHash2.

const PLAIN = /^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$/;

// bucketOf is the bucket of what the user typed ('' : the fixed bucket of
// clients without an id, n).
export function bucketOf(input, n) {
  const v = input.trim();
  if (v === '') return n;
  if (PLAIN.test(v)) return warinessBucket(v, n);
  return hashBucket(v, n);
}

function warinessBucket(w, n) {
  const m = /^([+-]?)([0-9]*)\.?([0-9]*)$/.exec(w);
  const whole = m[2].replace(/^0+/, ''), frac = m[3].replace(/0+$/, '');
  if ((whole === '' && frac === '') || m[1] === '-') return 0;
  if (whole !== '') return n;
  for (let k = 1; k < n; k++) {
    const t = String(10000 + k * 10000 / n).slice(1).replace(/0+$/, '');
    const len = Math.max(t.length, frac.length);
    if (frac.padEnd(len, '0') <= t.padEnd(len, '0')) return k;
  }
  return n;
}

export function hashBucket(value, n) {
  const h = murmurHash2(new TextEncoder().encode(value)), part = 10000 / n;
  let bound = 0;
  for (let k = 1; k < n; k++) {
    bound += Math.floor(part * 0xffffffff / 10000);
    if (h < bound) return k;
  }
  return n;
}

export function murmurHash2(bytes) {
  const m = 0x5bd1e995;
  let h = bytes.length >>> 0, i = 0;
  for (; bytes.length - i >= 4; i += 4) {
    let k = (bytes[i] | bytes[i + 1] << 8 | bytes[i + 2] << 16 | bytes[i + 3] << 24) >>> 0;
    k = Math.imul(k, m) >>> 0;
    k = (k ^ k >>> 24) >>> 0;
    k = Math.imul(k, m) >>> 0;
    h = (Math.imul(h, m) ^ k) >>> 0;
  }
  switch (bytes.length - i) {
    case 3: h = (h ^ bytes[i + 2] << 16) >>> 0; // falls through
    case 2: h = (h ^ bytes[i + 1] << 8) >>> 0; // falls through
    case 1: h = Math.imul((h ^ bytes[i]) >>> 0, m) >>> 0;
  }
  h = Math.imul((h ^ h >>> 13) >>> 0, m) >>> 0;
  return (h ^ h >>> 15) >>> 0;
}

// bucketPath is the file bucket k reads for path: its own copy when the
// tree has one.
export function bucketPath(rollouts, k, path) {
  const ks = rollouts && k !== null && rollouts.variants[path];
  return ks && ks.includes(k) ? `rollout/${k}/${path}` : path;
}

// progress describes each rolling release: its share now and when each
// bucket opens, marking the bucket picked.
export function progress(rollouts, k) {
  return rollouts.releases.map((r) => {
    const where = r.channels ? ` in ${r.channels.join(', ')}` : '';
    const share = `${r.openBuckets} of ${rollouts.buckets} buckets (throttling ${(r.throttling * 100).toFixed(1)} %)`;
    // The canary (bucket 0) opens at the start: index.json's opens lists
    // buckets 1..N only.
    const opens = k === 0 ? new Date(r.startEpoch * 1000).toISOString().replace('.000Z', 'Z') : r.opens[k - 1];
    const mine = k === null ? '' : opens && opens <= rollouts.at
      ? `; bucket ${k}: offered`
      : `; bucket ${k}: ${opens ? `from ${opens}` : 'never'}`;
    return `${r.version}${where}: ${share} at ${rollouts.at}${mine}`;
  });
}
