// `hermes-stats report`: the standard report of a run, computed by SQL over the analysis tables, as the
// console summary (default), as JSON in the stream summary's shape (--json), and as an HTML page (--html).
import { resolve } from 'node:path';
import { VERSION, writeFileAtomic, type RunContext } from '@hermes-datagen/core';
import type { AnalysisDatabase } from './duckdb/database.js';
import { queryReport } from './reportData.js';
import { renderReportHtml } from './reportHtml.js';
import { renderReportText } from '@hermes-datagen/core';

export interface ReportOptions {
  readonly json: boolean;
  readonly html?: string | undefined;
  /** What the report was made from, for the page's header. */
  readonly inputs: readonly string[];
}

export async function writeReport(db: AnalysisDatabase, ctx: RunContext, options: ReportOptions): Promise<void> {
  const data = await queryReport(db.connection);
  if (options.html !== undefined) {
    const page = renderReportHtml(data, {
      title: 'Hermes trajectories report',
      inputs: options.inputs,
      generatedAt: new Date(),
      generator: `hermes-stats ${VERSION}`,
    });
    await writeFileAtomic(resolve(ctx.io.cwd, options.html), page);
  }
  const out = await ctx.openOutput();
  if (options.json) await out.writeLine(JSON.stringify(data.summary, null, 2));
  else await out.writeLine(renderReportText(data.summary).trimEnd());
}
