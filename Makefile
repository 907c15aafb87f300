# The two commands of the README. Each installs the Debian packages it needs (as root), then
# configures, builds and runs; the first run takes longer.
#   make demo   the examples, with their output
#   make test   the whole suite (g++, Release, warnings as errors): unit, einops parity, PyTorch fixtures,
#               compile-fail (g++ and clang), concurrency, package, the bench's goals table
#               (where python3 is found); then the unit, fixture,
#               concurrency and example tests again, built by clang++ under address+UB
#               sanitizers, with the fuzz targets' bounded runs; then the concurrency tests
#               under ThreadSanitizer
#   make bench  the benchmarks (Release, in build-bench), ONNX Runtime and OpenVINO beside the
#               attention rows (tools/engine-python), the goals judged from that run, and the
#               compile-time benchmark
#   make bench-report  the benchmarks as JSON, then the plots and tables of docs/benchmarks.md
JOBS ?= 2
BUILD ?= build
SANITIZE_BUILD ?= build-sanitize
THREADS_BUILD ?= build-threads
BENCH_BUILD ?= build-bench

DEMO_PACKAGES := g++ cmake make xtensor-dev libxsimd-dev libboost-dev nlohmann-json3-dev
TEST_PACKAGES := $(DEMO_PACKAGES) catch2 clang-14 libclang-rt-14-dev
BENCH_PACKAGES := $(DEMO_PACKAGES) libbenchmark-dev libopenblas-dev python3 python3-venv python3-torch

.PHONY: demo test test-sanitize test-threads bench bench-report clean

# The benchmarks' build, configured after the engines' Python is found or made (tools/engine-python):
# its PyTorch 2.x is the attention rows' peer, linked into ctein_bench_attention.
CONFIGURE_BENCH = python=$$(tools/engine-python $(BENCH_BUILD)) || python=; \
	cmake -S . -B $(BENCH_BUILD) -DCMAKE_BUILD_TYPE=Release -DCTEIN_BUILD_BENCHMARKS=ON $${python:+-DCTEIN_TORCH_PYTHON=$$python}

SEED_EXAMPLES := seed000_mha seed004_cross seed001_fused_qkv gpt2_block seed003_gqa seed002_rope_generation
DEMO_EXAMPLES := ctein_demo ctein_example_xtensor ctein_example_attention ctein_example_expressions \
                 ctein_example_attention_blocks $(addprefix ctein_example_,$(SEED_EXAMPLES)) ctein_example_blocks_table \
                 ctein_example_readme

demo:
	tools/install-packages $(DEMO_PACKAGES)
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCTEIN_BUILD_EXAMPLES=ON
	cmake --build $(BUILD) -j$(JOBS) --target ctein_examples
	@for example in $(DEMO_EXAMPLES); do echo "== $$example"; $(BUILD)/examples/$$example || exit 1; done

test:
	tools/install-packages $(TEST_PACKAGES)
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCTEIN_BUILD_TESTS=ON -DCTEIN_BUILD_EXAMPLES=ON \
	      -DCTEIN_WARNINGS_AS_ERRORS=ON
	cmake --build $(BUILD) -j$(JOBS)
	ctest --test-dir $(BUILD) -j$(JOBS) --output-on-failure
	$(MAKE) test-sanitize
	$(MAKE) test-threads

