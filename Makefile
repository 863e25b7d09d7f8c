# fleetd — the two commands: `make run` and `make test`. Both set up first.
SHELL := /bin/bash
# The Swift toolchain, when it is installed under /opt/swift and not on PATH.
export PATH := $(PATH):/opt/swift/usr/bin

.PHONY: setup build release run test bench format clean

## setup: install missing system packages (apt-get; sudo when not root)
setup:
	@scripts/setup.sh

## build: debug build of everything
build: setup
	swift build

## release: optimised build of fleetd, fleetctl and fleetsim
release: setup
	swift build -c release

## run: build, start fleetd on its defaults, replay the bundled routes, show alerts live, stop
run: release
	@scripts/demo.sh "$$(swift build -c release --show-bin-path)"

## test: build and run every test (unit, property, golden, end-to-end)
test: setup
	swift build --build-tests
	swift test --skip-build

## bench: the benchmarks (release build), printing figures
bench: release
	@scripts/bench.sh "$$(swift build -c release --show-bin-path)"

## format: format the sources with the toolchain's swift-format
format:
	swift format --in-place --recursive --configuration .swift-format Package.swift Sources Tests Simulator

clean:
	rm -rf .build
