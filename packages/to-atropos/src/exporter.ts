// What happens to each complete group: Atropos's pre-send checks (declared size, scores not all equal,
// length), then the chosen output. Every drop is counted under its reason; the counts are the report.
// The uniform-score rule is applied only where it means something: a group of one has nothing to
// compare, and SFT does not use advantages (dropUniform is off for sft and dpo unless asked).
import { createRng, type DataRecord, type JsonlWriter, type RunContext, type Trajectory } from '@hermes-datagen/core';
import type { AtroposMessage, DpoLine, ScoredDataGroup, SequenceProvenance, SftLine } from './atropos.js';
import type { AtroposSession } from './atroposSession.js';
import type { ChatTokenizer } from './chatTokenizer.js';
import type { Group, GroupSize, Member } from './groups.js';
import { toAtroposMessages, type MessagesMode } from './messages.js';
import { recordId } from './scoring.js';
import { selectDpo, selectSft, type SelectOptions } from './select.js';
import { trainerTokens, type MaskMode, type TrainerTokens } from './trainerTokens.js';

export type Emit = 'sft' | 'dpo' | 'scored';

export interface ExportOptions {
  readonly emit: Emit;
  readonly messages: MessagesMode;
  /** scored: which rendering of the turns the chat template tokenizes. */
  readonly render: MessagesMode;
  readonly groupSize: GroupSize;
  /** Drop groups of two or more whose scores are all equal (no advantage signal). */
  readonly dropUniform: boolean;
  readonly select: SelectOptions;
  readonly seed: number;
  readonly mask: MaskMode;
  /** A chat that cannot be masked exactly is an input error (--on-error) rather than left out. */
  readonly strictRender: boolean;
  /** Sequences with at least this many tokens drop their group (BaseEnv's rule, `>=`); under --post, from the session. */
  readonly maxTokenLen: number | undefined;
  readonly tokenizer: ChatTokenizer | undefined;
  /** --post: where the written groups are sent too. */
  readonly session: AtroposSession | undefined;
}

export class Exporter {
  private readonly rng;

  public constructor(
    private readonly ctx: RunContext,
    private readonly out: JsonlWriter,
    private readonly options: ExportOptions,
  ) {
    this.rng = createRng(options.seed);
    for (const name of ['groups_written', 'lines_written', 'groups_dropped']) ctx.stats.add(name, 0);
  }

  public async group(group: Group): Promise<void> {
    if (this.options.emit === 'scored') return this.scoredGroup(group.members);
    const { members } = group;
    const scores = members.map((member) => member.score);
    if (this.uniform(scores)) return;
    // Only the selected sequences are rendered, each once.
    const rendered = new Map<number, AtroposMessage[]>();
    const messagesAt = (i: number): AtroposMessage[] => {
      let messages = rendered.get(i);
      if (!messages) {
        messages = this.messagesOf(members[i] as Member);
        rendered.set(i, messages);
      }
      return messages;
    };
    if (this.options.emit === 'sft') {
      const selected = selectSft(scores, this.options.select);
      if (selected.length === 0) return this.drop('none_selected');
      for (const i of selected) await this.write({ messages: messagesAt(i), score: scores[i] } as SftLine);
    } else {
      const pairs = selectDpo(scores, this.options.select, this.rng);
      if (pairs.length === 0) return this.drop('no_pairs');
      for (const { pos, neg } of pairs) await this.write({ pos: messagesAt(pos), score: scores[pos], neg: messagesAt(neg) } as DpoLine);
    }
    this.ctx.stats.add('groups_written');
  }

