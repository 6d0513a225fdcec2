// Where each message lies in ONE render of the whole chat. A chat template renders the messages in a
// loop over them (`{% for message in messages %}`, or a slice of them); the text an iteration adds is
// that message's rendering in this chat, whatever the template does to earlier turns once later ones
// follow (Qwen3 drops an empty <think> and the reasoning of turns before the last user query). So the
// interpreter is instrumented: while a tracked render runs, each iteration of a loop whose item is one
// of the chat's messages is wrapped in marks naming the message (Unicode noncharacters, which no
// message may contain), and the marks are cut out afterwards, leaving each message's [start, end) in
// the plain text. Loops whose output a template could capture and transform (inside a macro, a
// {% set %} block, a call or filter block) are not tracked, so the text without the marks is exactly
// the plain render.
type Jinja = typeof import('@huggingface/jinja');
type Template = InstanceType<Jinja['Template']>;
type Value = ReturnType<InstanceType<Jinja['Environment']>['lookupVariable']>;
type Environment = InstanceType<Jinja['Environment']>;
type EvaluateBlock = (statements: unknown[], environment: Environment) => Value;

const OPEN = '\uFDD0';
const NAMED = '\uFDD1';
const CLOSE = '\uFDD2';
const MARKS = /[\uFDD0-\uFDD2]/;

export type Region = readonly [start: number, end: number];

export interface RenderedRegions {
  readonly text: string;
  /** Per message index: where its rendering lies in text; undefined where the template rendered it outside a loop over the messages (a system turn printed before the loop) or not at all. */
  readonly regions: (Region | undefined)[];
}

interface Tracking {
  readonly bodies: ReadonlySet<unknown>;
  readonly loopVars: ReadonlyMap<unknown, string>;
  indexOf: Map<unknown, number> | undefined;
}

let active: Tracking | undefined;
const instrumented = new WeakSet<object>();

interface Node {
  readonly type?: unknown;
  readonly body?: unknown;
  readonly loopvar?: { readonly type?: unknown; readonly value?: unknown };
}

/** The loop bodies of a parsed template whose output goes straight to the render's output. */
function trackedLoops(program: unknown): Map<unknown, string> {
  const bodies = new Map<unknown, string>();
  const visit = (value: unknown, captured: boolean): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item, captured);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const node = value as Node;
    const type = node.type;
    const capturing = captured || type === 'Macro' || type === 'CallStatement' || type === 'FilterStatement' || type === 'Set';
    if (type === 'For' && !captured && node.loopvar?.type === 'Identifier' && typeof node.loopvar.value === 'string') {
      bodies.set(node.body, node.loopvar.value);
    }
    for (const child of Object.values(value)) visit(child, capturing);
  };
  visit(program, false);
  return bodies;
}

/** A render function for one template that also says where each message lies in the text. */
export function regionRenderer(
  jinja: Jinja,
  template: Template,
): (values: Record<string, unknown>, messages: readonly object[]) => RenderedRegions | { problem: string } {
  instrument(jinja);
  const loopVars = trackedLoops(template.parsed);
  const tracking: Tracking = { bodies: new Set(loopVars.keys()), loopVars, indexOf: undefined };
  return (values, messages) => {
    if (messages.some((message) => MARKS.test(JSON.stringify(message)))) {
      return { problem: 'a message contains one of the characters U+FDD0..U+FDD2, which mark message boundaries in the render' };
    }
    tracking.indexOf = undefined;
    active = tracking;
    let marked: string;
    try {
      marked = template.render(values);
    } finally {
      active = undefined;
    }
    return unmark(marked, messages.length);
  };
}

/** Wraps tracked loop iterations in marks while a tracked render runs (once per library instance). */
function instrument(jinja: Jinja): void {
  const prototype = jinja.Interpreter.prototype as object;
  if (instrumented.has(prototype)) return;
  instrumented.add(prototype);
  const evaluateBlock = Reflect.get(prototype, 'evaluateBlock') as EvaluateBlock;
  Reflect.set(prototype, 'evaluateBlock', function (this: object, statements: unknown[], environment: Environment): Value {
    const output = evaluateBlock.call(this, statements, environment);
    const tracking = active;
    if (tracking === undefined || !tracking.bodies.has(statements)) return output;
    tracking.indexOf ??= messageIndex(environment);
    const index = tracking.indexOf.get(environment.lookupVariable(tracking.loopVars.get(statements) as string));
    if (index === undefined) return output;
    const StringValue = output.constructor as new (value: string) => Value;
    return new StringValue(`${OPEN}${index}${NAMED}${String(output.value)}${CLOSE}`);
  });
}

/** The chat's messages as the template sees them (the runtime values of `messages`), by index. */
function messageIndex(environment: Environment): Map<unknown, number> {
  const messages = environment.lookupVariable('messages');
  const index = new Map<unknown, number>();
  if (Array.isArray(messages.value)) {
    for (const [i, value] of (messages.value as unknown[]).entries()) index.set(value, i);
  }
  return index;
}

/** The plain text and each message's region; a message rendered in two places is refused. */
function unmark(marked: string, count: number): RenderedRegions | { problem: string } {
  const regions: (Region | undefined)[] = new Array(count).fill(undefined);
  const open: { index: number; start: number }[] = [];
  let text = '';
  let from = 0;
  const marks = new RegExp(MARKS.source, 'g');
  for (let found = marks.exec(marked); found !== null; marks.lastIndex = from, found = marks.exec(marked)) {
    const at = found.index;
    text += marked.slice(from, at);
    if (marked[at] === CLOSE) {
      const region = open.pop() as { index: number; start: number };
      from = at + 1;
      if (text.length === region.start) continue;
      if (regions[region.index] !== undefined || open.length > 0) {
        return { problem: `the chat template renders message ${region.index + 1} in more than one place, so its span in the render is ambiguous` };
      }
      regions[region.index] = [region.start, text.length];
    } else {
      const named = marked.indexOf(NAMED, at);
      open.push({ index: Number(marked.slice(at + 1, named)), start: text.length });
      from = named + 1;
    }
  }
  text += marked.slice(from);
  return { text, regions };
}
