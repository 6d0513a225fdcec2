// Which reply a request gets: the matching script sequence's reply for its step, or the policy's.
import { policyReply } from './policy.js';
import { firstUserText, stepOf, type ChatRequest } from './request.js';
import { promptMatches, type Script, type ScriptedReply } from './script.js';

const FALLBACK_FINAL_ANSWER = 'Done.';

/** Past the end of a sequence the conversation must be able to finish, so a text-only answer repeats. */
function finalTextAnswer(last: ScriptedReply): ScriptedReply {
  if (last.tool_calls === undefined || last.tool_calls.length === 0) return last;
  const answer: ScriptedReply = { content: last.content || FALLBACK_FINAL_ANSWER, finish_reason: 'stop' };
  if (last.reasoning !== undefined) answer.reasoning = last.reasoning;
  if (last.reasoning_field !== undefined) answer.reasoning_field = last.reasoning_field;
  return answer;
}

export function chooseReply(script: Script, request: ChatRequest): ScriptedReply {
  const prompt = firstUserText(request);
  const sequence = script.sequences?.find((candidate) => promptMatches(candidate.match, prompt));
  if (sequence === undefined) return policyReply(request);
  return sequence.replies[stepOf(request)] ?? finalTextAnswer(sequence.replies[sequence.replies.length - 1]);
}