  /** Atropos's pre-send checks in BaseEnv's order: size, equal scores, then length. */
  private async scoredGroup(group: readonly Member[]): Promise<void> {
    const { options } = this;
    const members: Member[] = [];
    const messages: AtroposMessage[][] = [];
    const tokens: TrainerTokens[] = [];
    for (const member of group) {
      const shown = this.messagesOf(member);
      const chat = options.render === options.messages ? shown : this.messagesOf(member, options.render);
      const result = trainerTokens(options.tokenizer as ChatTokenizer, chat, options.mask);
      if ('problem' in result) {
        await this.refuse(member, `cannot build tokens and masks: ${result.problem}`);
        continue;
      }
      members.push(member);
      messages.push(shown);
      tokens.push(result);
    }
    if (members.length === 0) return this.drop('no_sequences');
    if (members.length < group.length && options.groupSize !== 'auto') return this.drop('wrong_size');
    const scores = members.map((member) => member.score);
    if (this.uniform(scores)) return;
    if (options.select.minScore !== undefined && Math.max(...scores) < options.select.minScore) return this.drop('below_min_score');
    // The first group to get this far opens the connection: its max token length applies from here on.
    const maxTokenLen = options.session ? (await options.session.connection()).maxTokenLen : options.maxTokenLen;
    const long = maxTokenLen === undefined ? 0 : tokens.filter((t) => t.tokens.length >= maxTokenLen).length;
    if (long > 0) {
      this.ctx.stats.add('sequences_too_long', long);
      return this.drop('too_long');
    }
    const scored: ScoredDataGroup = {
      tokens: tokens.map((t) => t.tokens),
      masks: tokens.map((t) => t.masks),
      scores,
      advantages: null,
      ref_logprobs: null,
      messages,
      generation_params: null,
      group_overrides: {},
      overrides: members.map(provenance),
      images: null,
      distill_token_ids: null,
      distill_logprobs: null,
    };
    await this.write(scored);
    this.ctx.stats.add('groups_written');
    this.ctx.stats.add('sequences_written', members.length);
    await options.session?.send(scored);
  }

  /**
   * A chat the template cannot tokenize and mask exactly: under --strict-render a rejected record
   * (--on-error: a located error, or --rejects); by default left out of its group, counted and warned about.
   */
  private async refuse(member: Member, reason: string): Promise<void> {
    this.ctx.stats.add('sequences_untokenizable');
    if (this.options.strictRender) return this.ctx.rejectRecord(asInput(member), reason);
    this.ctx.log.warn(`left out of its group: ${reason}`, member.place, 'untokenizable');
  }

  /** A group of two or more whose scores are all equal carries no signal: dropped under dropUniform. */
  private uniform(scores: readonly number[]): boolean {
    if (!this.options.dropUniform || scores.length < 2 || !scores.every((score) => score === scores[0])) return false;
    this.drop('uniform_scores');
    return true;
  }

  /** The input has ended: what is still queued for the server is sent. */
  public async finish(): Promise<void> {
    await this.options.session?.finish();
  }

  private messagesOf(member: Member, mode = this.options.messages): AtroposMessage[] {
    const { messages, rawFallbacks } = toAtroposMessages(member.record.conversations, mode);
    if (rawFallbacks > 0) this.ctx.stats.add('turns_kept_raw', rawFallbacks);
    return messages;
  }

  private async write(line: SftLine | DpoLine | ScoredDataGroup): Promise<void> {
    await this.out.write(line);
    this.ctx.stats.add('lines_written');
  }

  private drop(reason: string): void {
    this.ctx.stats.add('groups_dropped');
    this.ctx.stats.add(`groups_dropped.${reason}`);
  }
}

function provenance(member: Member): SequenceProvenance {
  const { record } = member;
  return {
    hermes_id: recordId(record),
    hermes_prompt_index: record.prompt_index,
    hermes_completed: record.completed,
    hermes_partial: record.partial,
    hermes_model: record.metadata.model,
    ...(member.fired ? { hermes_reward_rules: [...member.fired] } : {}),
  };
}

/** The member as the reject policy sees a record: its place and its line (re-serialised). */
function asInput(member: Member): DataRecord<Trajectory> {
  const raw = JSON.stringify(member.record);
  return { value: member.record, raw, bytes: Buffer.from(raw), place: member.place, kind: 'record' };
}
