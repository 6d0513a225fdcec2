// doctor --batch-api: whether the endpoint serves the routes of OpenAI's batch API that a run with
// --batch-api uses, asked without creating anything: GET /batches and GET /files (purpose batch)
// must each answer a list. The check says which route answered what, so a gateway that forwards
// chat completions but not batches is told apart from one whose key may not list files.
import type { FetchLike } from '@hermes-datagen/core/endpoint';
import { endpointUrl } from '@hermes-datagen/core/endpoint';
import type { Check, Exchange } from './judgeExchange.js';
import { exchange, type RequestParts } from './networkProbe.js';

const ROUTES = [
  { path: 'batches?limit=1', shown: 'GET /batches' },
  { path: 'files?purpose=batch&limit=1', shown: 'GET /files' },
] as const;

export async function checkBatchRoutes(fetchFn: FetchLike, baseUrl: string, headers: RequestParts['headers'], timeoutMs: number): Promise<Check> {
  const answers = await Promise.all(ROUTES.map((route) => exchange(fetchFn, 'GET', endpointUrl(baseUrl, route.path), { headers }, timeoutMs)));
  const read = answers.map((answer, index) => ({ route: ROUTES[index]!.shown, ...readAnswer(answer) }));
  const said = read.map((answer) => `${answer.route}: ${answer.what}`).join('; ');
  if (read.every((answer) => answer.ok)) return { id: 'batch-api', status: 'ok', message: `the batch API answers (${said})` };
  const refused = read.some((answer) => answer.status === 401 || answer.status === 403);
  return {
    id: 'no-batch-api',
    status: 'fail',
    message: `the endpoint does not serve the batch API that --batch-api uses (${said})`,
    fix: refused
      ? 'the key may not use the batch API here: use a key (or project) allowed to upload files and create batches, or run without --batch-api'
      : "use an endpoint that serves OpenAI's /v1/files and /v1/batches (OpenAI itself, or a gateway that forwards them), or run without --batch-api",
  };
}

function readAnswer(answer: Exchange): { ok: boolean; status?: number; what: string } {
  if (answer.kind === 'error') return { ok: false, what: answer.timedOut ? 'no answer in time' : `no answer (${answer.code ?? answer.message})` };
  const head = `${answer.status}${answer.statusText === '' ? '' : ` ${answer.statusText}`}`;
  if (answer.status !== 200) return { ok: false, status: answer.status, what: head };
  let list: unknown;
  try {
    list = JSON.parse(answer.body);
  } catch {
    return { ok: false, status: 200, what: `${head} with a body that is not JSON (${answer.contentType || 'no content type'})` };
  }
  const data = typeof list === 'object' && list !== null ? (list as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) return { ok: false, status: 200, what: `${head} with no list in it` };
  return { ok: true, status: 200, what: `${head}, a list` };
}
