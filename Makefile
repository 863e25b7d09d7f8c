# fleetd — the two commands: `make run` and `make test`. Both set up first:
# `make run` only what building and running need, `make test` also what the
# tests use (scripts/setup.sh run|test).
SHELL := /bin/bash
# The Swift toolchain, when it is installed under /opt/swift and not on PATH.
export PATH := $(PATH):/opt/swift/usr/bin

.PHONY: setup setup-test build release run check test bench format clean install deb package-test

# Where `make install` puts things (DESTDIR: a staging root).
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
DESTDIR ?=
UNITDIR ?= $(PREFIX)/lib/systemd/system

## setup: install what building and running need, when missing (apt-get; sudo when not root)
setup:
	@scripts/setup.sh run

## setup-test: install what the tests and benchmarks need too (apt-get, and PyPI into .build/pytools)
setup-test:
	@scripts/setup.sh test

## build: debug build of everything
build: setup
	swift build

## release: optimised build of fleetd, fleetctl and fleetsim (the Swift
## runtime linked in statically, so the programs run without the toolchain)
release: setup
	swift build -c release --static-swift-stdlib

## run: build, start fleetd on its defaults, replay the bundled routes, show alerts live, stop
run: release
	@scripts/demo.sh "$$(swift build -c release --static-swift-stdlib --show-bin-path)"

## check: the edit-test loop: build, then the in-process tests (every suite
## but the end-to-end ones, which start the real programs)
check: setup-test
	swift build --build-tests
	swift test --skip-build --skip EndToEndTests

## test: build and run every test (unit, property, golden, end-to-end), then
## build the Debian package and install, use and purge it on this machine
test: setup-test
	swift build --build-tests
	swift test --skip-build
	$(MAKE) package-test

## install: the programs, units, config (never overwriting an edited one) and man pages
install: release
	DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" SYSCONFDIR="$(SYSCONFDIR)" UNITDIR="$(UNITDIR)" \
	  scripts/install.sh "$$(swift build -c release --static-swift-stdlib --show-bin-path)"

## deb: the Debian package (.build/deb/), checked by lintian
deb: setup-test release
	@scripts/deb.sh "$$(swift build -c release --static-swift-stdlib --show-bin-path)"

## package-test: builds the package, installs it with dpkg, runs it, purges it
package-test: deb
	@scripts/package-test.sh

## bench: the benchmarks (release build), printing figures
bench: setup-test release
	@scripts/bench.sh "$$(swift build -c release --static-swift-stdlib --show-bin-path)"

## format: format the sources with the toolchain's swift-format
format:
	swift format --in-place --recursive --configuration .swift-format Package.swift Sources Tests Simulator

clean:
	rm -rf .build
