# zarrhpc: `make demo` and `make test` do all the set-up on a fresh machine.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
# setuptools warns on every editable install that a folder named like the package could
# shadow it: that folder is the package itself here
PIP    := PYTHONWARNINGS="ignore:Editable installation" $(PY) -m pip
PYTEST_ARGS ?=
DEMO_DIR ?= demo_data
RANKS  ?= 1

.PHONY: all venv build build-test build-mpi demo demo-io lint test test-mpi-long bench clean reliability fuzz asan fuzz-asan differential stress

all: build

$(VENV)/.created:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q "setuptools>=77" wheel "Cython>=3.0" "numpy>=2.0" "blosc2>=3"
	touch $@

venv: $(VENV)/.created

# Editable install: the extensions are compiled in place, so tests and the demo
# import the same code that `pip install .` builds.
build: $(VENV)/.created
	$(PIP) install -q --no-build-isolation -e .

# the MPI tests run real ranks: mpi4py and the mpich wheel (mpiexec in $(VENV)/bin)
build-test: $(VENV)/.created
	$(PIP) install -q --no-build-isolation -e ".[test,mpi]"

build-mpi: build
	$(PIP) install -q --no-build-isolation -e ".[mpi]"

# checkpoint/restart demo; `make demo RANKS=4` runs it under mpiexec -n 4, the ranks as 2
# simulated nodes (ZARRHPC_RANKS_PER_NODE), asynchronous node-aggregated checkpoints, and
# restarts on RANKS-1 ranks
demo: $(if $(filter 1,$(RANKS)),build,build-mpi)
	$(PY) examples/checkpoint_demo.py --dir $(DEMO_DIR)/checkpoints --ranks $(RANKS)

# write/read throughput demo
demo-io: build
	$(PY) examples/demo.py --dir $(DEMO_DIR)

# ruff (the rule set in pyproject.toml) and import-linter (layers, no import cycles)
lint: build-test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports --no-cache

test: lint
	$(PY) -m pytest $(PYTEST_ARGS)

# the long randomised MPI run: node-aggregated shards on 2-6 ranks and 1-3 ranks per node,
# N-to-M restarts, repeated kills during asynchronous saves and drains, and kills during
# collective, node-aggregated and resize writes (tests/mpi/kill_mpi.py) (minutes)
MPI_CASES ?= 40
test-mpi-long: build-test
	$(PY) tests/mpi/long_run.py $(MPI_CASES)

# asv's temporary directories (setup_cache data) in memory when the machine allows
BENCH_TMP ?= $(shell [ -d /dev/shm ] && [ -w /dev/shm ] && echo /dev/shm || echo $${TMPDIR:-/tmp})
ASV_ARGS ?=

bench: build
	$(PIP) install -q -e ".[bench,test]" --no-build-isolation
	[ -f "$$HOME/.asv-machine.json" ] || $(VENV)/bin/asv machine --yes --config asv_bench/asv.conf.json
	cd asv_bench && TMPDIR=$(BENCH_TMP) ../$(VENV)/bin/asv run --quick --python=same --show-stderr $(ASV_ARGS)

# 200 random SIGKILLs per write kind (plain, partial, sharded whole/partial, v2, zip
# append, consolidate, resize, append, convert --in-place): stores checked, torn chunks,
# lost data, temporary files left and repaired (one line per kind as it ends); then the
# truncate-under-reader (SIGBUS) run. `make test` runs a few kills per kind.
KILLS ?= 200
reliability: build-test
	$(PY) tests/reliability/kill_writers.py --kills $(KILLS)
	$(PY) tests/reliability/truncate_reader.py --seconds 30

# the long differential run against zarr-python (random layouts and operation sequences)
# and the whole writer corpus (zarr-python, zarrs, tensorstore stores; read and write)
DIFF_EXAMPLES ?= 1000
differential: build-test
	ZARRHPC_DIFF_EXAMPLES=$(DIFF_EXAMPLES) ZARRHPC_CORPUS_FULL=1 $(PY) -m pytest -q \
	  -p no:cacheprovider tests/interop/test_differential_ops.py \
	  tests/conformance/test_corpus_writers.py tests/conformance/test_write_conformance_corpus.py

