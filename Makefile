# Everything a fresh Debian machine needs is installed by `make deps`, which `run`, `test` and `bench` call.
SHELL := /bin/bash
NPM_STAMP := node_modules/.package-lock.stamp
DATA_DIR ?= ./data
ARGS ?=

.PHONY: deps run test build bench typecheck clean

deps: $(NPM_STAMP)
	@if ! command -v etcd >/dev/null 2>&1; then \
	  echo ">> etcd not found on PATH: installing Debian's etcd-server and etcd-client with apt-get"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq etcd-server etcd-client; \
	fi

$(NPM_STAMP): package.json package-lock.json
	@echo ">> installing Node dependencies (npm ci)"
	npm ci --no-audit --no-fund
	@touch $@

build: deps
	npx tsc -p tsconfig.build.json

typecheck: deps
	npx tsc --noEmit -p tsconfig.json

run: build
	node dist/apiserver/main.js --data-dir=$(DATA_DIR) $(ARGS)

test: deps typecheck
	npx jest $(JEST_ARGS)

# Benchmarks run from source through tsx: they use the test harness (a real etcd) and are not shipped.
bench: deps
	node --import tsx bench/run.ts $(BENCH_ARGS)

clean:
	rm -rf dist
