// The tool registry: which tool names are valid (tool_stats normalisation, the hallucinated-tool
// filter), the static toolsets and how they expand, and the toolset distributions sampled per prompt
// (docs/rules.md#toolsets-and-distributions). The default ships with core; a user's file replaces it whole.
import { fileURLToPath } from 'node:url';
import { UsageError, type HermesError } from './errors.js';
import { loadOptionFile, optionFileError, type OptionFile } from './optionFile.js';
import type { Rng } from './rng.js';
import { validator } from './schemas.js';

// src/ and dist/ both sit one level below the package, next to registry/.
export const DEFAULT_REGISTRY_FILE: string = fileURLToPath(new URL('../registry/tools.json', import.meta.url));

/** Names that expand to every tool, as upstream's resolve_toolset accepts. */
export const ALL_TOOLSETS = ['all', '*'] as const;

export interface Distribution {
  readonly name: string;
  readonly description: string;
  /** [toolset, inclusion probability in percent], in the file's order. */
  readonly toolsets: readonly (readonly [string, number])[];
}

export interface ToolRegistry {
  /** The file it was loaded from. */
  readonly source: string;
  /** Every valid tool name, sorted. */
  readonly names: readonly string[];
  has(name: string): boolean;
  /** The toolset a tool is registered under, or undefined for an unknown tool. */
  toolsetOf(name: string): string | undefined;
  /** Toolset names, sorted: the static ones, plus each registered toolset that has no static definition. */
  readonly toolsets: readonly string[];
  /** True for a toolset, a legacy alias of one (`web_tools`), `all` or `*`. */
  hasToolset(name: string): boolean;
  /** Throws a UsageError listing the valid toolsets unless hasToolset(name). */
  checkToolset(name: string): void;
  /** The sorted tool names of the toolsets, includes expanded; throws on an unknown toolset. */
  toolsOf(toolsets: readonly string[]): string[];
  /** Distribution names, in the file's order. */
  readonly distributions: readonly string[];
  /** Throws, listing the valid names, for an unknown distribution. */
  distribution(name: string): Distribution;
  /**
   * Upstream's sample_toolsets_from_distribution: each toolset is included independently when
   * rng() * 100 < its probability (one draw per toolset, in order); if none is, the first one with
   * the highest probability is. The result keeps the distribution's order.
   */
  sampleToolsets(distribution: string, rng: Rng): string[];
}

interface RegistryFile {
  tools: Record<string, { toolset: string }>;
  toolsets?: Record<string, { tools: string[]; includes?: string[] }>;
  toolset_aliases?: Record<string, string>;
  distributions?: Record<string, { description?: string; toolsets: Record<string, number> }>;
}

class RegistryProblem extends Error {}

const registryFile = (path: string, cwd = '.'): OptionFile => ({
  option: '--tools-registry',
  path,
  cwd,
  advice: 'without --tools-registry the default registry is used',
});

/**
 * The registry that --tools-registry names (relative to cwd), or the default one when it names none.
 * Every fault in the file is a usage error (exit 2) naming it.
 */
export function loadToolRegistry(path?: string, cwd = '.'): ToolRegistry {
  const file = registryFile(path ?? DEFAULT_REGISTRY_FILE, cwd);
  return parseToolRegistry(loadOptionFile(file, 'json'), file.path);
}

/** Checks the shape (schemas/tool-registry.schema.json) and every cross-reference, naming `source` in errors. */
export function parseToolRegistry(value: unknown, source: string): ToolRegistry {
  const problem = validator('tool-registry')(value);
  if (problem !== null) throw registryError(source, problem);
  try {
    return new Registry(value as RegistryFile, source);
  } catch (error) {
    if (error instanceof RegistryProblem) throw registryError(source, error.message);
    throw error;
  }
}

function registryError(source: string, problem: string): HermesError {
  return optionFileError(registryFile(source), problem);
}

class Registry implements ToolRegistry {
  public readonly names: readonly string[];
  public readonly toolsets: readonly string[];
  public readonly distributions: readonly string[];
  private readonly toolsetOfTool: ReadonlyMap<string, string>;
  private readonly toolsOfToolset = new Map<string, readonly string[]>();
  private readonly aliases: ReadonlyMap<string, string>;
  private readonly distributionByName: ReadonlyMap<string, Distribution>;

