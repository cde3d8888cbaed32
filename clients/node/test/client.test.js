// The Node client against a real redis-server and gradeq-worker:
// GRADEQ_TEST_REDIS names them (tests/integration/clients.sh sets it).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';

import { encode } from '@msgpack/msgpack';

import { Client, decodeResult, encodeJob, parseSize } from '../index.js';

const URL = process.env.GRADEQ_TEST_REDIS;
const skip = URL ? false : 'GRADEQ_TEST_REDIS (a Redis served by a worker) not set';
const streamKey = (sid) => sid.split('-').map(BigInt);
const isAfter = (a, b) => { const [x, y] = [streamKey(a), streamKey(b)]; return x[0] > y[0] || (x[0] === y[0] && x[1] > y[1]); };
const uid = (tag) => `node-${tag}-${randomUUID().slice(0, 12)}`;
let c;

before(() => { if (URL) c = new Client(URL, { redis: { connectionName: 'node-test' } }); });
after(async () => { if (c) await c.close(); });

test('submit assigns an id; result is binary-safe and stays for later readers', { skip }, async () => {
  const id = await c.submit({ argv: ['sh', '-c', "printf 'a\\0b\\377'; echo err >&2; exit 4"] });
  assert.equal(typeof id, 'string');
  const r = await c.result(id, 30);
  assert.equal(r.id, id);
  assert.equal(r.status, 'RUNTIME_ERROR');
  assert.equal(r.exit_code, 4);
  assert.equal(r.ok, false);
  assert.ok(Buffer.isBuffer(r.stdout));
  assert.deepEqual(r.stdout, Buffer.from([0x61, 0, 0x62, 0xff]));
  assert.equal(r.stderr.toString(), 'err\n');
  assert.ok(r.isolation.includes('seccomp') && r.worker && r.attempt === 1);
  const again = await c.result(id, 0);
  assert.deepEqual(again.stdout, r.stdout);
});

test('Buffers for stdin and files, env, limits as sizes', { skip }, async () => {
  const r = await c.run({
    id: uid('run'), argv: ['sh', '-c', 'cat in/x; cat; echo "$K"'],
    files: { 'in/x': Buffer.from([0xfe, 0x0a]) }, stdin: Buffer.from([0, 0x41, 0x0a]),
    env: { PATH: '/bin:/usr/bin', K: 'v' }, limits: { cpu_ms: 2000, memory_bytes: '64M', stdout_bytes: '4K' },
  }, 30);
  assert.ok(r.ok, JSON.stringify(r));
  assert.deepEqual(r.stdout, Buffer.from([0xfe, 0x0a, 0, 0x41, 0x0a, 0x76, 0x0a]));
});

test('null or undefined optional fields are never sent', { skip }, async () => {
  const r = await c.run({ argv: ['true'], stdin: null, env: undefined, files: null, interactor: null,
                          limits: { cpu_ms: null, wall_ms: 3000 } }, 30);
  assert.ok(r.ok, JSON.stringify(r));
});

test('a bad job is answered BAD_JOB', { skip }, async () => {
  const r = await c.run({ id: uid('bad'), argv: [] }, 30);
  assert.equal(r.status, 'BAD_JOB');
  assert.match(r.error, /argv/);
});

test('a grading job: verdicts per test, nested byte fields as Buffers', { skip }, async () => {
  const r = await c.run({
    id: uid('grade'), argv: ['python3', 's.py'],
    files: { 's.py': Buffer.from('import sys\nsys.stderr.buffer.write(b"\\xff")\nprint(sum(map(int, input().split())))\n') },
    limits: { cpu_ms: 5000, wall_ms: 20000 },
    tests: [{ name: 'a', stdin: '1 2\n', expected: '3\n' }, { name: 'b', stdin: '2 2\n', expected: '5\n' }],
  }, 60);
  assert.equal(r.status, 'WRONG_ANSWER', JSON.stringify(r));
  assert.equal(r.passed, 1);
  assert.equal(r.total, 2);
  assert.deepEqual(r.tests.map((t) => [t.name, t.status]), [['a', 'OK'], ['b', 'WRONG_ANSWER']]);
  assert.ok(Buffer.isBuffer(r.tests[0].stdout) && Buffer.isBuffer(r.tests[0].stderr));
  assert.equal(r.tests[0].stdout.toString(), '3\n');
  assert.deepEqual(r.tests[1].stderr, Buffer.from([0xff]));
  assert.deepEqual([r.score, r.max_score], ['1', '2']);
  assert.deepEqual(r.tests.map((t) => [t.score, t.max_score, t.group]), [['1', '1', null], ['0', '1', null]]);
});

