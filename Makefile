# memsched: build, test, and reproduce the papers' tables and figures.
#   make reproduce-quick   preview of every suite (at most 4 values per axis) in out/quick/
#   make reproduce         every suite in full: results/, paper/REPRODUCTION.md, paper/figures/

GO      ?= go
BIN     := bin/memsched
# Extra sweep flags, e.g. SWEEP="-j 8 --timeout 30m".
SWEEP   ?=
SUITES  := $(sort $(filter-out suites/quick.toml,$(wildcard suites/*.toml suites/*/*.toml)))
RESULTS := $(patsubst suites/%.toml,results/%.jsonl,$(SUITES))
QUICK   := out/quick

.PHONY: build test bench reproduce reproduce-quick

build:
	$(GO) build -o $(BIN) ./cmd/memsched

test:
	$(GO) test ./...

bench:
	$(GO) test -run xxx -bench . ./...

# A sweep resumes where it stopped, so rerunning after an interruption (or
# after adding a scheduler block) only runs what is missing.
reproduce: build
	@set -e; for s in $(SUITES); do \
	  r=results/$${s#suites/}; \
	  $(BIN) sweep $$s $(SWEEP) -o $${r%.toml}.jsonl; \
	done
	$(BIN) report --reproduction paper/REPRODUCTION.md --claims paper --suites suites \
	  --figures paper/figures $(RESULTS)

# The preview limits each run to 20 s: a point that takes longer shows as a
# timeout row in the preview; make reproduce runs it in full.
# The runs of the preview are runs of the full suites (same keys), so
# `make reproduce` could reuse them; they are kept apart in out/quick/.
reproduce-quick: build
	@set -e; for s in suites/quick.toml $(SUITES); do \
	  r=$(QUICK)/results/$${s#suites/}; \
	  $(BIN) sweep $$s --quick 4 --timeout 20s $(SWEEP) -o $${r%.toml}.jsonl; \
	done
	$(BIN) report --reproduction $(QUICK)/REPRODUCTION.md --claims paper --suites suites \
	  --figures $(QUICK)/figures $(patsubst suites/%.toml,$(QUICK)/results/%.jsonl,suites/quick.toml $(SUITES))
	@echo "preview: $(QUICK)/REPRODUCTION.md (figures in $(QUICK)/figures/)"
