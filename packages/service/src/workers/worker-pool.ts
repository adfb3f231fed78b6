import { type Transferable, Worker } from 'node:worker_threads';

/** A job waiting for a worker, or running on one. */
interface Task<In, Out> {
  input: In;
  transfer: Transferable[];
  resolve: (value: Out) => void;
  reject: (error: Error) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

type Reply<Out> = { ok: true; value: Out } | { ok: false; message: string };

/**
 * A fixed set of worker threads running `script`, one job each at a time; jobs beyond them wait
 * in order. How many may wait is the caller's to bound (the route's admission does). A worker that
 * crashes fails its job and is replaced. The workers are unref'd: only `terminate` ends them, and
 * a forgotten pool does not keep the process alive.
 */
export class WorkerPool<In, Out> {
  readonly #idle: Worker[] = [];
  readonly #running = new Map<Worker, Task<In, Out>>();
  readonly #waiting: Task<In, Out>[] = [];
  /** Workers whose thread has not exited yet. */
  readonly #alive = new Set<Worker>();
  #terminated = false;

  constructor(
    private readonly script: URL,
    readonly size: number,
    private readonly workerData: unknown,
  ) {
    for (let i = 0; i < size; i++) this.#idle.push(this.#spawn());
  }

  /** Threads not exited yet: `size` while the pool runs, 0 once `terminate` has resolved. */
  get threads(): number {
    return this.#alive.size;
  }

  /** Jobs waiting for a worker. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * Runs `input` on a worker, moving the buffers in `transfer` to it. An abort of `signal` while
   * the job waits drops it (the promise rejects with the signal's reason); once running, it runs on.
   */
  run(input: In, transfer: Transferable[] = [], signal?: AbortSignal): Promise<Out> {
    if (this.#terminated) return Promise.reject(new Error('the worker pool is terminated'));
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<Out>((resolve, reject) => {
      const task: Task<In, Out> = { input, transfer, resolve, reject, signal, onAbort: () => this.#drop(task) };
      signal?.addEventListener('abort', task.onAbort, { once: true });
      this.#waiting.push(task);
      this.#dispatch();
    });
  }

  /** Ends every worker; jobs still waiting or running fail. */
  async terminate(): Promise<void> {
    this.#terminated = true;
    const failed = new Error('the worker pool is terminated');
    for (const task of this.#waiting.splice(0)) this.#settle(task, () => task.reject(failed));
    const workers = [...this.#idle.splice(0), ...this.#running.keys()];
    for (const [, task] of this.#running) this.#settle(task, () => task.reject(failed));
    this.#running.clear();
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  #spawn(): Worker {
    const worker = new Worker(this.script, { workerData: this.workerData });
    worker.unref();
    this.#alive.add(worker);
    worker.on('message', (reply: Reply<Out>) => {
      const task = this.#running.get(worker);
      if (task === undefined) return;
      this.#running.delete(worker);
      this.#idle.push(worker);
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
    void worker.terminate();
    if (task !== undefined) this.#settle(task, () => task.reject(error));
    this.#idle.push(this.#spawn());
    this.#dispatch();
  }

  #dispatch(): void {
    while (this.#idle.length > 0 && this.#waiting.length > 0) {
      const worker = this.#idle.pop()!;
      const task = this.#waiting.shift()!;
      this.#running.set(worker, task);
      worker.postMessage(task.input, task.transfer);
    }
  }

  #drop(task: Task<In, Out>): void {
    const at = this.#waiting.indexOf(task);
    if (at < 0) return;
    this.#waiting.splice(at, 1);
    this.#settle(task, () => task.reject(task.signal!.reason as Error));
  }

  #settle(task: Task<In, Out>, done: () => void): void {
    task.signal?.removeEventListener('abort', task.onAbort);
    done();
  }
}
