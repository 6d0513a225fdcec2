// Values as JSON delivers them (a model's reply, a hand-written file): typed as what the code declares,
// checked by nobody. For tests of code that defends against what its declared types rule out (a null
// entry in tool_calls, a string where an object belongs).

/** The value after a JSON round trip, typed as T by the caller: JSON.parse's result is not checked. */
export function parsedJson<T>(value: unknown): T {
  return JSON.parse(JSON.stringify(value));
}
