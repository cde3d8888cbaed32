// index.js -- gradeq's queue client for Node: submit jobs to a gradeq farm
// through Redis and await their results (docs/protocol.md).
//
// Binary-safe: jobs are msgpack with Buffers as bin, results are read with
// ioredis's Buffer variants (its string replies would corrupt msgpack), and
// stdout, stderr and transcripts come back as Buffers. Waiting takes no
// connection per wait: one follower connection reads the results stream
// (XREAD BLOCK) and resolves the waiters of each id. A waiter registers,
// makes sure the follower has fixed its start position, then reads the
// result's list once: a result published before that read is in the list,
// one published after is on the stream past the follower's start.
import { randomUUID } from 'node:crypto';

import { decode, encode } from '@msgpack/msgpack';
import Redis from 'ioredis';

const BYTES_LIMITS = new Set(['memory_bytes', 'stdout_bytes', 'stderr_bytes', 'file_bytes']);
const UNITS = { '': 1, K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40 };
const BUFFER_FIELDS = ['stdout', 'stderr', 'transcript'];

/** Bytes of a number or a string such as "64M" (binary units). */
export function parseSize(v, what = 'size') {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  const m = typeof v === 'string' && /^\s*(\d+)\s*([KMGT]?)(?:i?B)?\s*$/i.exec(v);
  if (!m) throw new TypeError(`${what}: not a size: ${JSON.stringify(v)} (use e.g. 65536, '64K', '256M')`);
  return Number(m[1]) * UNITS[m[2].toUpperCase()];
}

const isMap = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v);

// Optional fields left null or undefined are not sent: the worker answers nil with BAD_JOB.
function dropNull(v) {
  if (!isMap(v)) return v;
  const out = {};
  for (const [k, x] of Object.entries(v)) if (x !== null && x !== undefined) out[k] = dropNull(x);
  return out;
}

function withSizes(prog) {
  if (!isMap(prog) || !isMap(prog.limits)) return;
  for (const [k, v] of Object.entries(prog.limits))
    if (BYTES_LIMITS.has(k) && typeof v === 'string') prog.limits[k] = parseSize(v, `limits.${k}`);
}

/** [id, msgpack bytes] of a job object; assigns an id when it has none. */
export function encodeJob(job) {
  if (!isMap(job)) throw new TypeError('job: expected an object');
  const j = dropNull(job);
  if (j.id === undefined) j.id = randomUUID();
  withSizes(j);
  withSizes(j.interactor);
  return [j.id, Buffer.from(encode(j))];
}

const toBuffer = (u8) => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength);

/* Byte fields, nested ones too (interactor, a grading job's compile and
 * tests), come back as Buffers. */
function buffersIn(m) {
  for (const f of BUFFER_FIELDS) if (m[f] instanceof Uint8Array && !Buffer.isBuffer(m[f])) m[f] = toBuffer(m[f]);
}

/** The result of a job: the fields of docs/protocol.md, and `ok`. */
export class Result {
  constructor(map) {
    const { ok: _ok, ...fields } = map; // `ok` is derived, never taken from the wire
    Object.assign(this, {
      status: '', exit_code: null, signal: null, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0),
      stdout_truncated: false, stderr_truncated: false, cpu_us: 0, wall_us: 0, memory_bytes: 0,
      isolation: [], error: null, id: null, worker: null, attempt: 0,
    }, fields);
    buffersIn(this);
    if (isMap(this.interactor)) buffersIn(this.interactor);
    if (isMap(this.compile)) buffersIn(this.compile);
    if (Array.isArray(this.tests)) for (const t of this.tests) if (isMap(t)) buffersIn(t);
  }

  get ok() {
    return this.status === 'OK';
  }
}

export function decodeResult(buf) {
  const m = decode(buf);
  if (!isMap(m)) throw new TypeError('gradeq: a result that is not a map');
  return new Result(m);
}

function connect(url, options) {
  const u = new URL(url);
  if (u.protocol !== 'unix:') return new Redis(url, options);
  const q = u.searchParams;
  return new Redis({
    path: decodeURIComponent(u.pathname), username: q.get('user') ?? undefined,
    password: q.get('password') ?? undefined, db: Number(q.get('db') ?? 0), ...options,
  });
}

function checkTimeout(timeout) {
  if (timeout !== undefined && timeout !== null && !(timeout >= 0))
    throw new RangeError(`timeout: expected seconds >= 0, got ${timeout}`);
}

