#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: install the `cuda` extra (with NVIDIA's toolkit wheels for the
# driver's CUDA version) in a fresh virtual environment, run the cuda tests and the whole tensor and
# autograd suites with cuda tensors on the device (not in the simulator), then the GPU rows of
# the benchmark, and print a summary.
#
#     scripts/check_gpu.sh            # from the project root; at most 8 minutes after the install
#     VENV=/tmp/gpu-venv scripts/check_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi >/dev/null 2>&1; then
    echo "check_gpu.sh: no NVIDIA GPU here (nvidia-smi fails); the simulator tests are:" >&2
    echo "  NUMBA_ENABLE_CUDASIM=1 python -m pytest tests/test_cuda_backend.py" >&2
    echo "  NUMBA_ENABLE_CUDASIM=1 MINITORCH_TEST_BACKENDS=cuda python -m pytest tests/test_tensor.py" >&2
    exit 2
fi
gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1)
cuda_major=$(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9]*\).*/\1/p' | head -1)
toolkit="cu${cuda_major:-12}"
[ "$toolkit" = cu12 ] || [ "$toolkit" = cu13 ] || toolkit=cu12

step "fresh virtual environment, cuda extra with numba-cuda[$toolkit]"
venv=${VENV:-.venv-gpu}
python3 -m venv "$venv"
# shellcheck disable=SC1091
source "$venv/bin/activate"
python -m pip install --quiet --upgrade pip
pip install --quiet -e '.[test,cuda,torch]' "numba-cuda[$toolkit]"

step "cuda tests on the GPU"
# Each step has a time limit, so that the whole check ends within 8 minutes (timeout exits
# 124). The pytest steps run in 8 processes (pytest-xdist): most of their time is Numba
# compiling kernels for the device, which is CPU work. Every tests/test_cuda*.py runs here but
# test_cuda_simulator.py, whose job is to run the suites in the simulator.
cuda_files=$(ls tests/test_cuda*.py | grep -v test_cuda_simulator.py)
# shellcheck disable=SC2086
NUMBA_ENABLE_CUDASIM=0 timeout 90 python -m pytest -q -p no:cacheprovider -n 8 $cuda_files
tests=$?

step "the tensor, autograd and nn suites on cuda (MINITORCH_TEST_BACKENDS=cuda; nn: tests/conftest.py CUDA_NN_FILES)"
nn_files=$(python -c 'import sys; sys.path.insert(0, "tests"); import conftest; print(" ".join(sorted("tests/" + f for f in conftest.CUDA_NN_FILES)))')
# shellcheck disable=SC2086
NUMBA_ENABLE_CUDASIM=0 MINITORCH_TEST_BACKENDS=cuda timeout 240 python -m pytest -q -p no:cacheprovider -n 8 \
    tests/test_tensor*.py tests/test_autograd*.py tests/test_train_tensor.py $nn_files
suites=$?

step "GPU benchmark rows"
NUMBA_ENABLE_CUDASIM=0 timeout 150 python scripts/bench.py --only gpu --rounds 3 \
    | tee /tmp/minitorch-gpu-bench.txt
bench=${PIPESTATUS[0]}

step "summary"
echo "GPU:        $gpu (driver's CUDA $cuda_major, numba-cuda[$toolkit])"
echo "cuda tests: $([ "$tests" -eq 0 ] && echo passed || echo "FAILED (pytest exit $tests)")"
echo "suites:     $([ "$suites" -eq 0 ] && echo passed || echo "FAILED (pytest exit $suites)")"
echo "benchmark:  $([ "$bench" -eq 0 ] && echo done || echo "FAILED (exit $bench)")"
grep -E "^  (matmul|add|sum|sort|scatter|64M|MLP|Adam|LeNet|GPT)" /tmp/minitorch-gpu-bench.txt || true
[ "$tests" -eq 0 ] && [ "$suites" -eq 0 ] && [ "$bench" -eq 0 ]
