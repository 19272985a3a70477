# peto: `make run` to try it, `make test` to check it. Both install what is
# missing first (scripts/deps), so they are the whole set-up on Debian 12.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
CTEST_JOBS ?= 2

.PHONY: all deps build run test test-only asan bench format format-check tidy tidy-changed clean fuzz sim soak

all: build

deps:
	@scripts/deps

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD) -j$(JOBS)

# The embedded SQLite default in ./data, serving http://127.0.0.1:8080.
run: build
	$(BUILD)/peto up

# Every test, the PostgreSQL ones against a throwaway server started here.
test: build
	$(MAKE) --no-print-directory test-only

test-only:
	scripts/with-postgres ctest --test-dir $(BUILD) --output-on-failure -j$(CTEST_JOBS)

# The simulation of peto run wrong (tests/sim): schedulers and workers killed at
# random, PostgreSQL restarted, receivers failing. `make test` runs its short
# form; PETO_SIM_FULL=1 runs every scenario with the full numbers (about 20
# minutes) and writes bench/results/sim.json.
sim: build
	scripts/with-postgres $(BUILD)/tests/peto_sim $(if $(filter 1,$(PETO_SIM_FULL)),--json bench/results/sim.json)

# The load and soak tests (not part of `make test`): wrk on the web app and the
# API for SOAK_SECONDS per backend with the server's RSS and open fds sampled,
# then SOAK_PASSES scheduler passes per backend with RSS sampled.
SOAK_SECONDS ?= 600
SOAK_PASSES ?= 10000

soak: build
	SOAK_SECONDS=$(SOAK_SECONDS) SOAK_PASSES=$(SOAK_PASSES) BUILD=$(BUILD) scripts/with-postgres bench/soak/all

# The unit, store, engine, web and API tests under AddressSanitizer and
# UndefinedBehaviorSanitizer (the browser and the simulation run in `make test`).
# Each test is a process of its own, so ASan's start-up and its quarantine are
# paid a thousand times: a 32 MB quarantine (256 MB by default) still holds
# what a test freed recently, and stops every allocation from touching fresh
# pages; it made a one-test process a third faster.
ASAN_TEST_OPTIONS ?= quarantine_size_mb=32

# Line tables only (-g1): a report still names every frame's file and line,
# and the build takes a fifth less time than with full debug information.
# Precompiled headers (PETO_PCH): a tenth less time at -O0.
asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 \
	  -DPETO_SANITIZE=ON -DPETO_BENCH=OFF -DPETO_PCH=ON
	cmake --build $(ASAN_BUILD) -j$(JOBS) --target tests peto
	ASAN_OPTIONS=$(ASAN_TEST_OPTIONS) LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  scripts/with-postgres ctest --test-dir $(ASAN_BUILD) \
	  --output-on-failure -j$(CTEST_JOBS) -LE 'sim|browser'

bench: build
	scripts/with-postgres bench/run

format:
	clang-format -i $$(git ls-files '*.cpp' '*.h')

format-check:
	clang-format --dry-run -Werror $$(git ls-files '*.cpp' '*.h')

# clang-tidy over src/ with the checks of .clang-tidy (every warning an error),
# on the compile commands of $(TIDY_BUILD): configured here, without the
# precompiled header, so that a new file is in them and a missing include
# fails; nothing is compiled. clang-tidy 16: Debian 12's default clang-tidy 14
# cannot parse peto's C++20.
TIDY_BUILD ?= build-tidy
TIDY_JOBS ?= $(JOBS)

tidy: deps
	cmake -S . -B $(TIDY_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPETO_PCH=OFF -DPETO_BENCH=OFF >/dev/null
	run-clang-tidy-16 -clang-tidy-binary clang-tidy-16 -p $(TIDY_BUILD) -j$(TIDY_JOBS) -quiet '^$(CURDIR)/src/'

# The same over what changed since .ci/tidy-base, the last commit `make tidy`
# passed whole (scripts/tidy-changed); CI runs this one.
tidy-changed: deps
	cmake -S . -B $(TIDY_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPETO_PCH=OFF -DPETO_BENCH=OFF >/dev/null
	TIDY_JOBS=$(TIDY_JOBS) scripts/tidy-changed $(TIDY_BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TIDY_BUILD)

# Each libFuzzer target (tests/fuzz) for FUZZ_SECONDS over a copy of its seeds
# (tests/fuzz/corpus/<target>/ if it has one, and the saved pages of
# tests/fixtures/capture/ for the capture parsers), so that what it finds does
# not land in the source tree; a crash stops the run and is saved as
# $(FUZZ_BUILD)/crash-<sha1>. Needs clang 16 or later (Debian 12: clang-16):
# peto's C++20 captures structured bindings in lambdas, which clang 14 cannot.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_CXX ?= $(shell command -v clang++-16 || command -v clang++)
FUZZ_CC ?= $(shell command -v clang-16 || command -v clang)
FUZZ_SYMBOLIZER ?= $(shell command -v llvm-symbolizer-16 || command -v llvm-symbolizer)
FUZZ_TARGETS ?= capture_posting http_request request_framing form_body json_body multipart \
  import_zip cards dav_multistatus config placeholders

fuzz:
	@[ -n "$(FUZZ_CXX)" ] || { echo "make fuzz needs clang: apt-get install -y clang-16 libclang-rt-16-dev"; exit 2; }
	CC=$(FUZZ_CC) CXX=$(FUZZ_CXX) cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPETO_FUZZ=ON -DPETO_BENCH=OFF
	cmake --build $(FUZZ_BUILD) -j$(JOBS) $(foreach t,$(FUZZ_TARGETS),--target $(t)_fuzz)
	@for t in $(FUZZ_TARGETS); do \
	  rm -rf $(FUZZ_BUILD)/corpus/$$t && mkdir -p $(FUZZ_BUILD)/corpus/$$t && \
	  { cp tests/fuzz/corpus/$$t/* $(FUZZ_BUILD)/corpus/$$t/ 2>/dev/null || true; } && \
	  { [ "$$t" != capture_posting ] || cp tests/fixtures/capture/*.html $(FUZZ_BUILD)/corpus/$$t/; } && \
	  echo "== $$t ($(FUZZ_SECONDS) s)" && \
	  ASAN_SYMBOLIZER_PATH=$(FUZZ_SYMBOLIZER) $(FUZZ_BUILD)/tests/fuzz/$${t}_fuzz -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	    -max_len=65536 -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/ $(FUZZ_BUILD)/corpus/$$t || exit 1; \
	done