# Sanitizers at -O0 (three times faster to compile than -O1, and they check the same things),
# built by clang++: this build is also the proof that clang compiles and runs ctein (the g++
# build above is the Release one), and clang compiles the tests faster under sanitizers. The
# parity shards are left out to keep make test under 20 minutes: they only instantiate for more
# patterns the copy and reduce kernels whose unit tests run here.
test-sanitize:
	tools/install-packages $(TEST_PACKAGES)
	cmake -S . -B $(SANITIZE_BUILD) -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE= "-DCMAKE_CXX_FLAGS=-O0 -g1" \
	      -DCTEIN_SANITIZE=ON -DCTEIN_BUILD_TESTS=ON -DCTEIN_BUILD_EXAMPLES=ON -DCTEIN_TEST_CLANG=OFF \
	      -DCTEIN_BUILD_FUZZERS=ON -DCTEIN_WARNINGS_AS_ERRORS=ON
	cmake --build $(SANITIZE_BUILD) -j$(JOBS) --target ctein_sanitized_programs
	ctest --test-dir $(SANITIZE_BUILD) -j$(JOBS) -L "unit|fixtures|threads|example|fuzz" --output-on-failure

# ThreadSanitizer, at -O0: the concurrent callers and the pool's tests (3 s to run; at -O1 they
# ran in 0.4 s, but the kernel took 24 s to compile instead of 8).
test-threads:
	tools/install-packages $(TEST_PACKAGES)
	cmake -S . -B $(THREADS_BUILD) -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE= "-DCMAKE_CXX_FLAGS=-O0 -g1" \
	      -DCTEIN_SANITIZE_THREADS=ON -DCTEIN_BUILD_TESTS=ON -DCTEIN_BUILD_EXAMPLES=OFF -DCTEIN_TEST_CLANG=OFF
	cmake --build $(THREADS_BUILD) -j$(JOBS) --target ctein_concurrency_programs
	ctest --test-dir $(THREADS_BUILD) -j$(JOBS) -L threads --output-on-failure

bench:
	tools/install-packages $(BENCH_PACKAGES)
	$(CONFIGURE_BENCH)
	cmake --build $(BENCH_BUILD) -j$(JOBS) --target ctein_bench_rearrange ctein_bench_reduce ctein_bench_gemm ctein_bench_attention ctein_bench_elementwise ctein_bench_blocks
	rm -rf $(BENCH_BUILD)/results && mkdir -p $(BENCH_BUILD)/results
	$(BENCH_BUILD)/benchmarks/ctein_bench_rearrange --benchmark_out=$(BENCH_BUILD)/results/rearrange.json
	$(BENCH_BUILD)/benchmarks/ctein_bench_reduce
	$(BENCH_BUILD)/benchmarks/ctein_bench_elementwise
	$(BENCH_BUILD)/benchmarks/ctein_bench_blocks
	$(BENCH_BUILD)/benchmarks/ctein_bench_gemm
	if python=$$(tools/engine-python $(BENCH_BUILD)); then \
	    export CTEIN_ENGINE_PEERS="$$python benchmarks/engine_peers.py --serve"; \
	else echo "engine peers (ONNX Runtime, OpenVINO) skipped"; fi; \
	$(BENCH_BUILD)/benchmarks/ctein_bench_attention --benchmark_out=$(BENCH_BUILD)/results/attention.json
	for peer in $(BENCH_BUILD)/benchmarks/ctein_bench_attention_torch*; do if [ -x "$$peer" ]; then \
	    "$$peer" --benchmark_out=$(BENCH_BUILD)/results/$$(basename $$peer).json || exit 1; fi; done
	python3 benchmarks/attention_table.py $(BENCH_BUILD)/results/*.json
	benchmarks/compile_time/run.sh $(BENCH_BUILD)

# The benchmark report: the attention and rearrange benchmarks as JSON (their rows print as they
# finish: several minutes), compile times, then docs/benchmarks/*.png and the tables for
# docs/benchmarks.md (build-bench/results/report.md). Run nothing else meanwhile.
bench-report:
	tools/install-packages $(BENCH_PACKAGES) python3-matplotlib
	$(CONFIGURE_BENCH)
	cmake --build $(BENCH_BUILD) -j$(JOBS) --target ctein_bench_rearrange ctein_bench_attention
	python3 benchmarks/report.py $(BENCH_BUILD)

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD) $(THREADS_BUILD) $(BENCH_BUILD)