test('a grading job with groups: exact decimal scores, a group skipped for its dependency', { skip }, async () => {
  const r = await c.run({
    id: uid('groups'), argv: ['python3', 's.py'],
    files: { 's.py': Buffer.from('print(sum(map(int, input().split())))\n') },
    limits: { cpu_ms: 5000, wall_ms: 20000 },
    tests: [{ name: 'a', stdin: '1 2\n', expected: '3\n', points: 0.1 }, { name: 'b', stdin: '2 2\n', expected: '4\n', points: 0.2 },
            { name: 'c', stdin: '1 1\n', expected: '3\n' }, { name: 'd', stdin: '1 1\n', expected: '2\n' }],
    groups: [{ name: 'easy', tests: ['a', 'b'], scoring: 'sum' }, { name: 'hard', tests: ['c'], points: 50 },
             { name: 'last', tests: ['d'], points: 20, depends_on: ['hard'] }],
  }, 60);
  assert.equal(r.status, 'WRONG_ANSWER', JSON.stringify(r));
  assert.deepEqual([r.score, r.max_score], ['0.3', '70.3']); // 0.1 + 0.2, exactly
  assert.deepEqual(r.groups.map((g) => [g.name, g.status, g.score, g.max_score, g.message]),
    [['easy', 'OK', '0.3', '0.3', null], ['hard', 'WRONG_ANSWER', '0', '50', null],
     ['last', 'SKIPPED', '0', '20', 'depends on hard (failed)']]);
  assert.deepEqual(r.tests.map((t) => t.group), ['easy', 'easy', 'hard', 'last']);
});

test('result gives null when the time runs out', { skip }, async () => {
  assert.equal(await c.result(uid('never'), 0.2), null);
  assert.equal(await c.result(uid('never'), 0), null);
  await assert.rejects(c.result('x', -1), RangeError);
});

test('300 results awaited at once over two connections', { skip }, async () => {
  const ids = await Promise.all(Array.from({ length: 300 }, (_, i) => c.submit({ argv: ['echo', String(i)] })));
  const rs = await Promise.all(ids.map((id) => c.result(id, 120)));
  assert.deepEqual(rs.map((r) => r.stdout.toString()), ids.map((_, i) => `${i}\n`));
  const list = (await c.redis.client('LIST')).split('\n').filter((l) => / name=node-test /.test(l));
  assert.equal(list.length, 2); // the client's connection and the follower's
  const twice = await c.submit({ argv: ['echo', 'twice'] });
  const [a, b] = await Promise.all([c.result(twice, 30), c.result(twice, 30)]);
  assert.equal(a.stdout.toString(), 'twice\n');
  assert.deepEqual(a.stdout, b.stdout);
  const m = await c.results([ids[0], uid('missing')], 0.3);
  assert.deepEqual([...m.keys()], [ids[0]]);
});

test('follow yields [streamId, Result] and resumes from a stream id', { skip }, async () => {
  const first = await c.submit({ argv: ['echo', 'one'] });
  let seen;
  for await (const [sid, r] of c.follow('0-0')) {
    if (r.id === first) { seen = sid; break; }
  }
  const second = await c.submit({ argv: ['echo', 'two'] });
  for await (const [sid, r] of c.follow(seen)) {
    assert.ok(isAfter(sid, seen), `${sid} after ${seen}`);
    if (r.id === second) { assert.equal(r.stdout.toString(), 'two\n'); break; }
  }
});

test('codec: ids, sizes, unknown fields, non-maps refused', () => {
  const [id, data] = encodeJob({ argv: ['x'], limits: { memory_bytes: '1M' }, stdin: null });
  assert.ok(id.length > 0 && Buffer.isBuffer(data));
  assert.equal(parseSize('64K'), 65536);
  assert.throws(() => parseSize('lots'), TypeError);
  assert.throws(() => encodeJob(['x']), TypeError);
  const r = decodeResult(encode({ id: 'x', status: 'OK', worker: 'w', stdout: new Uint8Array([1]), tests: [1] }));
  assert.ok(r.ok && Buffer.isBuffer(r.stdout) && r.tests[0] === 1);
  assert.equal(decodeResult(encode({ id: 'x', status: 'RUNTIME_ERROR', ok: true })).ok, false);
});
