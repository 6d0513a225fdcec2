// One record as the rules see it. Turn values are parsed on first use and at most once, so a record
// dropped by a cheap rule never pays for parsing, and rules that read the same turns share one parse.
import { parseGptValue, type ParsedGptValue, type Trajectory } from '@hermes-datagen/core';

/** Why a record is dropped: `reason` names the rule (and its flag), `detail` says where and what. */
export interface Verdict {
  readonly reason: string;
  readonly detail: string;
}

export type Rule = (view: TrajectoryView) => Verdict | null;

export interface GptTurn {
  /** The turn's index in `conversations`. */
  readonly index: number;
  readonly parsed: ParsedGptValue;
}

export class TrajectoryView {
  private parsedGptTurns: GptTurn[] | undefined;

  public constructor(public readonly record: Trajectory) {}

  public get gptTurns(): readonly GptTurn[] {
    if (!this.parsedGptTurns) {
      this.parsedGptTurns = [];
      this.record.conversations.forEach((turn, index) => {
        if (turn.from === 'gpt') this.parsedGptTurns?.push({ index, parsed: parseGptValue(turn.value) });
      });
    }
    return this.parsedGptTurns;
  }

  /** Counted without parsing: the unit of --min-turns / --max-turns. */
  public get gptTurnCount(): number {
    return this.parsedGptTurns?.length ?? this.record.conversations.reduce((n, turn) => (turn.from === 'gpt' ? n + 1 : n), 0);
  }
}

/** `conversations[3]`: how details point into a record. */
export function turnPlace(index: number): string {
  return `conversations[${index}]`;
}

/** A short quote of model text for a detail. */
export function quote(text: string, max = 60): string {
  const oneLine = text.replace(/\s+/g, ' ');
  return JSON.stringify(oneLine.length > max ? `${oneLine.slice(0, max)}…` : oneLine);
}
