// The analysis tables `sql`, `report` and `export` work on: one fixed schema, declared here once. Every
// column has an explicit type, so nothing is inferred from a sample of the input and a field whose JSON
// type drifts between rows cannot break a table: typed columns are filled only from fields the record
// schema fixes (integers, booleans, strings), and free-form data (metadata) is kept whole as JSON text.
// The descriptions become DuckDB column comments (SELECT * FROM duckdb_columns()) and the --help text.

export interface ColumnSpec {
  readonly name: string;
  /** DuckDB type. */
  readonly type: string;
  readonly describe: string;
}

export interface TableSpec {
  readonly name: TableName;
  readonly describe: string;
  readonly columns: readonly ColumnSpec[];
}

export type TableName = 'trajectories' | 'turns' | 'tool_calls' | 'tool_stats' | 'discarded' | 'runs';

const RECORD = { name: 'record', type: 'BIGINT', describe: 'the trajectory: trajectories.record' } as const;
const WHERE_FROM: readonly ColumnSpec[] = [
  { name: 'run', type: 'VARCHAR', describe: 'the run directory it was read from (runs.run); NULL for a file named directly' },
  { name: 'source', type: 'VARCHAR', describe: 'the input file as named (<stdin> for standard input)' },
  { name: 'line', type: 'BIGINT', describe: 'line number in source, from 1' },
];

