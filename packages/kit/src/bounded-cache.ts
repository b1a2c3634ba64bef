import { LRUCache } from "lru-cache";

export interface BoundedCacheOptions {
  /** At most this many entries; when full, the least recently used one leaves (at least 1). */
  maxEntries: number;
  /** How long an entry is answered after it was set; left out: until it is evicted or deleted. */
  ttlMs?: number;
  /** The clock (milliseconds), for tests; Date.now by default. */
  now?: () => number;
}

interface Entry<V> {
  value: V;
  expiresAt: number;
}

/**
 * The one in-memory cache of docex, with one eviction rule: at most `maxEntries` entries, the least recently used
 * leaving first (lru-cache), and an entry never answered from the moment its time is up (`ttlMs` after it was set,
 * or the `expiresAt` given to `set`). Expiry is checked here, on the caller's clock, rather than by lru-cache's own
 * TTL, which measures time on `performance.now()` and answers an entry until a millisecond after its time.
 */
export class BoundedCache<K extends {}, V> {
  private readonly entries: LRUCache<K, Entry<V>>;
  private readonly ttlMs: number | undefined;
  private readonly now: () => number;

  constructor(options: BoundedCacheOptions) {
    this.entries = new LRUCache<K, Entry<V>>({ max: Math.max(1, options.maxEntries) });
    this.ttlMs = options.ttlMs;
    this.now = options.now ?? Date.now;
  }

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Keeps `value` for the cache's `ttlMs`, or until `expiresAt` (milliseconds on the cache's clock) when given. */
  set(key: K, value: V, expiresAt?: number): void {
    const until = expiresAt ?? (this.ttlMs === undefined ? Number.POSITIVE_INFINITY : this.now() + this.ttlMs);
    if (until <= this.now()) return;
    this.entries.set(key, { value, expiresAt: until });
  }

  /** The cached value, else `load()`'s, kept (a rejected promise is not kept: the next call loads again). */
  getOrSet(key: K, load: () => V): V {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const value = load();
    this.set(key, value);
    if (value instanceof Promise) value.catch(() => this.forgetIf(key, value));
    return value;
  }

  /** Whether an entry is held for `key`, expired or not (without counting as a use). */
  holds(key: K): boolean {
    return this.entries.has(key);
  }

  /** The cached value, else what `load` finds, kept when it found one (undefined, "none", is not kept). */
  async getOrLoad(key: K, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const value = await load();
    if (value !== undefined) this.set(key, value);
    return value;
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  /** Forgets `key`, or every entry when it is undefined (as `forgetChangedQueues` names what changed). */
  forget(key?: K): void {
    if (key === undefined) this.entries.clear();
    else this.entries.delete(key);
  }

  /** Deletes every entry whose key matches. */
  deleteWhere(matches: (key: K) => boolean): void {
    for (const key of [...this.entries.keys()]) if (matches(key)) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  /** Entries held, expired ones not yet dropped included. */
  get size(): number {
    return this.entries.size;
  }

  private forgetIf(key: K, value: V): void {
    if (this.entries.peek(key)?.value === value) this.entries.delete(key);
  }
}
