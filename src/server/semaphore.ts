/**
 * A counting semaphore: at most `n` holders at a time. The server bounds with it how many large files are
 * parsed at once across all requests.
 *
 * @module
 */
/** At most `n` holders at a time: bounds how many large files are parsed at once across all requests. */
export class Semaphore {
  #free: number;
  #queue: (() => void)[] = [];

  constructor(n: number) {
    this.#free = n;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#queue.push(resolve));
    try {
      return await fn();
    } finally {
      const next = this.#queue.shift();
      if (next) next();
      else this.#free++;
    }
  }
}
