# Everything a fresh Debian machine needs is installed by `make deps`, which `run`, `test` and `bench` call.
SHELL := /bin/bash
NPM_STAMP := node_modules/.package-lock.stamp
DATA_DIR ?= ./data
ARGS ?=
# Debian's python (apt packages install for it), not whatever python3 comes first on PATH (pyenv, venvs).
DEBIAN_PYTHON3 ?= /usr/bin/python3

.PHONY: deps run test build bench profile typecheck clean cluster cluster-down

deps: $(NPM_STAMP)
	@if ! command -v etcd >/dev/null 2>&1; then \
	  echo ">> etcd not found on PATH: installing Debian's etcd-server and etcd-client with apt-get"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq etcd-server etcd-client; \
	fi
	@if ! command -v prometheus >/dev/null 2>&1 || ! command -v promtool >/dev/null 2>&1; then \
	  echo ">> prometheus or promtool not found on PATH (test/e2e/prometheus scrapes the server with it): installing Debian's prometheus with apt-get"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends prometheus; \
	fi
	@if [ ! -x /usr/sbin/haproxy ] && ! command -v haproxy >/dev/null 2>&1; then \
	  echo ">> haproxy not found (make cluster and test/e2e/cluster put it in front of the replicas): installing Debian's haproxy with apt-get"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends haproxy; \
	fi
	@if ! $(DEBIAN_PYTHON3) -c 'import kubernetes' >/dev/null 2>&1; then \
	  echo ">> python3 module 'kubernetes' not found (test/clients runs a python watch client): installing Debian's python3-kubernetes with apt-get"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq python3-kubernetes; \
	fi
	@if ! command -v go >/dev/null 2>&1 || [ ! -d /usr/share/gocode/src/github.com/Masterminds/sprig ] || [ ! -d /usr/share/gocode/src/gopkg.in/yaml.v3 ]; then \
	  echo ">> Go, Sprig or yaml.v3 sources not found (test/helm/render renders the Helm chart with them): installing Debian's golang-go, golang-github-masterminds-sprig-dev and golang-gopkg-yaml.v3-dev with apt-get"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends golang-go golang-github-masterminds-sprig-dev golang-gopkg-yaml.v3-dev; \
	fi

$(NPM_STAMP): package.json package-lock.json
	@echo ">> installing Node dependencies (npm ci)"
	npm ci --no-audit --no-fund
	@touch $@

# From scratch: tsc never deletes the output of a file it no longer compiles (a test helper excluded later).
build: deps
	rm -rf dist
	npx tsc -p tsconfig.build.json

typecheck: deps
	npx tsc --noEmit -p tsconfig.json

# One local replica, no load balancer to drain from: Ctrl-C stops at once (ARGS may set another delay).
run: build
	node --max-semi-space-size=32 dist/apiserver/main.js --data-dir=$(DATA_DIR) --shutdown-delay-duration=0s $(ARGS)

test: deps typecheck
	npx jest $(JEST_ARGS)

# Benchmarks run from source through tsx: they use the test harness (a real etcd) and are not shipped.
bench: deps
	node --import tsx bench/run.ts $(BENCH_ARGS)

# CPU profiles of the server under load, flame graphs and stage tables (docs/perf/README.md).
profile: deps
	node --import tsx bench/perf/profile.ts $(PROFILE_ARGS)

# The local HA cluster (deploy/README.md): 3 etcd members, 3 replicas of dist/ and haproxy, all under
# CLUSTER_DIR; `make cluster` again resumes it, `make cluster-down` stops it (the directory stays).
# DATA_DIR given on the command line (make cluster DATA_DIR=...) is honoured too.
CLUSTER_DIR ?= $(if $(filter command line,$(origin DATA_DIR)),$(DATA_DIR),./cluster-data)
# dist/ is rebuilt only when a source is newer than it (a full build takes 10-20 s of the start-up).
cluster: deps
	@if [ ! -f dist/apiserver/main.js ] || [ -n "$$(find apiserver storage tsconfig.json tsconfig.build.json -newer dist/apiserver/main.js -print -quit)" ]; then \
	  $(MAKE) --no-print-directory build; \
	fi
	@DATA_DIR=$(CLUSTER_DIR) node --import tsx deploy/cluster.ts up

cluster-down:
	@DATA_DIR=$(CLUSTER_DIR) node --import tsx deploy/cluster.ts down

clean:
	rm -rf dist