/** A connection to the farm's Redis (redis://, rediss:// or unix:// URL). */
export class Client {
  constructor(url = 'redis://127.0.0.1:6379', { prefix = 'gradeq', redis = {} } = {}) {
    this.redis = connect(url, redis);
    this.keys = { jobs: `${prefix}:jobs`, results: `${prefix}:results`, result: (id) => `${prefix}:result:${id}` };
    this.waiters = new Map(); // id -> Set of { resolve, reject }
    this.follower = null; // { conn, started: Promise }
    this.closed = false;
  }

  async close() {
    this.closed = true;
    if (this.follower) this.follower.conn.disconnect();
    this.follower = null;
    const e = new Error('gradeq: client closed');
    for (const ws of this.waiters.values()) for (const w of ws) w.reject(e);
    this.waiters.clear();
    await this.redis.quit();
  }

  /** Queues a job and returns its id (assigned when it had none). */
  async submit(job) {
    const [id, data] = encodeJob(job);
    await this.redis.xadd(this.keys.jobs, '*', 'job', data);
    return id;
  }

  async lastId(conn) {
    const last = await conn.xrevrange(this.keys.results, '+', '-', 'COUNT', 1);
    return last.length ? last[0][0] : '0-0';
  }

  // [stream id, job id, raw result] of each entry after lastId, on conn.
  async *entries(conn, lastId) {
    for (;;) {
      const got = await conn.xreadBuffer('COUNT', 1000, 'BLOCK', 0, 'STREAMS', this.keys.results, lastId);
      for (const [, entries] of got ?? []) {
        for (const [sid, fields] of entries) {
          lastId = sid.toString();
          const f = new Map();
          for (let i = 0; i + 1 < fields.length; i += 2) f.set(fields[i].toString(), fields[i + 1]);
          yield [lastId, f.get('id')?.toString() ?? '', f.get('result')];
        }
      }
    }
  }

  ensureFollower() {
    if (this.follower) return this.follower.started;
    const conn = this.redis.duplicate();
    let started;
    const run = async () => {
      const lastId = await this.lastId(conn);
      started();
      for await (const [, id, data] of this.entries(conn, lastId)) {
        const ws = this.waiters.get(id);
        if (!ws) continue;
        this.waiters.delete(id);
        const r = decodeResult(data);
        for (const w of ws) w.resolve(r);
      }
    };
    const follower = { conn };
    follower.started = new Promise((resolve, reject) => {
      started = resolve;
      run().catch((e) => {
        reject(e);
        if (this.follower === follower) this.follower = null;
        conn.disconnect();
        if (this.closed) return;
        for (const ws of this.waiters.values()) for (const w of ws) w.reject(e);
        this.waiters.clear();
      });
    });
    follower.started.catch(() => {});
    this.follower = follower;
    return follower.started;
  }

  /**
   * The job's Result, waiting up to timeout seconds (undefined or null: for
   * ever, 0: not at all); null when the time ran out.
   */
  async result(id, timeout) {
    checkTimeout(timeout);
    const key = this.keys.result(id);
    if (timeout === 0) {
      const data = await this.redis.lindexBuffer(key, 0);
      return data ? decodeResult(data) : null;
    }
    let waiter, timer;
    const done = new Promise((resolve, reject) => { waiter = { resolve, reject }; });
    if (!this.waiters.has(id)) this.waiters.set(id, new Set());
    this.waiters.get(id).add(waiter);
    try {
      await this.ensureFollower();
      const data = await this.redis.lindexBuffer(key, 0);
      if (data) return decodeResult(data);
      if (timeout !== undefined && timeout !== null)
        timer = setTimeout(() => waiter.resolve(null), timeout * 1000);
      return await done;
    } finally {
      clearTimeout(timer);
      const ws = this.waiters.get(id);
      if (ws) {
        ws.delete(waiter);
        if (!ws.size) this.waiters.delete(id);
      }
    }
  }

  /** Submits and waits: the Result, or null when timeout ran out. */
  async run(job, timeout) {
    return this.result(await this.submit(job), timeout);
  }

  /** A Map id -> Result of the ids whose result came within timeout seconds. */
  async results(ids, timeout) {
    const unique = [...new Set(ids)];
    const got = await Promise.all(unique.map((id) => this.result(id, timeout)));
    return new Map(unique.flatMap((id, i) => (got[i] ? [[id, got[i]]] : [])));
  }

  /**
   * Yields [streamId, Result] for every result published after lastId
   * ('$': after the first iteration began), on a connection of its own;
   * pass the last streamId seen to resume.
   */
  async *follow(lastId = '$') {
    const conn = this.redis.duplicate();
    try {
      if (lastId === '$') lastId = await this.lastId(conn);
      for await (const [sid, , data] of this.entries(conn, lastId)) yield [sid, decodeResult(data)];
    } finally {
      conn.disconnect();
    }
  }
}
