/** The promise a cache holds for a key, made the first time it is asked for: callers at once share one read. */
export function cached<K, V>(cache: Map<K, Promise<V>>, key: K, make: (key: K) => Promise<V>): Promise<V> {
  let pending = cache.get(key);
  if (pending === undefined) {
    pending = make(key);
    cache.set(key, pending);
  }
  return pending;
}
