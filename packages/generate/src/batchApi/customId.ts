// The custom_id of a request in a provider batch: the agent's record id (sub-agents have their own),
// the turn (the call's index in that agent's run) and, for a request sent again after its entry
// failed, the attempt. A custom_id is never submitted twice: each attempt has its own, and the
// attempts a run made are remembered across invocations (batchLedger.ts).

/** What a custom_id names. */
export interface CallName {
  readonly id: string;
  readonly turn: number;
  /** 0 for the first submission of this turn's request. */
  readonly attempt: number;
}

const SUFFIX = /@t(\d+)(?:r(\d+))?$/;

/** `<record id>@t<turn>`, then `r<attempt>` from the second attempt on: one string per (record, turn, attempt). */
export function customId(call: CallName): string {
  return `${call.id}@t${call.turn}${call.attempt === 0 ? '' : `r${call.attempt}`}`;
}

/**
 * The call a custom_id names; undefined for one this run did not make. The suffix is read from the
 * end, so a record id that itself holds `@t1` still reads back whole.
 */
export function parseCustomId(value: string): CallName | undefined {
  const match = SUFFIX.exec(value);
  if (match === null || match.index === 0) return undefined;
  const attempt = match[2] === undefined ? 0 : Number(match[2]);
  // `r0` is never written: reading it as attempt 0 would give two strings for one call.
  if (match[2] !== undefined && attempt === 0) return undefined;
  return { id: value.slice(0, match.index), turn: Number(match[1]), attempt };
}
