# zarrhpc: `make demo` and `make test` do all the set-up on a fresh machine.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
PYTEST_ARGS ?=
DEMO_DIR ?= demo_data
RANKS  ?= 1

.PHONY: all venv build build-test build-mpi demo demo-io test bench clean

all: build

$(VENV)/.created:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q "setuptools>=69" wheel "Cython>=3.0" "numpy>=2.0"
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

# checkpoint/restart demo; `make demo RANKS=4` runs it under mpiexec -n 4
demo: $(if $(filter 1,$(RANKS)),build,build-mpi)
	$(PY) examples/checkpoint_demo.py --dir $(DEMO_DIR)/checkpoints --ranks $(RANKS)

# write/read throughput demo
demo-io: build
	$(PY) examples/demo.py --dir $(DEMO_DIR)

test: build-test
	$(PY) -m pytest $(PYTEST_ARGS)

bench: build
	$(PIP) install -q -e ".[bench,test]" --no-build-isolation
	cd asv_bench && ../$(VENV)/bin/asv run --quick --python=same --show-stderr

clean:
	rm -rf build *.egg-info zarrhpc/_kernels/*.so zarrhpc/_kernels/*.c $(DEMO_DIR)