export const TABLES: readonly TableSpec[] = [
  {
    name: 'trajectories',
    describe: 'one row per trajectory record',
    columns: [
      { name: 'record', type: 'BIGINT', describe: 'position among all records read (trajectories and tombstones), from 0: the key the other tables refer to' },
      { name: 'id', type: 'VARCHAR', describe: 'the record id (NULL in records made by upstream Hermes)' },
      ...WHERE_FROM,
      { name: 'prompt_index', type: 'BIGINT', describe: 'prompt_index' },
      { name: 'model', type: 'VARCHAR', describe: 'metadata.model' },
      { name: 'batch_num', type: 'BIGINT', describe: 'metadata.batch_num' },
      { name: 'timestamp', type: 'VARCHAR', describe: 'metadata.timestamp as written (ISO 8601; TRY_CAST(timestamp AS TIMESTAMP) to compute with it)' },
      { name: 'completed', type: 'BOOLEAN', describe: 'completed' },
      { name: 'partial', type: 'BOOLEAN', describe: 'partial' },
      { name: 'api_calls', type: 'BIGINT', describe: 'api_calls' },
      { name: 'turns', type: 'INTEGER', describe: 'conversation turns (conversations.length)' },
      { name: 'toolsets_used', type: 'VARCHAR[]', describe: 'toolsets_used' },
      { name: 'prompt_tokens', type: 'BIGINT', describe: 'metadata.usage.prompt_tokens (NULL without metadata.usage)' },
      { name: 'completion_tokens', type: 'BIGINT', describe: 'metadata.usage.completion_tokens' },
      { name: 'total_tokens', type: 'BIGINT', describe: 'metadata.usage.total_tokens' },
      {
        name: 'tokens_before',
        type: 'BIGINT',
        describe: 'metadata.compression.tokens_before (NULL without metadata.compression or when hermes-compress did not count the tokens)',
      },
      { name: 'tokens_after', type: 'BIGINT', describe: 'metadata.compression.tokens_after (equal to tokens_before unless compression_status is compressed)' },
      {
        name: 'compression_status',
        type: 'VARCHAR',
        describe: 'metadata.compression.status: compressed, skipped, unchanged or error (NULL without metadata.compression)',
      },
      { name: 'wall_time_s', type: 'DOUBLE', describe: 'metadata.wall_time_s' },
      { name: 'endpoint_host', type: 'VARCHAR', describe: 'metadata.endpoint_host' },
      { name: 'run_name', type: 'VARCHAR', describe: 'metadata.run_name: the hermes-generate run (--run-name) that wrote the record' },
      { name: 'trace_id', type: 'VARCHAR', describe: 'metadata.trace_id: shared by a prompt and every sub-agent it delegated to' },
      {
        name: 'parent_id',
        type: 'VARCHAR',
        describe:
          "metadata.parent_id: the id of the record whose agent delegated this one (NULL for a prompt's own record); JOIN trajectories p ON p.id = t.parent_id",
      },
      {
        name: 'depth',
        type: 'INTEGER',
        describe: "metadata.depth: 1 for a sub-agent of the prompt's agent, 2 for one of its sub-agents...; NULL for a prompt's own record",
      },
      {
        name: 'cost_usd',
        type: 'DOUBLE',
        describe:
          "metadata.cost_usd: USD of the record's model calls, its sub-agents' included (NULL when not priced; sum over parent_id IS NULL for a run's total)",
      },
      { name: 'replayed_calls', type: 'INTEGER', describe: "metadata.replayed_calls: calls replayed from the run's call journal on --resume (NULL: none)" },
      { name: 'metadata', type: 'JSON', describe: "the whole metadata object (metadata->>'$.key' reads any key)" },
    ],
  },
  {
    name: 'turns',
    describe: 'one row per conversation turn',
    columns: [
      RECORD,
      { name: 'turn', type: 'INTEGER', describe: 'position in conversations, from 0' },
      { name: 'role', type: 'VARCHAR', describe: 'the turn\'s "from": system, human, gpt or tool' },
      { name: 'value_bytes', type: 'INTEGER', describe: 'UTF-8 bytes of the turn value' },
      {
        name: 'has_reasoning',
        type: 'BOOLEAN',
        describe: 'gpt turns: a <think> or <REASONING_SCRATCHPAD> block with text (the inserted empty <think> does not count); NULL for other roles',
      },
    ],
  },
  {
    name: 'tool_calls',
    describe: 'one row per <tool_call> block of a gpt turn, paired by position with the <tool_response> blocks of the tool turn after it',
    columns: [
      RECORD,
      { name: 'turn', type: 'INTEGER', describe: 'position of the gpt turn in conversations' },
      { name: 'call', type: 'INTEGER', describe: 'position of the call in its turn, from 0' },
      { name: 'name', type: 'VARCHAR', describe: 'the tool name (NULL when the block has no name: a malformed call)' },
      { name: 'arguments_bytes', type: 'INTEGER', describe: 'UTF-8 bytes of the arguments as compact JSON (NULL when the block could not be read)' },
      { name: 'error', type: 'VARCHAR', describe: 'why the block is malformed (NULL when it is a well-formed {"name", "arguments"} call)' },
      { name: 'success', type: 'BOOLEAN', describe: "the paired response's outcome by the upstream success rule; NULL when the call has no response" },
      { name: 'response_bytes', type: 'INTEGER', describe: 'UTF-8 bytes of the paired <tool_response> block (NULL when none)' },
    ],
  },
  {
    name: 'tool_stats',
    describe:
      "one row per trajectory and tool it called: the record's tool_stats (recomputed from the conversations when the record has none, as the stream stage does); tools with all zeros are left out",
    columns: [
      RECORD,
      { name: 'tool', type: 'VARCHAR', describe: 'tool name' },
      { name: 'count', type: 'BIGINT', describe: 'calls' },
      { name: 'success', type: 'BIGINT', describe: 'calls whose result counted as a success' },
      { name: 'failure', type: 'BIGINT', describe: 'calls whose result counted as a failure' },
    ],
  },
  {
    name: 'discarded',
    describe: 'one row per tombstone (a prompt discarded without a trajectory, e.g. for having no reasoning)',
    columns: [
      { name: 'record', type: 'BIGINT', describe: 'position among all records read' },
      { name: 'id', type: 'VARCHAR', describe: 'the tombstone id, when it has one' },
      ...WHERE_FROM,
      { name: 'prompt_index', type: 'BIGINT', describe: 'prompt_index' },
      { name: 'reason', type: 'VARCHAR', describe: 'the discarded reason, e.g. no_reasoning' },
      { name: 'prompt', type: 'VARCHAR', describe: 'the prompt text' },
    ],
  },
  {
    name: 'runs',
    describe: 'one row per run directory given as input (none for files named directly)',
    columns: [
      { name: 'run', type: 'VARCHAR', describe: 'the directory as named on the command line' },
      { name: 'name', type: 'VARCHAR', describe: 'the directory name (the run name)' },
      { name: 'files', type: 'INTEGER', describe: 'JSONL files read from it' },
      { name: 'manifest', type: 'JSON', describe: 'run.json, NULL when the directory has none' },
      { name: 'checkpoint', type: 'JSON', describe: 'checkpoint.json, NULL when none' },
      { name: 'statistics', type: 'JSON', describe: 'statistics.json, NULL when none' },
    ],
  },
];

export function tableSpec(name: TableName): TableSpec {
  const spec = TABLES.find((table) => table.name === name);
  if (!spec) throw new RangeError(`no table named ${name}`);
  return spec;
}

/** CREATE OR REPLACE TABLE statements with column comments, for every table. */
export function createTablesSql(): string {
  return TABLES.map((table) => {
    const columns = table.columns.map((column) => `${quoteIdentifier(column.name)} ${column.type}`).join(', ');
    const comments = table.columns.map((column) => `COMMENT ON COLUMN ${table.name}.${quoteIdentifier(column.name)} IS ${quoteLiteral(column.describe)};`);
    return [`CREATE OR REPLACE TABLE ${table.name} (${columns});`, `COMMENT ON TABLE ${table.name} IS ${quoteLiteral(table.describe)};`, ...comments].join(
      '\n',
    );
  }).join('\n');
}

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
