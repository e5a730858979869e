/**
 * A fixed-size ring of the last bytes written.
 *
 * @module
 */

/** Keeps the last `capacity` bytes pushed into it, in order, in one preallocated buffer. */
export class ByteRing {
  readonly #buffer: Uint8Array;
  /** Where the next byte goes. */
  #next = 0;
  #length = 0;

  /**
   * Allocates the ring.
   *
   * @param capacity Bytes kept; 0 keeps nothing.
   */
  constructor(capacity: number) {
    this.#buffer = new Uint8Array(capacity);
  }

  /** Bytes kept at most. */
  get capacity(): number {
    return this.#buffer.length;
  }

  /** Bytes held now: at most the capacity. */
  get length(): number {
    return this.#length;
  }

  /** Appends `bytes`, dropping the oldest bytes beyond the capacity. */
  push(bytes: Uint8Array): void {
    const capacity = this.#buffer.length;
    if (capacity === 0 || bytes.length === 0) return;
    const kept = bytes.length > capacity ? bytes.subarray(bytes.length - capacity) : bytes;
    const first = Math.min(kept.length, capacity - this.#next);
    this.#buffer.set(kept.subarray(0, first), this.#next);
    this.#buffer.set(kept.subarray(first), 0);
    this.#next = (this.#next + kept.length) % capacity;
    this.#length = Math.min(capacity, this.#length + kept.length);
  }

  /** The bytes held, oldest first, as a new array. */
  toBytes(): Uint8Array {
    const result = new Uint8Array(this.#length);
    const start = (this.#next - this.#length + this.#buffer.length) %
      Math.max(1, this.#buffer.length);
    const first = Math.min(this.#length, this.#buffer.length - start);
    result.set(this.#buffer.subarray(start, start + first), 0);
    result.set(this.#buffer.subarray(0, this.#length - first), first);
    return result;
  }
}
