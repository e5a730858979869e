/**
 * The names of one folder handed out in sorted order, lazily: a small folder is sorted at once, a
 * large one becomes a binary min-heap (built in linear time) from which each name costs
 * `O(log n)`, so a walk that stops after a few entries of a folder of 200,000 never sorts it
 * whole. Order: UTF-16 code units (`<`), as `Array.prototype.sort` with that comparison. Private
 * to the sandbox folder.
 *
 * @module
 */

/** Folders up to this many names are sorted at once (cheaper than a heap for a full read). */
const SORT_AT_ONCE = 2048;

/** Sorted names of one folder, taken from the front. */
export class NameQueue {
  readonly #names: string[];
  readonly #heap: boolean;
  #next = 0;
  #size: number;

  /** Takes ownership of `names` (the array is reordered in place). */
  constructor(names: string[]) {
    this.#names = names;
    this.#size = names.length;
    this.#heap = names.length > SORT_AT_ONCE;
    if (this.#heap) {
      for (let index = (this.#size >> 1) - 1; index >= 0; index -= 1) this.#siftDown(index);
    } else {
      names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    }
  }

  /** Names not taken yet. */
  get remaining(): number {
    return this.#heap ? this.#size : this.#names.length - this.#next;
  }

  /** The smallest name not taken yet, or undefined when none is left. */
  take(): string | undefined {
    if (!this.#heap) {
      if (this.#next >= this.#names.length) return undefined;
      return this.#names[this.#next++];
    }
    if (this.#size === 0) return undefined;
    const names = this.#names;
    const smallest = names[0] as string;
    this.#size -= 1;
    names[0] = names[this.#size] as string;
    names.length = this.#size;
    if (this.#size > 0) this.#siftDown(0);
    return smallest;
  }

  #siftDown(start: number): void {
    const names = this.#names;
    const size = this.#size;
    let index = start;
    const value = names[index] as string;
    while (true) {
      let child = 2 * index + 1;
      if (child >= size) break;
      const right = child + 1;
      if (right < size && (names[right] as string) < (names[child] as string)) child = right;
      if ((names[child] as string) >= value) break;
      names[index] = names[child] as string;
      index = child;
    }
    names[index] = value;
  }
}
