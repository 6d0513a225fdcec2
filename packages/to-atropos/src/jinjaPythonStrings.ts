// @huggingface/jinja 0.5.11's str.strip(), lstrip() and rstrip() ignore their argument and trim
// JavaScript's whitespace: "x\r\n".rstrip('\n') gives "x" where Python (and so transformers'
// apply_chat_template) gives "x\r". Qwen3's template strips reasoning and content with arguments
// ('\n'), so a trailing \r, tab or space before </think> rendered differently from transformers.
// These three methods, and the trim filter (Jinja's is str.strip(chars); the library's is JavaScript's
// trim() and takes no argument), are replaced here by Python's (core's pythonStripChars), for every
// template this package renders, until the library honours the argument. No huggingface.js issue was found;
// the same bug in Hugging Face's Swift port: https://github.com/huggingface/swift-jinja/issues/64
// (fixed by https://github.com/huggingface/swift-jinja/pull/65).
import { pythonStripChars } from '@hermes-datagen/core';

type Jinja = typeof import('@huggingface/jinja');
/** The library's runtime values (its classes are declared but not exported). */
type Value = ReturnType<InstanceType<Jinja['Environment']>['lookupVariable']>;
type Ends = 'both' | 'start' | 'end';

interface FilterNode {
  readonly type: string;
  readonly value?: unknown;
  readonly callee?: FilterNode;
  readonly args?: unknown[];
}

type ApplyFilter = (operand: Value, filter: FilterNode, environment: unknown) => Value;
type EvaluateArguments = (args: unknown[], environment: unknown) => [Value[], Map<string, Value>];

const METHODS: Readonly<Record<string, Ends>> = { strip: 'both', lstrip: 'start', rstrip: 'end' };

const patched = new WeakSet<object>();

/** Makes the library's string values and trim filter strip as Python's do (idempotent). */
export function usePythonStrip(jinja: Jinja): void {
  // The value classes are not exported: reach them through values the library makes itself.
  const env = new jinja.Environment();
  env.set('text', '');
  env.set('fn', () => null);
  const StringValue = env.lookupVariable('text').constructor as new (value: string) => Value;
  const FunctionValue = env.lookupVariable('fn').constructor as new (fn: (args: Value[]) => Value) => Value;
  const prototype = StringValue.prototype as object;
  if (patched.has(prototype)) return;
  patched.add(prototype);
  const builtinsOf = Object.getOwnPropertyDescriptor(prototype, 'builtins')?.get;
  const applyFilter = Reflect.get(jinja.Interpreter.prototype, 'applyFilter') as ApplyFilter | undefined;
  if (!builtinsOf || !applyFilter) throw new Error('@huggingface/jinja changed: its string methods and filters cannot be given Python semantics');

  const strip = (name: string, text: string, chars: Value | undefined, ends: Ends): Value => {
    if (chars === undefined || chars.type === 'NullValue' || chars.type === 'UndefinedValue') return new StringValue(pythonStripChars(text, undefined, ends));
    if (typeof chars.value !== 'string' || chars.type !== 'StringValue') throw new Error(`${name} arg must be None or str, not ${chars.type}`);
    return new StringValue(pythonStripChars(text, chars.value, ends));
  };

  Reflect.set(jinja.Interpreter.prototype, 'applyFilter', function (this: object, operand: Value, filter: FilterNode, environment: unknown): Value {
    if (operand.type === 'StringValue' && typeof operand.value === 'string') {
      if (filter.type === 'Identifier' && filter.value === 'trim') return strip('trim', operand.value, undefined, 'both');
      if (filter.type === 'CallExpression' && filter.callee?.type === 'Identifier' && filter.callee.value === 'trim') {
        const evaluateArguments = Reflect.get(this, 'evaluateArguments') as EvaluateArguments;
        const [args, kwargs] = evaluateArguments.call(this, filter.args ?? [], environment);
        return strip('trim', operand.value, args[0] ?? kwargs.get('chars'), 'both');
      }
    }
    return applyFilter.call(this, operand, filter, environment);
  });

  const withPython = new WeakSet<Map<string, Value>>();
  Object.defineProperty(prototype, 'builtins', {
    configurable: true,
    get(this: { value: string }) {
      const builtins = builtinsOf.call(this) as Map<string, Value>;
      if (withPython.has(builtins)) return builtins;
      withPython.add(builtins);
      for (const [name, ends] of Object.entries(METHODS)) {
        builtins.set(
          name,
          new FunctionValue((args) => {
            if (args.length > 1) throw new Error(`${name}() takes at most 1 argument (${args.length} given)`);
            return strip(name, this.value, args[0], ends);
          }),
        );
      }
      return builtins;
    },
  });
}
