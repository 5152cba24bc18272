/**
 * Hands out servers one holder at a time: AppWorld keeps one world per server process, so two
 * episodes on one server would overwrite each other's world. `acquire` waits (first come, first
 * served) until a server is free; a released server goes to the back of the line, so work
 * spreads over all servers. A retired server (stuck on code it never finished) gets no more
 * work; once every server is retired, waiting and later `acquire` calls fail with `noneLeft()`.
 */
export class ServerPool<T> {
  private readonly free: T[];
  private readonly leased = new Set<T>();
  private readonly waiting: { resolve: (server: T) => void; reject: (err: Error) => void }[] = [];

  constructor(
    readonly servers: readonly T[],
    private readonly noneLeft: () => Error = () => new Error('ServerPool: every server is retired'),
  ) {
    if (servers.length === 0) throw new Error('ServerPool needs at least one server');
    if (new Set(servers).size !== servers.length) throw new Error('ServerPool servers repeat');
    this.free = [...servers];
  }

  /** Servers leased right now. */
  get busy(): number {
    return this.leased.size;
  }

  acquire(): Promise<T> {
    const server = this.free.shift();
    if (server !== undefined) {
      this.leased.add(server);
      return Promise.resolve(server);
    }
    if (this.leased.size === 0) return Promise.reject(this.noneLeft());
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  release(server: T): void {
    if (!this.leased.has(server)) throw new Error('ServerPool.release: server is not leased');
    const next = this.waiting.shift();
    if (next) {
      next.resolve(server);
    } else {
      this.leased.delete(server);
      this.free.push(server);
    }
  }

  /** Takes a leased server out of the pool for good. */
  retire(server: T): void {
    if (!this.leased.delete(server)) throw new Error('ServerPool.retire: server is not leased');
    if (this.leased.size > 0 || this.free.length > 0) return;
    for (const waiter of this.waiting.splice(0)) waiter.reject(this.noneLeft());
  }
}
