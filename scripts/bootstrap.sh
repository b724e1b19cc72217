#!/usr/bin/env bash
# Installs every Debian 12 (bookworm) package rxt needs, with apt-get and nothing else: no
# download from anywhere but the machine's apt sources, now or at build or run time.
#
# Idempotent: when every package is installed already it does nothing at all (no apt-get,
# not even `apt-get update`). Runs as root, or through sudo otherwise.
set -euo pipefail

packages=(
  # --- Building
  cmake                 # the build system (>= 3.25; bookworm has 3.25)
  ninja-build           # the build tool the scripts use
  g++                   # C++20 compiler (GCC 12) for everything
  gcc                   # C99 compiler: the C ABI tests are compiled as C
  binutils              # nm: the test that librxt.so exports only rxt_* symbols
  ccache                # faster rebuilds (used automatically when present)
  # --- Libraries of the core, the ABI and the CLI
  libboost-dev          # Boost.DLL (header-only with std::filesystem): the plugin host
  libdlpack-dev         # DLPack 0.6: tensors across the C ABI, zero-copy
  libcli11-dev          # CLI11: argument parsing of the rxt command
  nlohmann-json3-dev    # JSON (headers): metadata of saved executables and checkpoints
  libfmt-dev            # {fmt}: formatting in reports and benchmarks
  zlib1g-dev            # zlib: reading the gzip-compressed Fashion-MNIST files
  # --- Tests and benchmarks
  libgtest-dev          # GoogleTest headers and libraries
  googletest            # GoogleTest/GoogleMock sources and CMake package files
  libbenchmark-dev      # Google Benchmark: kernel and training-step benchmarks
  # --- Fuzzing (scripts/fuzz.sh: a separate clang build, docs/fuzzing.md)
  clang-14              # clang: libFuzzer needs it (GCC has no -fsanitize=fuzzer)
  libclang-rt-14-dev    # clang's runtimes: libFuzzer, AddressSanitizer, UndefinedBehaviorSanitizer
  llvm-14               # llvm-symbolizer-14: function names and lines in sanitizer reports
  # --- Coming issues (installed now so that the set-up commands stay the same)
  llvm-16-dev           # LLVM 16: the CPU backend's code generation
  libzstd-dev           # needed by LLVM 16's CMake package (it fails to load without it)
  libdnnl-dev           # oneDNN 2.6: GEMM and convolution kernels
  ocl-icd-opencl-dev    # needed by oneDNN's CMake package (DNNL::dnnl)
  dataset-fashion-mnist # the training data of the seed MLP
  python3-numpy         # reference results in tests, DLPack interop of the Python bindings
  python3-torch         # PyTorch autograd as the reference of docs/tutorial.md's test (run with /usr/bin/python3)
  # --- ONNX in and out (issue 14; importers/onnx is built only when these are there)
  libonnx-dev           # ONNX 1.12: protobuf parsing, checker, shape inference, version converter
  libprotobuf-dev       # protobuf 3.21: ONNX's messages
  protobuf-compiler     # protoc: ONNX's CMake package expects it
  libonnx-testdata      # ONNX's backend test cases: the conformance test (tests/importers/onnx)
  python3-onnx          # reading the test cases' tensors, exporting fixtures (/usr/bin/python3)
  python3-torchvision   # the torchvision models the ONNX fixtures are exported from
  # --- Python and PyTorch (issue 15)
  python3-pytest        # the Python package's tests (tests/abi/python)
  python3-matplotlib    # the seed tutorial's code plots a sample (tests/abi/python/seed_tutorial.py)
  libtorch-dev          # libtorch 1.13: the TorchScript importer (importers/torchscript reads .pt files with it)
  python3-pip           # `pip install --no-build-isolation abi/python` (offline; tested by abi.python.pip_install)
  python3-setuptools    # the package's build backend for that pip install
  # --- Go (issue 16)
  golang-go             # Go 1.19 with cgo: the Go binding abi/go and its tests (go test -race, tests/abi/go)
  # --- Rust (issue 16; the bindings build with std only, so no crate is downloaded)
  rustc                 # Rust 1.63: the oldest compiler abi/rust supports (a newer one on PATH is used first)
  cargo                 # builds and tests abi/rust offline (the rust_ tests of ctest)
  # --- Compile once, train on another architecture (issue 16: docs/deploy.md)
  g++-aarch64-linux-gnu # cross-builds librxt_runtime for 64-bit Arm and links kernel libraries for it (--target)
  qemu-user             # qemu-aarch64: runs the cross-built runtime here (abi.runtime.aarch64_training)
  # --- Distributed training (issue 17: docs/distributed.md)
  libopenmpi-dev        # OpenMPI 4.1: the collective plugin rxt_ccl_mpi (librxt never links MPI)
  openmpi-bin           # mpirun: the ccl_mpi tests run 2 ranks (--oversubscribe)
)

# shellcheck source=apt_install.sh
source "$(dirname "${BASH_SOURCE[0]}")/apt_install.sh"
apt_install bootstrap "${packages[@]}"
