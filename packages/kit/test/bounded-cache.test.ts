import { expect } from "chai";
import { BoundedCache } from "../src/bounded-cache.js";

describe("BoundedCache", () => {
  let clock: number;
  const now = () => clock;

  beforeEach(() => {
    clock = 0;
  });

  it("answers an entry until its time is up and not from that millisecond on (a clock starting at 0 too)", () => {
    const cache = new BoundedCache<string, number>({ maxEntries: 10, ttlMs: 1_000, now });
    cache.set("a", 1);
    clock = 999;
    expect(cache.get("a")).to.equal(1);
    clock = 1_000;
    expect(cache.get("a")).to.equal(undefined);
    expect(cache.size).to.equal(0);
  });

  it("keeps an entry until the expiry given to set, whatever the cache's ttlMs", () => {
    const cache = new BoundedCache<string, number>({ maxEntries: 10, ttlMs: 1_000, now });
    cache.set("a", 1, 50);
    clock = 49;
    expect(cache.get("a")).to.equal(1);
    clock = 50;
    expect(cache.get("a")).to.equal(undefined);
  });

  it("keeps nothing with a ttlMs of 0, and without ttlMs keeps entries until they are evicted", () => {
    const none = new BoundedCache<string, number>({ maxEntries: 10, ttlMs: 0, now });
    none.set("a", 1);
    expect(none.get("a")).to.equal(undefined);
    const forever = new BoundedCache<string, number>({ maxEntries: 10, now });
    forever.set("a", 1);
    clock = Number.MAX_SAFE_INTEGER;
    expect(forever.get("a")).to.equal(1);
  });

  it("holds at most maxEntries, the least recently used leaving first", () => {
    const cache = new BoundedCache<string, number>({ maxEntries: 2, now });
    cache.set("a", 1);
    cache.set("b", 2);
    cache.get("a");
    cache.set("c", 3);
    expect([cache.get("a"), cache.get("b"), cache.get("c")]).to.deep.equal([1, undefined, 3]);
  });

  it("getOrSet loads once, and does not keep a rejected promise", async () => {
    const cache = new BoundedCache<string, Promise<number>>({ maxEntries: 10, ttlMs: 1_000, now });
    let calls = 0;
    const failing = () => {
      calls++;
      return Promise.reject(new Error("down"));
    };
    await cache.getOrSet("a", failing).catch(() => undefined);
    await cache.getOrSet("a", failing).catch(() => undefined);
    expect(calls).to.equal(2);
    const loading = () => {
      calls++;
      return Promise.resolve(7);
    };
    expect(await cache.getOrSet("b", loading)).to.equal(7);
    expect(await cache.getOrSet("b", loading)).to.equal(7);
    expect(calls).to.equal(3);
  });

  it("getOrLoad keeps what it found and asks again after none", async () => {
    const cache = new BoundedCache<string, number>({ maxEntries: 10, now });
    let calls = 0;
    const none = async () => {
      calls++;
      return undefined;
    };
    expect(await cache.getOrLoad("a", none)).to.equal(undefined);
    expect(await cache.getOrLoad("a", none)).to.equal(undefined);
    const one = async () => {
      calls++;
      return 1;
    };
    expect(await cache.getOrLoad("a", one)).to.equal(1);
    expect(await cache.getOrLoad("a", one)).to.equal(1);
    expect(calls).to.equal(3);
  });

  it("forgets one key, or everything without one", () => {
    const cache = new BoundedCache<string, number>({ maxEntries: 10, now });
    for (const key of ["a", "b", "c"]) cache.set(key, 1);
    cache.forget("a");
    expect([cache.holds("a"), cache.size]).to.deep.equal([false, 2]);
    cache.forget();
    expect(cache.size).to.equal(0);
  });

  it("deletes the entries whose key matches", () => {
    const cache = new BoundedCache<string, number>({ maxEntries: 10, now });
    for (const key of ["x:1", "x:2", "y:1"]) cache.set(key, 1);
    cache.deleteWhere((key) => key.startsWith("x:"));
    expect(cache.size).to.equal(1);
    expect(cache.holds("y:1")).to.equal(true);
  });
});
