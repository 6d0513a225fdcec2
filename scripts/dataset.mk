# make dataset RUN=name PROMPTS=file [MODEL=id] [CONFIG=hermes.yaml] [SHARDS=N] [DATA=data]
# The pipeline as make targets, one file per stage under $(DATA)/$(RUN)/, each made from the one before:
#   runs/ (hermes-generate run directories) -> generated.jsonl -> filtered.jsonl -> compressed.jsonl
#   -> stats.jsonl (+ statistics.json) -> verified.jsonl (+ verify.json) -> sft.jsonl
# A stage's file appears only when the stage succeeded: each writes $@.tmp and renames it to $@ only when
# it exited 0 (a failed check, exit 1, leaves no file either), -o itself never creates a file on a signal,
# and .DELETE_ON_ERROR removes a target whose recipe failed. So an interrupted or failed build resumes
# where it stopped, running the stage that did not finish again: generation with --resume (finished
# prompts never run again), and the stages whose file is newer than their input are not redone. SHARDS=N runs N shards of the
# generation at once with GNU parallel (the same shard command a Slurm array or Kubernetes Indexed Job
# runs: see the README), then merges them. The endpoint comes from the environment (HERMES_BASE_URL or
# OPENAI_BASE_URL, and the key in HERMES_API_KEY or OPENAI_API_KEY) or CONFIG.
# Extra flags per stage: GENERATE_FLAGS, FILTER_FLAGS, COMPRESS_FLAGS, VERIFY_FLAGS, ATROPOS_FLAGS.
.PHONY: dataset
.DELETE_ON_ERROR:

DATA ?= data
SHARDS ?= 1
ATROPOS_FLAGS ?= --reward-rules default --keep-uniform
hermes = node packages/$(1)/bin/hermes-$(1).js
# A stage's command with -o $@.tmp, renamed to $@ only when it exited 0; otherwise the temp file goes
# and the command's exit code is make's.
stage = $(1) -o $@.tmp && mv -f $@.tmp $@ || { status=$$?; rm -f $@.tmp; exit $$status; }

D := $(DATA)/$(RUN)
GENERATE_ARGS := $(PROMPTS) --output-root $(D)/runs --resume $(if $(MODEL),--model $(MODEL)) $(if $(CONFIG),--config $(CONFIG)) $(GENERATE_FLAGS)
# The run directories this shard count makes (a build with another SHARDS value keeps its own).
RUN_DIRS := $(if $(filter 1,$(SHARDS)),$(D)/runs/$(RUN),$(D)/runs/$(RUN)-*-of-$(SHARDS))

dataset: $(D)/sft.jsonl
	@echo "make dataset: $(D)/ holds generated.jsonl ($$(wc -l < $(D)/generated.jsonl) records), filtered.jsonl, compressed.jsonl, stats.jsonl + statistics.json, verified.jsonl + verify.json, sft.jsonl ($$(wc -l < $<) examples)"
	@echo "  report: npx hermes-stats report $(D)/stats.jsonl    query: npx hermes-stats sql \"SELECT ...\" $(D)/stats.jsonl"

# The merged run directories are checked against the dataset (every prompt once, across the shards): a lost
# or repeated prompt stops the build here.
$(D)/generated.jsonl: $(PROMPTS) | build
	@[ -n "$(RUN)" ] && [ -n "$(PROMPTS)" ] || { echo "make dataset: give RUN=name and PROMPTS=file.jsonl" >&2; exit 2; }
	@[ -n "$$HERMES_BASE_URL$$OPENAI_BASE_URL$(CONFIG)" ] || { echo "make dataset: no endpoint configured. Set HERMES_BASE_URL (or OPENAI_BASE_URL) and the key in HERMES_API_KEY (or OPENAI_API_KEY), or give CONFIG=hermes.yaml; then check it with: npx hermes-generate doctor $(if $(MODEL),--model $(MODEL),--model MODEL)" >&2; exit 2; }
	@mkdir -p $(D)/runs
ifeq ($(SHARDS),1)
	$(call hermes,generate) $(GENERATE_ARGS) --run-name $(RUN) > /dev/null
else
	seq 0 $$(( $(SHARDS) - 1 )) | parallel --will-cite --halt never -j $(SHARDS) \
	  $(call hermes,generate) $(GENERATE_ARGS) --run-name $(RUN)-{}-of-$(SHARDS) --shard {}/$(SHARDS) '>' /dev/null
endif
	cat $(addsuffix /trajectories.jsonl,$(RUN_DIRS)) > $@.tmp
	$(call hermes,verify) -q --dataset $(PROMPTS) --json $(D)/generated.verify.json $@.tmp || { status=$$?; rm -f $@.tmp; exit $$status; }
	mv -f $@.tmp $@

$(D)/filtered.jsonl: $(D)/generated.jsonl
	$(call stage,$(call hermes,filter) --rejects $(D)/rejected.jsonl --stats-out $(D)/filter.json $(FILTER_FLAGS) $<)

$(D)/compressed.jsonl: $(D)/filtered.jsonl
	$(call stage,$(call hermes,compress) --metrics-file $(D)/compression.json $(COMPRESS_FLAGS) $<)

$(D)/stats.jsonl: $(D)/compressed.jsonl
	$(call stage,$(call hermes,stats) --summary $(D)/statistics.json $<)

# The records left after filtering are checked against the dataset too: the filter's drops (its --rejects
# file) are accounted for by reason, so only a prompt lost on the way fails.
$(D)/verified.jsonl: $(D)/stats.jsonl
	$(call stage,$(call hermes,verify) --dataset $(PROMPTS) --dropped $(D)/rejected.jsonl --json $(D)/verify.json $(VERIFY_FLAGS) $<)

$(D)/sft.jsonl: $(D)/verified.jsonl
	$(call stage,$(call hermes,to-atropos) --emit sft $(ATROPOS_FLAGS) $<)
