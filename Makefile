# memsched: build, test, and reproduce the papers' tables and figures.
#   make reproduce-quick   preview of every suite (at most 4 values per axis) in out/quick/
#   make reproduce         every suite: results/, paper/REPRODUCTION.md, paper/figures/; the sweeps
#                          resume, so on a fresh clone (every run in results/) it only rebuilds the report
#   make reproduce-fresh   the same, rerunning every run from scratch
#   make reproduce-slow    the suites too slow for the above (about 10 minutes on 2 cores), then the report
#   make reproduce-gpu     the suites on real GPUs (an NVIDIA GPU and CUDA needed), then the report
#   make reproduce-starpu  the suites with a peer file, on StarPU itself in SimGrid (a StarPU build
#                          named by MEMSCHED_STARPU and MEMSCHED_STARPU_PERFMODELS), then the report

GO      ?= go
BIN     := bin/memsched
# The commit (and -dirty) stamped into the binary, so records name their code
# also under -buildvcs=false; empty outside a git checkout (see internal/buildinfo).
COMMIT  := $(shell git describe --always --dirty --abbrev=40 --exclude='*' 2>/dev/null)
LDFLAGS := -X github.com/memsched/memsched/internal/buildinfo.stamp=$(COMMIT)
# Extra sweep flags, e.g. SWEEP="-j 8 --timeout 30m".
SWEEP   ?=
# Suites too slow for a 2-minute `make reproduce` (chapter 6 under the thesis'
# stated rules: replanning at every event, backfilling into any future window;
# about 20 minutes of CPU, its longest run 4 minutes): `make reproduce-slow`
# runs them, and every report includes their results in results/.
SLOW    := suites/thesis/ch6-weeks-thesis-rules.toml
# Suites on real GPUs (executor = "cuda"): they need an NVIDIA GPU and its
# CUDA libraries, so `make reproduce` keeps their checked-in results and
# reports them; `make reproduce-gpu` runs them.
GPU     := $(sort $(shell grep -l '^executor *= *"cuda"' suites/*.toml suites/*/*.toml))
SUITES  := $(sort $(filter-out suites/quick.toml $(SLOW) $(GPU),$(wildcard suites/*.toml suites/*/*.toml)))
RESULTS := $(patsubst suites/%.toml,results/%.jsonl,$(SUITES))
SLOWRES := $(patsubst suites/%.toml,results/%.jsonl,$(SLOW))
GPURES  := $(patsubst suites/%.toml,results/%.jsonl,$(GPU))
QUICK   := out/quick
# Suites compared with StarPU itself ([report] peer = "results/<suite>.starpu.jsonl"): `make
# reproduce` simulates them like any suite and compares with their checked-in peer files;
# `make reproduce-starpu` remakes the peer files on a StarPU build (harness/starpuexec).
PEER    := $(sort $(shell grep -l '^peer *=' suites/*.toml suites/*/*.toml))

FIT     := paper/fit/v100-gemini.toml

.PHONY: reproduce-slow reproduce-gpu reproduce-starpu build test bench fit reproduce reproduce-fresh reproduce-quick

# -trimpath: the binary does not embed the checkout's path, so every clone of
# a commit builds the same binary, and a second clone reuses the build cache
# (a fresh clone's build: 9.3 s without, 3.0 s with, on 2 cores).
build:
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/memsched

test:
	$(GO) test ./...

# Benchmarks in the Go benchmark format, which benchstat compares:
#   make bench > old.txt; (change the code); make bench > new.txt
#   benchstat old.txt new.txt     (go install golang.org/x/perf/cmd/benchstat@latest)
# BENCH selects benchmarks, PKGS packages, COUNT repetitions (6 by default:
# benchstat needs 6 for a 95% confidence interval; all of them take ~6 min).
# Every registered scheduler at 10k, 360k and 1M tasks (issue 17's goals):
#   go test ./harness/run -run '^$' -bench EveryScheduler -every -count 3
BENCH ?= .
PKGS  ?= ./...
COUNT ?= 6
bench:
	@$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -count $(COUNT) $(PKGS)

# Refit the preset's uncertain parameters on the declared training series (issue 11):
# writes hardware/presets/fitted/v100-gemini.toml and results/fit/v100-gemini.json (training
# and test errors, the search, each rule's sensitivity). Then `make reproduce` reruns what the
# new values change. About 20 minutes on two cores.
fit: build
	$(BIN) fit $(FIT)

# A sweep resumes where it stopped, so rerunning after an interruption (or
# after adding a scheduler block) only runs what is missing, and after a
# scheduler or model version bump only that code's runs.
# sweep-each sweeps the suites $(1), each into its results file.
define sweep-each
	@set -e; for s in $(1); do \
	  r=results/$${s#suites/}; \
	  $(BIN) sweep $$s $(SWEEP) -o $${r%.toml}.jsonl; \
	done
endef

reproduce: build
	$(call sweep-each,$(SUITES))
	$(BIN) report --reproduction paper/REPRODUCTION.md --claims paper --suites suites \
	  --figures paper/figures --figure-formats png,svg --headline README.md --fit $(FIT) $(RESULTS) $(wildcard $(SLOWRES) $(GPURES))

# Every run again, from empty results files.
reproduce-fresh:
	$(MAKE) reproduce SWEEP="--fresh $(SWEEP)"

reproduce-slow: build
	$(call sweep-each,$(SLOW))
	$(MAKE) reproduce

reproduce-gpu: build
	$(call sweep-each,$(GPU))
	$(MAKE) reproduce

reproduce-starpu: build
	@set -e; for s in $(PEER); do \
	  r=results/$${s#suites/}; \
	  $(BIN) sweep $$s --executor starpu $(SWEEP) -o $${r%.toml}.starpu.jsonl; \
	done
	$(MAKE) reproduce

# The preview limits each run to 20 s: a point that takes longer shows as a
# timeout row in the preview; make reproduce runs it in full.
# The runs of the preview are runs of the full suites (same keys), so
# `make reproduce` could reuse them; they are kept apart in out/quick/.
reproduce-quick: build
	@set -e; for s in suites/quick.toml $(SUITES); do \
	  r=$(QUICK)/results/$${s#suites/}; \
	  $(BIN) sweep $$s --quick 4 --timeout 20s $(SWEEP) -o $${r%.toml}.jsonl; \
	done
	$(BIN) report --preview --reproduction $(QUICK)/REPRODUCTION.md --claims paper --suites suites \
	  --figures $(QUICK)/figures --fit $(FIT) $(patsubst suites/%.toml,$(QUICK)/results/%.jsonl,suites/quick.toml $(SUITES))
	@echo "preview: $(QUICK)/REPRODUCTION.md (figures in $(QUICK)/figures/)"
