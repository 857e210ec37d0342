// SemVer 2.0 precedence of web/graph.js (run: node --test test/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareSemver, compareVersions, fileName, parseSemver } from '../web/graph.js';

// Each list is in strictly increasing precedence.
const ascending = [
  // SemVer 2.0 §11, the specification's own examples.
  ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0'],
  ['1.0.0', '2.0.0', '2.1.0', '2.1.1'],
  // Numeric fields compare as numbers, not strings.
  ['4.9.0', '4.10.0', '4.15.9', '4.15.10', '4.16.0-ec.0', '4.16.0-ec.10', '4.16.0-rc.2', '4.16.0-rc.10', '4.16.0', '4.16.1', '10.0.0'],
  // Numeric identifiers sort below alphanumeric ones; hyphens are letters.
  ['1.0.0-1', '1.0.0-2', '1.0.0-10', '1.0.0-1a', '1.0.0-A', '1.0.0-Z', '1.0.0-a', '1.0.0-a.0', '1.0.0-a-b', '1.0.0-b'],
  // Numbers beyond 2^53 keep their order.
  ['1.0.0-9007199254740993', '1.0.0-9007199254740994', '1.0.0-90071992547409930', '99999999999999999999.0.0', '100000000000000000000.0.0'],
];

test('precedence follows SemVer 2.0', () => {
  for (const list of ascending) {
    for (let i = 0; i < list.length; i++) {
      for (let j = 0; j < list.length; j++) {
        const want = Math.sign(i - j);
        assert.equal(compareSemver(list[i], list[j]), want, `${list[i]} vs ${list[j]}`);
      }
    }
  }
});

test('build metadata is ignored by precedence, not by the total order', () => {
  assert.equal(compareSemver('4.16.0+amd64', '4.16.0+arm64'), 0);
  assert.equal(compareSemver('4.16.0+amd64', '4.16.0'), 0);
  assert.equal(compareSemver('1.0.0-rc.1+build.5', '1.0.0-rc.1'), 0);
  assert.equal(compareSemver('1.0.0+z', '1.0.1'), -1);
  assert.equal(compareVersions('4.16.0+amd64', '4.16.0+arm64'), -1);
  assert.equal(compareVersions('4.16.0', '4.16.0+amd64'), -1);
  assert.equal(compareVersions('4.16.1', '4.16.0+zzz'), 1);
  assert.equal(compareVersions('4.16.1', '4.16.1'), 0);
});

test('strict parsing', () => {
  for (const bad of ['', '1', '1.0', 'v1.0.0', '01.0.0', '1.00.0', '1.0.0-01', '1.0.0-', '1.0.0+', '1.0.0-a..b', '1.0.0+a..b', '1.0.0-a_b', ' 1.0.0', '1.0.0.0']) {
    assert.equal(parseSemver(bad), null, bad);
  }
  assert.deepEqual(parseSemver('1.2.3-rc.0-x.7+b.01'), { core: ['1', '2', '3'], pre: ['rc', '0-x', '7'], build: 'b.01' });
  assert.deepEqual(parseSemver('0.0.0'), { core: ['0', '0', '0'], pre: [], build: '' });
  // Not SemVer: below every version, ordered as strings among themselves.
  assert.equal(compareSemver('junk', '0.0.0'), -1);
  assert.equal(compareSemver('0.0.0', 'junk'), 1);
  assert.equal(compareSemver('a', 'b'), -1);
});

test('file names are those of tree/manifest.VersionFileName', () => {
  assert.equal(fileName('4.16.3'), '4.16.3.json');
  assert.equal(fileName('4.17.0-rc.1'), '4.17.0-rc.1.json');
  assert.equal(fileName('4.16.0+amd64'), '4.16.0_amd64.json');
  assert.equal(fileName('1.0.0-RC.1+Build'), '1.0.0-!r!c.1_!build.json');
});
