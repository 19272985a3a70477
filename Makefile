# peto: `make run` to try it, `make test` to check it. Both install what is
# missing first (scripts/deps), so they are the whole set-up on Debian 12.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
CTEST_JOBS ?= 2

.PHONY: all deps build run test test-only asan bench format format-check clean

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

# The unit and store tests under AddressSanitizer and UndefinedBehaviorSanitizer.
asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DPETO_SANITIZE=ON -DPETO_BENCH=OFF
	cmake --build $(ASAN_BUILD) -j$(JOBS) --target test_unit test_store peto
	scripts/with-postgres ctest --test-dir $(ASAN_BUILD) --output-on-failure -j$(CTEST_JOBS) -L 'unit|store'

bench: build
	scripts/with-postgres bench/run

format:
	clang-format -i $$(git ls-files '*.cpp' '*.h')

format-check:
	clang-format --dry-run -Werror $$(git ls-files '*.cpp' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
