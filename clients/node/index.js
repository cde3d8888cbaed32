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
// one published after is on the stream past the follower's start. A result
// that cannot be decoded fails the waiters of its own job, no other.
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
  const n = Number(m[1]) * UNITS[m[2].toUpperCase()];
  if (!Number.isSafeInteger(n)) throw new RangeError(`${what}: ${JSON.stringify(v)} is too large`);
  return n;
}

/** A result read from the queue that cannot be decoded: `jobId` names its
 * job, `streamId` its entry of the results stream (null when it was read
 * from the job's result list). */
export class ResultError extends Error {
  constructor(message, jobId = null, streamId = null, cause = undefined) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'ResultError';
    this.jobId = jobId;
    this.streamId = streamId;
  }
}

const isMap = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v);

// Optional fields left null or undefined are not sent, at any depth. A
// copy: sizes are converted in it, never in the caller's job.
function dropNull(v) {
  if (Array.isArray(v)) return v.map(dropNull);
  if (v instanceof Map) v = Object.fromEntries(v); // a job's maps have string keys
  if (!isMap(v)) return v;
  const out = {};
  for (const [k, x] of Object.entries(v)) if (x !== null && x !== undefined) out[k] = dropNull(x);
  return out;
}

function withSizes(prog, where) {
  if (!isMap(prog) || !isMap(prog.limits)) return;
  for (const [k, v] of Object.entries(prog.limits))
    if (BYTES_LIMITS.has(k) && typeof v === 'string') prog.limits[k] = parseSize(v, `${where}limits.${k}`);
}

/**
 * [id, msgpack bytes] of a job object; assigns an id when it has none. The
 * byte limits of every program the job carries (the job's, each test's,
 * the compile step's, the checker's, the interactor's) and transcript_bytes
 * may be sizes such as '64M'.
 */
export function encodeJob(job) {
  if (!isMap(job)) throw new TypeError('job: expected an object');
  const j = dropNull(job);
  if (j.id === undefined) j.id = randomUUID();
  withSizes(j, '');
  for (const key of ['interactor', 'compile', 'checker']) withSizes(j[key], `${key}.`);
  if (Array.isArray(j.tests)) j.tests.forEach((t, i) => withSizes(t, `tests[${i}].`));
  if (typeof j.transcript_bytes === 'string') j.transcript_bytes = parseSize(j.transcript_bytes, 'transcript_bytes');
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

/** The Result of a result's msgpack bytes; ResultError naming the job (and
 * the stream entry) when they cannot be decoded. */
export function decodeResult(buf, jobId = null, streamId = null) {
  try {
    if (!(buf instanceof Uint8Array)) throw new TypeError('no result in the entry');
    const m = decode(buf);
    if (!isMap(m)) throw new TypeError('not a map');
    return new Result(m);
  } catch (e) {
    const where = streamId ? ` (results stream entry ${streamId})` : '';
    throw new ResultError(`gradeq: the result of job ${JSON.stringify(jobId)}${where} cannot be decoded: ${e.message}`,
      jobId, streamId, e);
  }
}

// The Result, or null after a warning saying why it cannot be decoded (for
// results and follow: one bad result concerns one job).
function decodeOrWarn(buf, jobId, streamId = null) {
  try {
    return decodeResult(buf, jobId, streamId);
  } catch (e) {
    if (!(e instanceof ResultError)) throw e;
    warn(e);
    return null;
  }
}

function warn(e) {
  process.emitWarning(e.message, { type: 'GradeqWarning', code: 'GRADEQ_UNDECODABLE_RESULT' });
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

// setTimeout fires at once past 2^31 - 1 ms: a longer wait is several.
const MAX_DELAY = 2 ** 31 - 1;

/** Calls fn after `seconds` (Infinity: never); returns what cancels it. */
function after(seconds, fn) {
  const ms = Number(seconds) * 1000;
  if (ms === Infinity) return () => {};
  const deadline = performance.now() + ms;
  let timer;
  const arm = () => {
    const left = deadline - performance.now();
    if (left <= 0) fn();
    else timer = setTimeout(arm, Math.min(Math.ceil(left), MAX_DELAY));
  };
  arm();
  return () => clearTimeout(timer);
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
      for await (const [sid, id, data] of this.entries(conn, lastId)) {
        const ws = this.waiters.get(id);
        if (!ws) continue;
        this.waiters.delete(id);
        let r;
        try {
          r = decodeResult(data, id, sid);
        } catch (e) {
          for (const w of ws) w.reject(e);
          continue;
        }
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
      return data ? decodeResult(data, id) : null;
    }
    let waiter, cancel;
    const done = new Promise((resolve, reject) => { waiter = { resolve, reject }; });
    done.catch(() => {}); // may be rejected before it is awaited below: not an unhandled rejection
    if (!this.waiters.has(id)) this.waiters.set(id, new Set());
    this.waiters.get(id).add(waiter);
    try {
      await this.ensureFollower();
      const data = await this.redis.lindexBuffer(key, 0);
      if (data) return decodeResult(data, id);
      if (timeout !== undefined && timeout !== null) cancel = after(timeout, () => waiter.resolve(null));
      return await done;
    } finally {
      cancel?.();
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

  /**
   * A Map id -> Result of the ids whose result came within timeout seconds
   * (one that cannot be decoded is left out, with a warning).
   */
  async results(ids, timeout) {
    const unique = [...new Set(ids)];
    const got = await Promise.allSettled(unique.map((id) => this.result(id, timeout)));
    const out = new Map();
    got.forEach((g, i) => {
      if (g.status === 'fulfilled' && g.value) out.set(unique[i], g.value);
      else if (g.status === 'rejected' && g.reason instanceof ResultError) warn(g.reason);
    });
    const failed = got.find((g) => g.status === 'rejected' && !(g.reason instanceof ResultError));
    if (failed) throw failed.reason;
    return out;
  }

  /**
   * Yields [streamId, Result] for every result published after lastId
   * ('$': after the first iteration began), on a connection of its own;
   * pass the last streamId seen to resume. An entry that cannot be decoded
   * is skipped with a warning naming it.
   */
  async *follow(lastId = '$') {
    const conn = this.redis.duplicate();
    try {
      if (lastId === '$') lastId = await this.lastId(conn);
      for await (const [sid, id, data] of this.entries(conn, lastId)) {
        const r = decodeOrWarn(data, id, sid);
        if (r) yield [sid, r];
      }
    } finally {
      conn.disconnect();
    }
  }
}