# the hypothesis fuzz tests of every store-bytes parser, with many more examples
FUZZ_EXAMPLES ?= 20000
# per-parser counts (inputs, zarrhpc errors, slowest read), one JSON line per run
FUZZ_STATS ?= /tmp/zarrhpc-fuzz-stats.jsonl
fuzz: build-test
	ZARRHPC_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) ZARRHPC_FUZZ_STATS=$(FUZZ_STATS) \
	  $(PY) -m pytest -q -p no:cacheprovider tests/reliability -k fuzz

# the hypothesis fuzzers, the hostile-metadata and codec tests on extensions built with
# AddressSanitizer + UBSan (the python process preloads the sanitizer runtimes), then the
# normal build again. For 10^5 inputs per parser use `make fuzz-asan` (below): the
# hypothesis engine costs ~5 ms an input, the fast driver ~0.5 ms.
ASAN_RT = $(shell gcc -print-file-name=libasan.so) $(shell gcc -print-file-name=libubsan.so)
ASAN_BUILD = rm -rf build zarrhpc/_kernels/*.so && ZARRHPC_ASAN=1 $(PIP) install -q \
	  --no-build-isolation -e .
# allocator_may_return_null: a huge chunk's malloc returns NULL (OutOfMemoryError) as
# without ASan, instead of aborting the run
ASAN_ENV = LD_PRELOAD="$(ASAN_RT)" \
	  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1 \
	  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
ASAN_UNDO = rm -rf build zarrhpc/_kernels/*.so; $(MAKE) build
asan: build-test
	$(ASAN_BUILD)
	$(ASAN_ENV) ZARRHPC_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) ZARRHPC_FUZZ_STATS=$(FUZZ_STATS) \
	  $(PY) -m pytest -q -p no:cacheprovider tests/reliability/test_fuzz_parsers.py \
	  tests/reliability/test_hostile_metadata.py tests/codecs; \
	  status=$$?; $(ASAN_UNDO); exit $$status

# the fast fuzz driver (tests/reliability/fuzz_fast.py: the same seeds, mutated in-process,
# ~0.5 ms an input) on the ASan + UBSan build: FUZZ_INPUTS inputs per parser, a table of
# crashes, sanitizer reports, hangs (> 5 s twice), foreign exceptions and wrong data; the
# inputs that failed saved in FUZZ_CORPUS with their replay command. `make test` runs a
# short run (tests/reliability/test_fuzz_fast.py).
FUZZ_INPUTS ?= 100000
FUZZ_CORPUS ?= /tmp/zarrhpc-fuzz-corpus
FUZZ_FAST_STATS ?= /tmp/zarrhpc-fuzz-fast.json
fuzz-asan: build-test
	$(ASAN_BUILD)
	$(ASAN_ENV) nice -n 10 $(PY) tests/reliability/fuzz_fast.py --inputs $(FUZZ_INPUTS) \
	  --corpus $(FUZZ_CORPUS) --stats $(FUZZ_FAST_STATS); status=$$?; $(ASAN_UNDO); exit $$status

# random multi-threaded reads of sharded blosc arrays rewritten in place between rounds
# (tests/_kernels/test_blosc_stress.py; `make test` runs a few rounds), for STRESS_SECONDS
STRESS_SECONDS ?= 600
stress: build-test
	ZARRHPC_STRESS_SECONDS=$(STRESS_SECONDS) nice -n 10 $(PY) -m pytest -q -p no:cacheprovider \
	  tests/_kernels/test_blosc_stress.py

clean:
	rm -rf build *.egg-info zarrhpc/_kernels/*.so zarrhpc/_kernels/*.c $(DEMO_DIR)
