// Trajectories of the same prompt form a group (Atropos's unit: N rollouts of one prompt, scored
// against each other). A group is held only until it is complete, and the number held at once is
// bounded, so memory does not grow with the input:
//   --group-size N: a group is complete at its N-th member; further members of the prompt start a new
//     group. Members left over at the end (or when --sorted input moves on) are reported as incomplete.
//   --group-size auto: every member of a prompt is one group. Unsorted input holds every group until
//     the input ends; --sorted input (all records of a prompt adjacent) ends a group when the key changes.
// Either way, more than --max-open-groups groups open at once is an error that says what to do.
import { createHash } from 'node:crypto';
import { firstHumanTurn, UsageError, type Place, type Trajectory } from '@hermes-datagen/core';

export type GroupBy = 'prompt_index' | 'prompt';
export type GroupSize = number | 'auto';

export interface Member {
  readonly record: Trajectory;
  readonly place: Place;
  readonly score: number;
  readonly fired?: readonly string[];
}

export interface Group {
  readonly key: string;
  readonly members: Member[];
}

/** prompt_index, or the first 16 hex of the SHA-256 of the first human turn (upstream's resume key). */
export function groupKey(record: Trajectory, by: GroupBy): string {
  if (by === 'prompt_index') return `prompt_index ${record.prompt_index}`;
  return `prompt ${createHash('sha256').update(firstHumanTurn(record), 'utf8').digest('hex').slice(0, 16)}`;
}

export function parseGroupSize(value: string | number): GroupSize {
  if (value === 'auto') return 'auto';
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--group-size must be a positive integer or auto, got ${String(value)}`);
  return n;
}

export class GroupBuffer {
  private readonly open = new Map<string, Member[]>();
  private lastKey: string | undefined;

  public constructor(
    private readonly size: GroupSize,
    private readonly maxOpen: number,
    private readonly sorted: boolean,
    /** Receives groups left incomplete under --group-size N. */
    private readonly onIncomplete: (group: Group) => void,
  ) {}

  /** Adds a member; returns the groups this completes (in the order they completed). */
  public add(key: string, member: Member): Group[] {
    const done: Group[] = [];
    if (this.sorted && this.lastKey !== undefined && key !== this.lastKey) this.close(this.lastKey, done);
    this.lastKey = key;
    let members = this.open.get(key);
    if (!members) {
      if (this.open.size >= this.maxOpen) {
        throw new UsageError(
          `more than ${this.maxOpen} groups are open at once (--max-open-groups): give input sorted by prompt with --sorted, ` +
            'a smaller input, or a larger --max-open-groups',
        );
      }
      members = [];
      this.open.set(key, members);
    }
    members.push(member);
    if (this.size !== 'auto' && members.length === this.size) {
      this.open.delete(key);
      done.push({ key, members });
    }
    return done;
  }

  /** The end of the input: auto groups are complete; N-groups still open are incomplete. */
  public finish(): Group[] {
    const done: Group[] = [];
    for (const key of [...this.open.keys()]) this.close(key, done);
    return done;
  }

  private close(key: string, done: Group[]): void {
    const members = this.open.get(key);
    if (!members) return;
    this.open.delete(key);
    if (this.size === 'auto') done.push({ key, members });
    else this.onIncomplete({ key, members });
  }
}