  public constructor(
    file: RegistryFile,
    public readonly source: string,
  ) {
    this.toolsetOfTool = new Map(Object.entries(file.tools).map(([name, entry]) => [name, entry.toolset]));
    this.names = Object.freeze([...this.toolsetOfTool.keys()].sort());
    this.aliases = new Map(Object.entries(file.toolset_aliases ?? {}));
    this.resolveToolsets(file.toolsets ?? {});
    this.toolsets = Object.freeze([...this.toolsOfToolset.keys()].sort());
    for (const [alias, target] of this.aliases) {
      if (!this.toolsOfToolset.has(target)) throw new RegistryProblem(`toolset alias "${alias}" points to unknown toolset "${target}"`);
    }
    // JSON objects keep their key order, except that integer-like keys ("1") come first in JS.
    this.distributionByName = new Map(Object.entries(file.distributions ?? {}).map(([name, entry]) => [name, this.checkedDistribution(name, entry)]));
    this.distributions = Object.freeze([...this.distributionByName.keys()]);
  }

  public has(name: string): boolean {
    return this.toolsetOfTool.has(name);
  }

  public toolsetOf(name: string): string | undefined {
    return this.toolsetOfTool.get(name);
  }

  public hasToolset(name: string): boolean {
    return isAll(name) || this.toolsOfToolset.has(this.canonical(name));
  }

  public checkToolset(name: string): void {
    if (!this.hasToolset(name)) throw new UsageError(`unknown toolset "${name}"; valid toolsets: ${[...this.toolsets, ...ALL_TOOLSETS].join(', ')}`);
  }

  public toolsOf(toolsets: readonly string[]): string[] {
    const tools = new Set<string>();
    for (const toolset of toolsets) {
      this.checkToolset(toolset);
      for (const tool of this.expand(toolset)) tools.add(tool);
    }
    return [...tools].sort();
  }

  public distribution(name: string): Distribution {
    const found = this.distributionByName.get(name);
    if (!found) throw new UsageError(`unknown distribution "${name}"; valid distributions: ${this.distributions.join(', ')}`);
    return found;
  }

  public sampleToolsets(distribution: string, rng: Rng): string[] {
    const { toolsets } = this.distribution(distribution);
    const chosen = toolsets.filter(([, probability]) => rng() * 100 < probability).map(([toolset]) => toolset);
    if (chosen.length > 0) return chosen;
    const [likeliest] = toolsets.reduce((best, entry) => (entry[1] > best[1] ? entry : best));
    return [likeliest];
  }

  private canonical(name: string): string {
    return this.aliases.get(name) ?? name;
  }

  private expand(toolset: string): readonly string[] {
    return isAll(toolset) ? this.names : (this.toolsOfToolset.get(this.canonical(toolset)) ?? []);
  }

  /**
   * A toolset is a static one from `toolsets`, or else a toolset named in `tools` (like upstream's
   * registry toolsets such as "messaging"), holding the tools registered under it. Includes are
   * expanded recursively; a cycle is an error.
   */
  private resolveToolsets(statics: NonNullable<RegistryFile['toolsets']>): void {
    for (const [tool, toolset] of this.toolsetOfTool) {
      if (Object.hasOwn(statics, toolset)) continue;
      this.toolsOfToolset.set(toolset, [...(this.toolsOfToolset.get(toolset) ?? []), tool].sort());
    }
    const resolving: string[] = [];
    const resolve = (name: string): readonly string[] => {
      const done = this.toolsOfToolset.get(name);
      if (done) return done;
      if (resolving.includes(name)) throw new RegistryProblem(`toolsets include each other in a cycle: ${[...resolving, name].join(' -> ')}`);
      resolving.push(name);
      const definition = statics[name] as { tools: string[]; includes?: string[] };
      const tools = new Set<string>();
      for (const tool of definition.tools) {
        if (!this.has(tool)) throw new RegistryProblem(`toolset "${name}" lists "${tool}", which is not in "tools"`);
        tools.add(tool);
      }
      for (const included of definition.includes ?? []) {
        const target = this.canonical(included);
        let members: Iterable<string>;
        if (isAll(target)) members = this.names;
        else if (Object.hasOwn(statics, target)) members = resolve(target);
        else if (this.toolsOfToolset.has(target)) members = this.toolsOfToolset.get(target) ?? [];
        else throw new RegistryProblem(`toolset "${name}" includes unknown toolset "${included}"`);
        for (const tool of members) tools.add(tool);
      }
      resolving.pop();
      const resolved = [...tools].sort();
      this.toolsOfToolset.set(name, resolved);
      return resolved;
    };
    Object.keys(statics).forEach(resolve);
  }

  private checkedDistribution(name: string, entry: NonNullable<RegistryFile['distributions']>[string]): Distribution {
    const toolsets = Object.entries(entry.toolsets);
    if (toolsets.length === 0) throw new RegistryProblem(`distribution "${name}" has no toolsets`);
    for (const [toolset] of toolsets) {
      if (!this.hasToolset(toolset)) throw new RegistryProblem(`distribution "${name}" uses unknown toolset "${toolset}"`);
    }
    return { name, description: entry.description ?? '', toolsets };
  }
}

function isAll(name: string): boolean {
  return (ALL_TOOLSETS as readonly string[]).includes(name);
}
