# hermes-datagen: `make test` works on a fresh clone (it installs and builds first).
.PHONY: setup system-packages build test lint bench demo fresh-check clean

NODE_MODULES_STAMP := node_modules/.package-lock.json

setup: $(NODE_MODULES_STAMP) build system-packages

# Debian packages the suite needs, as PROGRAM:PACKAGE; installed when missing (as root), else named.
# bubblewrap: the tool sandbox hermes-generate prefers (its tests run it).
# chromium: hermes-stats report --html is checked by rendering it (test/stats/html.test.ts; laid out and
# measured through playwright-core, which drives this browser and downloads none: test/e2e/reportHtmlLayout.test.ts).
# parallel: GNU parallel runs hermes-generate's shards in the README recipe and its test (test/e2e/generateShards.test.ts).
system-packages:
	@bash scripts/ensure-debian-packages.sh bwrap:bubblewrap /usr/bin/chromium:chromium parallel:parallel

$(NODE_MODULES_STAMP): package.json package-lock.json packages/*/package.json
	npm ci --no-audit --no-fund
	@touch $@

build: $(NODE_MODULES_STAMP)
	npx tsc -b

test: setup
	npx tsc -p test/tsconfig.json
	node test/run.mjs

# Format and lint check of the tree (Biome: biome.json, plugin .biome/noDoubleCast.grit); .ci/run runs it
# before the tests. `npm run format` rewrites what the formatter would change.
lint: $(NODE_MODULES_STAMP)
	npx biome check .

# Every benchmark script runs; the target fails when any reports a missed target. bench/RESULTS.md
# is written last, so that it holds the generate figures of this same run.
bench: setup
	node bench/run.mjs; stream=$$?; node bench/to-atropos.mjs; atropos=$$?; node bench/generate.mjs; generate=$$?; node bench/generate-tools.mjs; tools=$$?; node bench/generate-run.mjs; run=$$?; node bench/generate-quota.mjs; quota=$$?; node bench/generate-batch.mjs; batch=$$?; node bench/results-md.mjs >/dev/null; exit $$((stream || atropos || generate || tools || run || quota || batch))

demo: setup
	bash fixtures/demo/run-demo.sh

# make dataset RUN=name PROMPTS=file [MODEL=id] [SHARDS=N]: the pipeline as resumable make targets.
include scripts/dataset.mk

# A fresh clone with an empty npm cache needs nothing installed by hand: test/e2e/freshClone.test.ts alone
# (part of make test; it clones the committed tree); FULL=1: .ci/run itself on such a clone.
fresh-check: setup
	bash scripts/fresh-check.sh

clean:
	npx tsc -b --clean 2>/dev/null || true
	rm -rf packages/*/dist packages/*/tsconfig.tsbuildinfo .vitest.json bench/data bench/results demo-output
