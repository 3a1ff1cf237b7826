/**
 * What a fingerprinter remembers of one scanned tree, per file, in typed arrays: the last stat seen
 * (size, mtime, ctime, inode) and the content hash it had, the relative path, and per directory the file
 * names it listed. One slot per file, reused when files go: a tree whose files come and go does not grow.
 *
 * @module
 */

/** Marks a table position that is no file of the store (a note of where the walk stopped). */
export const NO_SLOT = 0xffffffff;

/** Per directory: the slot of each file name it listed, and the scan that listed it last. */
export interface DirCache {
  slots: Map<string, number>;
  seen: number;
}

export class SlotStore {
  size = new Float64Array(0);
  mtime = new Float64Array(0);
  ctime = new Float64Array(0);
  ino = new Float64Array(0);
  /** The scan that last saw each slot's file. */
  mark = new Uint32Array(0);
  /** 1 while a slot is part of the tree's table. */
  placed = new Uint8Array(0);
  /** The content hash (or `link:`/`special:`/`unreadable:` entry) of each slot. */
  hash: string[] = [];
  /** The path relative to the tree's root, shared with the tables built from it. */
  rel: string[] = [];
  /** Symlink targets, by slot (few: kept apart from the arrays every file pays for). */
  targets = new Map<number, string>();
  #free: number[] = [];
  #top = 0;

  /** Slots in use. */
  get live(): number {
    return this.#top - this.#free.length;
  }

  alloc(rel: string): number {
    const slot = this.#free.pop() ?? this.#top++;
    if (slot >= this.size.length) this.#grow(Math.max(64, this.size.length * 2));
    this.size[slot] = -1;
    this.mtime[slot] = this.ctime[slot] = this.ino[slot] = 0;
    this.mark[slot] = 0;
    this.placed[slot] = 0;
    this.hash[slot] = "";
    this.rel[slot] = rel;
    return slot;
  }

  /** Gives slots back; call once no table position refers to them any more. */
  release(slots: readonly number[]): void {
    for (const slot of slots) {
      this.hash[slot] = this.rel[slot] = "";
      this.placed[slot] = 0;
      this.targets.delete(slot);
      this.#free.push(slot);
    }
  }

  #grow(cap: number): void {
    const f64 = (a: Float64Array) => {
      const b = new Float64Array(cap);
      b.set(a);
      return b;
    };
    [this.size, this.mtime, this.ctime, this.ino] = [
      f64(this.size),
      f64(this.mtime),
      f64(this.ctime),
      f64(this.ino),
    ];
    const mark = new Uint32Array(cap);
    mark.set(this.mark);
    this.mark = mark;
    const placed = new Uint8Array(cap);
    placed.set(this.placed);
    this.placed = placed;
  }
}
