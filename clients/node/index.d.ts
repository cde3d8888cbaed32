// Types of gradeq's Node client (index.js). Wire format: docs/protocol.md.
import type { Redis, RedisOptions } from 'ioredis';

/** Bytes: a number, or a string such as "64M". */
export type Size = number | string;

export interface Limits {
  cpu_ms?: number | null;
  wall_ms?: number | null;
  memory_bytes?: Size | null;
  stdout_bytes?: Size | null;
  stderr_bytes?: Size | null;
  processes?: number | null;
  file_bytes?: Size | null;
  open_files?: number | null;
}

export interface Program {
  argv: string[];
  /** path under /box -> contents */
  files?: Record<string, Buffer | Uint8Array | string> | null;
  limits?: Limits | null;
}

/** A job; fields left null or undefined are not sent. Unknown fields (a grading job's) pass through. */
export interface Job extends Program {
  /** 1-128 of [A-Za-z0-9._:-]; assigned by submit when absent */
  id?: string;
  stdin?: Buffer | Uint8Array | string | null;
  env?: Record<string, string> | null;
  network?: boolean | null;
  interactor?: Program | null;
  transcript_bytes?: number | null;
  [field: string]: unknown;
}

export type Status =
  | 'OK' | 'RUNTIME_ERROR' | 'SIGNALED' | 'TIME_LIMIT' | 'WALL_TIME_LIMIT' | 'MEMORY_LIMIT'
  | 'OUTPUT_LIMIT' | 'EXEC_ERROR' | 'SANDBOX_ERROR' | 'BAD_JOB' | 'WRONG_ANSWER' | 'INTERACTOR_ERROR'
  | 'COMPILE_ERROR' | 'CHECKER_ERROR' | 'SKIPPED' | 'PARTIAL';

/**
 * A score: a decimal string, exact as the worker computed it ("63.5",
 * "100", "0.333333"); Number(s) gives the nearest double, a decimal
 * library (or a database's NUMERIC) the exact value.
 */
export type Score = string;

export interface InteractorResult {
  status: string;
  exit_code: number | null;
  signal: number | null;
  stderr: Buffer;
  cpu_us: number;
  wall_us: number;
  memory_bytes: number;
}

/** One test of a grading job (docs/protocol.md, "Grading a submission"). */
export interface TestResult {
  name: string;
  status: Status | string;
  exit_code: number | null;
  signal: number | null;
  cpu_us: number;
  wall_us: number;
  memory_bytes: number;
  checker_message: string | null;
  /** cut to the worker's --test-output-max */
  stdout: Buffer;
  stderr: Buffer;
  stdout_truncated: boolean;
  /** what the test scored of its points */
  score: Score;
  max_score: Score;
  /** its group's name, null when in none */
  group: string | null;
}

/** One group (subtask) of a grading job: OK when every test of it is, SKIPPED when not run (message says why). */
export interface GroupResult {
  name: string;
  status: Status | string;
  score: Score;
  max_score: Score;
  message: string | null;
}

/** A grading job's compile step: the run fields, its output capped. */
export interface CompileResult {
  status: Status | string;
  exit_code: number | null;
  signal: number | null;
  stdout: Buffer;
  stderr: Buffer;
  cpu_us: number;
  wall_us: number;
  memory_bytes: number;
}

export class Result {
  constructor(map: Record<string, unknown>);
  id: string | null;
  status: Status | string;
  exit_code: number | null;
  signal: number | null;
  stdout: Buffer;
  stderr: Buffer;
  stdout_truncated: boolean;
  stderr_truncated: boolean;
  cpu_us: number;
  wall_us: number;
  memory_bytes: number;
  worker: string | null;
  attempt: number;
  error: string | null;
  isolation: string[];
  interactor?: InteractorResult;
  transcript?: Buffer;
  /** grading jobs: the compile step, every test in order, how many passed of how many */
  compile?: CompileResult;
  tests?: TestResult[];
  passed?: number;
  total?: number;
  /** grading jobs: the score and the most it could be; the groups when the job has them */
  score?: Score;
  max_score?: Score;
  groups?: GroupResult[];
  /** status === 'OK' */
  readonly ok: boolean;
  /** fields this version does not know (a grading result's) */
  [field: string]: unknown;
}

export interface ClientOptions {
  /** key prefix, the worker's --prefix (default "gradeq") */
  prefix?: string;
  /** passed to ioredis */
  redis?: RedisOptions;
}

export class Client {
  /** url: redis://, rediss:// or unix:///path?user=U&password=P&db=N (default redis://127.0.0.1:6379) */
  constructor(url?: string, options?: ClientOptions);
  readonly redis: Redis;
  /** Queues a job; resolves to its id (assigned when it had none). */
  submit(job: Job): Promise<string>;
  /** The job's result within timeout seconds (undefined/null: for ever, 0: now); null when it ran out. */
  result(id: string, timeout?: number | null): Promise<Result | null>;
  /** submit, then result. */
  run(job: Job, timeout?: number | null): Promise<Result | null>;
  /** The results of many ids awaited at once (one follower connection for all). */
  results(ids: Iterable<string>, timeout?: number | null): Promise<Map<string, Result>>;
  /** [streamId, Result] of every result after lastId ('$': from the first iteration on), resumable. */
  follow(lastId?: string): AsyncGenerator<[string, Result], void, undefined>;
  /** Closes both connections; pending waits reject. */
  close(): Promise<void>;
}

export function parseSize(v: Size, what?: string): number;
export function encodeJob(job: Job): [string, Buffer];
export function decodeResult(buf: Uint8Array): Result;
