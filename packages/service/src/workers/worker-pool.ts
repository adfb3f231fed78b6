import { type Transferable, Worker } from 'node:worker_threads';

/** A job waiting for a worker, or running on one. */
interface Task<In, Out> {
  input: In;
  transfer: Transferable[];
  resolve: (value: Out) => void;
  reject: (error: Error) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
  /** The queue it waits in. */
  queue: string;
  /** The bytes of the buffers in `transfer` (moved, hence unreadable, once posted). */
  bytes: number;
}

type Reply<Out> = { ok: true; value: Out } | { ok: false; message: string };

/**
 * A fixed set of worker threads running `script`, one job each at a time; jobs beyond them wait
 * in their queue (the server's: one per account), and the queues take turns, so one queue's burst
 * delays another's next job by at most one job per queue. How many may wait is the caller's to bound (the route's admission does). A worker that
 * crashes fails its job and is replaced; so is one, once it has answered, whose job moved `replaceAfterBytes` or more. The workers are unref'd: only `terminate` ends them, and
 * a forgotten pool does not keep the process alive.
 */
export class WorkerPool<In, Out> {
  readonly #idle: Worker[] = [];
  readonly #running = new Map<Worker, Task<In, Out>>();
  /** Waiting jobs by queue, in the order the queues take their turns (a queue with none is removed). */
  readonly #waiting = new Map<string, Task<In, Out>[]>();
  /** Workers whose thread has not exited yet. */
  readonly #alive = new Set<Worker>();
  #terminated = false;

  /**
   * `replaceAfterBytes`: a worker whose job moved that many bytes or more to it is replaced once it
   * has answered (undefined: never), since an idle thread may hold what the job grew its heap to
   * until a collection that an idle thread does not run.
   */
  constructor(
    private readonly script: URL,
    readonly size: number,
    private readonly workerData: unknown,
    readonly replaceAfterBytes?: number,
  ) {
    for (let i = 0; i < size; i++) this.#idle.push(this.#spawn());
  }

  /**
   * Threads not exited yet: `size` while the pool runs (one more while a replaced worker ends), 0
   * once `terminate` has resolved.
   */
  get threads(): number {
    return this.#alive.size;
  }

  /** Jobs waiting for a worker. */
  get waiting(): number {
    let count = 0;
    for (const tasks of this.#waiting.values()) count += tasks.length;
    return count;
  }

  /**
   * Runs `input` on a worker, moving the buffers in `transfer` to it, after the jobs waiting in
   * `queue` and in turn with the other queues. An abort of `signal` while the job waits drops it
   * (the promise rejects with the signal's reason); once running, it runs on.
   */
  run(input: In, transfer: Transferable[] = [], signal?: AbortSignal, queue = ''): Promise<Out> {
    if (this.#terminated) return Promise.reject(new Error('the worker pool is terminated'));
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<Out>((resolve, reject) => {
      const bytes = transfer.reduce((sum, t) => sum + (t instanceof ArrayBuffer ? t.byteLength : 0), 0);
      const task: Task<In, Out> = {
        input,
        transfer,
        resolve,
        reject,
        signal,
        onAbort: () => this.#drop(task),
        queue,
        bytes,
      };
      signal?.addEventListener('abort', task.onAbort, { once: true });
      const tasks = this.#waiting.get(queue);
      if (tasks === undefined) this.#waiting.set(queue, [task]);
      else tasks.push(task);
      this.#dispatch();
    });
  }

  /** Ends every worker; jobs still waiting or running fail. */
  async terminate(): Promise<void> {
    this.#terminated = true;
    const failed = new Error('the worker pool is terminated');
    const waiting = [...this.#waiting.values()].flat();
    this.#waiting.clear();
    for (const task of waiting) this.#settle(task, () => task.reject(failed));
    this.#idle.length = 0;
    for (const [, task] of this.#running) this.#settle(task, () => task.reject(failed));
    this.#running.clear();
    // Every thread not exited yet, a replaced one still ending among them.
    await Promise.all([...this.#alive].map((worker) => worker.terminate()));
  }

  #spawn(): Worker {
    const worker = new Worker(this.script, { workerData: this.workerData });
    worker.unref();
    this.#alive.add(worker);
    worker.on('message', (reply: Reply<Out>) => {
      const task = this.#running.get(worker);
      if (task === undefined) return;
      this.#running.delete(worker);
      this.#idle.push(this.#retires(task) ? this.#replace(worker) : worker);
      this.#settle(task, () => (reply.ok ? task.resolve(reply.value) : task.reject(new Error(reply.message))));
      this.#dispatch();
    });
    worker.on('error', (error) => this.#lose(worker, error));
    worker.on('exit', (code) => {
      this.#alive.delete(worker);
      this.#lose(worker, new Error(`a pool worker exited with code ${code}`));
    });
    return worker;
  }

  /** A worker died: its job fails and, unless the pool is terminated, a new worker takes its place. */
  #lose(worker: Worker, error: Error): void {
    if (this.#terminated) return;
    const task = this.#running.get(worker);
    const idleAt = this.#idle.indexOf(worker);
    if (task === undefined && idleAt < 0) return;
    this.#running.delete(worker);
    if (idleAt >= 0) this.#idle.splice(idleAt, 1);
    if (task !== undefined) this.#settle(task, () => task.reject(error));
    this.#idle.push(this.#replace(worker));
    this.#dispatch();
  }

  #retires(task: Task<In, Out>): boolean {
    return !this.#terminated && this.replaceAfterBytes !== undefined && task.bytes >= this.replaceAfterBytes;
  }

  /** Ends `worker` (its thread and its heap with it) and spawns its successor. */
  #replace(worker: Worker): Worker {
    void worker.terminate();
    return this.#spawn();
  }

  #dispatch(): void {
    while (this.#idle.length > 0 && this.#waiting.size > 0) {
      const worker = this.#idle.pop()!;
      const task = this.#nextTask();
      this.#running.set(worker, task);
      worker.postMessage(task.input, task.transfer);
    }
  }

  /** The first job of the queue whose turn it is; that queue then goes last. */
  #nextTask(): Task<In, Out> {
    const [queue, tasks] = this.#waiting.entries().next().value!;
    this.#waiting.delete(queue);
    const task = tasks.shift()!;
    if (tasks.length > 0) this.#waiting.set(queue, tasks);
    return task;
  }

  #drop(task: Task<In, Out>): void {
    const tasks = this.#waiting.get(task.queue);
    const at = tasks?.indexOf(task) ?? -1;
    if (at < 0) return;
    tasks!.splice(at, 1);
    if (tasks!.length === 0) this.#waiting.delete(task.queue);
    this.#settle(task, () => task.reject(task.signal!.reason as Error));
  }

  #settle(task: Task<In, Out>, done: () => void): void {
    task.signal?.removeEventListener('abort', task.onAbort);
    done();
  }
}
